"""What the scripts of tests/tools share: running meshgen and other
programs, temporary directories and files, expectations counted to one exit
status, the two JSON Schema validators, and byte-for-byte comparisons.

Each script imports it from its own directory (`import mgtest`), as Python
puts the script's directory first on the module path.
"""
import difflib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data"))

# Synthetic machines that need no file: two sockets of four cores, and one
# socket of two.
INV = "synthetic:pack:2 core:4 pu:1"
SMALL_INV = "synthetic:pack:1 core:2 pu:1"

# The SARIF 2.1.0 schema of the pinned npm package @microsoft/jest-sarif,
# relative to the source tree (scripts/setup-deps.sh installs it).
SARIF_SCHEMA = "tools/npm/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"

# A run that has not ended by then has hung: far above any real run (a
# script whose runs are all short says less).
TIMEOUT = 600
# The exit status of a run that was killed after its timeout; it equals no
# number, so every check of an exit status fails on it.
HUNG = "hung"


class Checks:
    """Expectations of one script: each failure is printed as it is met and
    kept; done() prints the summary and gives the exit status."""

    def __init__(self, name):
        self.name, self.fails, self.n = name, [], 0

    def check(self, ok, what):
        """One expectation: records what as a failure unless ok; returns ok."""
        self.n += 1
        if not ok:
            self.fail(what)
        return bool(ok)

    def fail(self, what):
        """A failure found while checking something."""
        self.fails.append(what)
        print("FAIL:", what, flush=True)

    def done(self, summary=""):
        """Prints how many checks ran and how many failed (and summary); 1
        if any failed, else 0."""
        counts = f"{self.n} checks, " if self.n else ""
        tail = f"; {summary}" if summary else ""
        print(f"{self.name}: {counts}{len(self.fails)} failed{tail}")
        return 1 if self.fails else 0

    def exit(self, summary=""):
        sys.exit(self.done(summary))


def die(what):
    """Stops the script: what went wrong leaves nothing worth checking."""
    sys.exit(f"FAIL: {what}")


def run(args, cwd=None, env=None, text=False, timeout=TIMEOUT, stdin=None, input=None,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec=None, pass_fds=()):
    """Runs args (str, bytes or paths alike) and waits for it. Its output is
    captured (text, or bytes) unless stdout or stderr say where it goes; a
    run past timeout seconds is killed, and its returncode is HUNG."""
    try:
        return subprocess.run(list(args), cwd=cwd, env=env, text=text, timeout=timeout,
                              stdin=stdin, input=input, stdout=stdout, stderr=stderr,
                              preexec_fn=preexec, pass_fds=pass_fds)
    except subprocess.TimeoutExpired as e:
        empty = "" if text else b""
        note = f"(killed after {timeout} s)"
        return subprocess.CompletedProcess(e.cmd, HUNG, empty, note if text else note.encode())


def output(args, **kw):
    """The text args printed, after a run (run's options) that must
    succeed: any other exit stops the script with its output."""
    p = run(args, text=True, **kw)
    if p.returncode != 0:
        die(f"{' '.join(map(str, args))} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def meshgen(exe, *args, **kw):
    """run([exe, *args]) with run's options."""
    return run([exe] + list(args), **kw)


def env_with(**names):
    """This process's environment with names set (a value of None: unset)."""
    env = dict(os.environ)
    for k, v in names.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def tempdir(name):
    """A temporary directory removed on leaving the `with`."""
    return tempfile.TemporaryDirectory(prefix=f"meshgen-{name}-")


def write(path, data):
    """Writes str (as UTF-8) or bytes to path; returns path."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    return path


def bump(path, tree, text=None):
    """Rewrites path (with text when given) so that its mtime is newer than
    every file under tree. Not in the future, which would leave the build
    files cmake regenerates older than the spec they depend on; on a file
    system with coarse mtimes this waits for the clock to pass them."""
    newest = max(os.stat(os.path.join(r, f)).st_mtime_ns
                 for r, _, files in os.walk(tree) for f in files)
    for _ in range(400):
        if text is not None:
            write(path, text)
        os.utime(path, None)
        if os.stat(path).st_mtime_ns > newest:
            return
        time.sleep(0.01)
    die(f"the clock did not move past the mtimes of {tree}")


def read(path):
    """The bytes of path."""
    with open(path, "rb") as f:
        return f.read()


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def snapshot(d, names=None):
    """{name: bytes} of the regular files of directory d (or of names)."""
    if names is None:
        names = sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n)))
    return {n: read(os.path.join(d, n)) for n in names}


def locks(d):
    """The lock files meshgen left in d."""
    return [n for n in os.listdir(d) if n.endswith(".lock")]


def diff(expected, got, expected_label, got_label):
    """A unified diff of two texts (str or bytes), "" when they are equal."""
    if isinstance(expected, bytes):
        expected = expected.decode("utf-8", "replace")
    if isinstance(got, bytes):
        got = got.decode("utf-8", "replace")
    lines = difflib.unified_diff(expected.splitlines(keepends=True), got.splitlines(keepends=True),
                                 expected_label, got_label)
    return "".join(d if d.endswith("\n") else d + "\n\\ no newline at end\n" for d in lines)


def golden(path, got, update):
    """got (bytes) against the golden file path: None when they are the same
    or update rewrote the file, else what differs (a diff, or that the file
    is missing)."""
    if update:
        write(path, got)
        return None
    if not os.path.exists(path):
        return f"{path} is missing"
    want = read(path)
    if want == got:
        return None
    return diff(want, got, path, "generated")[:6000]


def named_topology(host, source="topo/nvidia-vga.xml"):
    """The bytes of an hwloc export of tests/data (two NVIDIA GPUs) whose
    machine is called host: a file named otherwise keeps its odd name to its
    path (a file name that is no host name is refused as one)."""
    topo = read(os.path.join(DATA, source))
    machine = topo.index(b">", topo.index(b'<object type="Machine"')) + 1
    return topo[:machine] + b'<info name="HostName" value="%s"/>' % host.encode() + topo[machine:]


def cxx_beside(cc):
    """The C++ compiler beside the C compiler cc (g++ for gcc, clang++ for
    clang), or None."""
    base = os.path.basename(cc)
    for c, cxx in (("clang", "clang++"), ("gcc", "g++"), ("cc", "c++")):
        if base.startswith(c):
            path = os.path.join(os.path.dirname(cc), cxx + base[len(c):])
            return path if os.access(path, os.X_OK) else None
    return None


def validate(root, node, schema_path, docs):
    """Judges JSON documents against a schema with both validators,
    python3-jsonschema and ajv (tools/npm/validate.js), each reading the
    same bytes. docs: [(label, str or bytes)]. Returns, in the order of
    docs, (python's verdict, its first error or "", ajv's verdict, its
    words); a document that is not JSON is invalid to python3-jsonschema. A
    validator that cannot run stops the script."""
    import jsonschema

    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    py = cls(schema, format_checker=cls.FORMAT_CHECKER)
    out = []
    with tempdir("validate") as tmp:
        paths = []
        for i, (label, raw) in enumerate(docs):
            paths.append(write(os.path.join(tmp, f"{i}.json"), raw))
            try:
                errs = [e.message for e in py.iter_errors(json.loads(raw))]
            except ValueError as e:  # not JSON, or not UTF-8
                errs = [f"not one JSON document: {e}"]
            out.append((not errs, errs[0] if errs else ""))
        r = run([node, os.path.join(root, "tools/npm/validate.js"), schema_path] + paths,
                text=True, timeout=600)
        if r.returncode not in (0, 1):
            die(f"ajv failed on {schema_path} ({r.returncode}): {r.stderr}{r.stdout}")
        said = dict(line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
        return [v + (said.get(p) == "valid", said.get(p, "no verdict")) for v, p in zip(out, paths)]
