#!/usr/bin/env python3
"""Runs command-line test cases and checks what meshgen printed.

A case is a YAML spec whose leading comments carry the test:
    # meshgen: validate --inventory "synthetic:pack:1 core:8"
    # exit: 1
    # error: shape-infer 9:17
    # error: hostlist 3:24 ../data/inventory/errors/bad-hostlist.yaml
    # stdout: "mesh": [0, 1]          (a substring the output must hold)
    # no-stdout: [0m                   (a substring it must not hold)
    # stderr: some text               (a substring stderr must hold)
    # env: TERM=dumb                  (set in meshgen's environment)
    # tty: stdout                     (stdout is a pseudo-terminal)
The spec file itself is appended to the command line unless the command
holds the word {file} (then it is put there) or the case says
`# no-file`. Every `error:` line must match one diagnostic
`FILE:LINE:COL: error: ... [CHECK]` (FILE is the case itself unless the
line names another), and there must be no other errors.

Beside each case NAME.yaml lies NAME.stderr, the full text meshgen writes
to stderr for it: every error, warning and note, in order, word for word
(empty when it prints nothing). The runner fails with a unified diff when
the text differs, and when the file is missing. The pin is a file of its
own rather than comments in the case so that rewriting it never moves the
line numbers the diagnostics point at.

Update mode rewrites the pins from what meshgen prints now, for a
deliberate change of wording (review the diff before committing):
    MESHGEN_UPDATE_CASES=1 ctest --test-dir build -R '^case\\.'
    tests/tools/run_case.py --update build/gen/meshgen tests/cases/*.yaml
The other expectations (exit code, error: lines, substrings) are still
checked in update mode: a pin records wording, not intent.

Several case files may be given; with MESHGEN_WRAPPER set (e.g. to a
valgrind command line) meshgen runs under it. meshgen runs in the case's
directory with LC_ALL=C and NO_COLOR unset, so the text is the same on
every machine.
"""
import os
import re
import shlex
import subprocess
import sys

import mgtest

UPDATE_ENV = "MESHGEN_UPDATE_CASES"


def main():
    argv = sys.argv[1:]
    update = os.environ.get(UPDATE_ENV) == "1"
    if argv and argv[0] == "--update":
        update, argv = True, argv[1:]
    if len(argv) < 2:
        sys.exit("usage: run_case.py [--update] MESHGEN CASE.yaml...")
    meshgen, cases = os.path.abspath(argv[0]), argv[1:]
    wrapper = shlex.split(os.environ.get("MESHGEN_WRAPPER", ""))
    failed = [c for c in cases if not run(wrapper + [meshgen], c, update)]
    if failed:
        sys.exit(f"{len(failed)} of {len(cases)} cases failed: {' '.join(failed)}")


def parse(case, name):
    """The case's expectations, from its leading comment lines."""
    t = {"command": None, "exit": 0, "errors": [], "stdout": [], "stderr": [], "no_file": False,
         "no-stdout": [], "env": [], "tty": False}
    with open(case, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                continue
            m = re.match(r"#\s*(meshgen|exit|error|stdout|no-stdout|stderr|no-file|env|tty):?\s?(.*)$",
                         line.rstrip("\n"))
            if not m:
                continue
            key, val = m.group(1), m.group(2)
            if key == "meshgen":
                t["command"] = val
            elif key == "exit":
                t["exit"] = int(val)
            elif key == "error":
                parts = val.split()
                t["errors"].append((parts[0], parts[1], parts[2] if len(parts) > 2 else name))
            elif key == "no-file":
                t["no_file"] = True
            elif key == "tty":
                t["tty"] = val == "stdout"
            else:
                t[key].append(val)
    return t


def pin_path(case):
    return os.path.splitext(case)[0] + ".stderr"


def read_pin(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None


def write_pin(path, text):
    """Atomically, and only when it changes (ctest may run two writers)."""
    if read_pin(path) == text:
        return
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def normalize(err, meshgen, cwd):
    """The text as it reads on any machine: no absolute path of this one."""
    for path, stand_in in ((meshgen, "meshgen"), (cwd + os.sep, "")):
        err = err.replace(path, stand_in)
    return err


def check_pin(name, pin, err, update):
    """Failures of the pinned stderr text (none in update mode)."""
    if update:
        return []
    expected = read_pin(pin)
    if expected is None:
        return [f"no pinned stderr {os.path.basename(pin)}; write it with {UPDATE_ENV}=1"]
    if expected == err:
        return []
    text = mgtest.diff(expected, err, f"{name} (pinned)", f"{name} (meshgen now)")
    return [f"stderr differs from {os.path.basename(pin)} (rewrite it with {UPDATE_ENV}=1 if "
            f"the change is deliberate):\n{text}"]


def run_plain(args, cwd, env):
    return mgtest.run(args, cwd=cwd, env=env, timeout=300)


def run_on_tty(args, cwd, env):
    """args with stdout on a pseudo-terminal (what a person sees), stderr
    on a pipe; the terminal's "\r\n" read back as "\n"."""
    import pty
    master, slave = pty.openpty()
    with subprocess.Popen(args, stdout=slave, stderr=subprocess.PIPE, cwd=cwd, env=env) as p:
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        err = p.stderr.read()
        p.wait(timeout=300)
    out = b"".join(chunks).replace(b"\r\n", b"\n")
    return subprocess.CompletedProcess(args, p.returncode, out, err)


def run(meshgen, case, update):
    name = os.path.basename(case)
    cwd = os.path.dirname(os.path.abspath(case))
    t = parse(case, name)
    if t["command"] is None:
        print(f"{name}: no '# meshgen:' line")
        return False
    args = shlex.split(t["command"])
    if "{file}" in args:
        args = [name if a == "{file}" else a for a in args]
    elif not t["no_file"]:
        args.append(name)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR" and not k.startswith("LC_")}
    env.update(LC_ALL="C", LANG="C")
    env.update(e.split("=", 1) for e in t["env"])
    proc = (run_on_tty if t["tty"] else run_plain)(meshgen + args, cwd, env)
    out = proc.stdout.decode("utf-8", "replace")
    err = normalize(proc.stderr.decode("utf-8", "replace"), meshgen[-1], cwd)
    failures = []
    if proc.returncode != t["exit"]:
        failures.append(f"exit code {proc.returncode}, expected {t['exit']}")
    found = re.findall(r"^(.*?):(\d+):(\d+): error: .*\[([a-z0-9-]+)\]$", err, re.M)
    # An error in the --mesh string is located in "--mesh"; the case's
    # expectation then names no file.
    seen = [(c, f"{l}:{col}", name if f == "--mesh" else f) for (f, l, col, c) in found]
    errors = t["errors"]
    failures += [f"expected error [{e[0]}] at {e[2]}:{e[1]}" for e in errors if e not in seen]
    failures += [f"unexpected error [{s[0]}] at {s[2]}:{s[1]}" for s in seen if s not in errors]
    failures += [f"stdout lacks {s!r}" for s in t["stdout"] if s not in out]
    failures += [f"stdout holds {s!r}" for s in t["no-stdout"] if s in out]
    failures += [f"stderr lacks {s!r}" for s in t["stderr"] if s not in err]
    failures += check_pin(name, pin_path(case), err, update)
    if update:
        write_pin(pin_path(case), err)
    if failures:
        print(f"{name}: {' '.join(meshgen + args)}")
        print("--- stdout\n" + out + "--- stderr\n" + err + "---")
        for f in failures:
            print(f"FAIL: {f}")
        return False
    pinned = "pinned stderr rewritten" if update else "stderr as pinned"
    print(f"{name}: ok ({len(errors)} errors as expected, exit {t['exit']}, {pinned})")
    return True


if __name__ == "__main__":
    main()
