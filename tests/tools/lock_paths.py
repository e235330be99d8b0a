#!/usr/bin/env python3
"""The output lock of `meshgen generate` (docs/reference.md, "Files and
streams", "Concurrent runs"), on the paths this machine never takes by
itself. Everything happens in private temporary directories; no device node
is touched.

    lock_paths.py shim MESHGEN LOCK_SHIM.so
        Under tests/shim/lock_shim.c (LD_PRELOAD): flock failing with ENOLCK,
        EOPNOTSUPP, ENOTSUP, EINVAL or EACCES, and the directory's open
        failing with EACCES, each leave exit 0, nothing on stderr, and the .h,
        the .c and the depfile byte-identical to a run with the lock; the
        unlocked run removes no stale temporaries and leaves none of its own,
        and a second run leaves the unchanged files alone. The directory's
        open failing otherwise (EPERM) is an io error that writes nothing.
    lock_paths.py unreadable MESHGEN
        The same for real: output directories of mode 0333 (written, never
        read), as an unprivileged user (setpriv, from util-linux). Exit 77
        (ctest's SKIP_RETURN_CODE) when not root or without setpriv.
    lock_paths.py depfile MESHGEN LOCK_SHIM.so
        Concurrent runs, each lock and each rename 10 ms slower under the
        shim (MG_SHIM_DELAY_MS) so that the races are run, not just started, of different inventories with the depfile in another
        directory: the depfile always names the inventory the pair was
        generated from; runs that share only the depfile's directory never
        fail; runs whose outputs cross two directories in opposite orders
        never deadlock.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SYNTH = "synthetic:pack:2 core:4 pu:1"
SPEC = "meshgen: 1\nname: lk\nmesh: {axes: [dp, tp], shape: [%s]}\n"
TIMEOUT = 20  # a hang (a deadlock) shows as a timeout, far above any real run
OUTPUTS = ("out/lk_mesh.h", "out/lk_mesh.c", "dep/lk.d")
STALE = ("out/lk_mesh.h.tmp.AbC123", "dep/lk.d.tmp.xYz789.old")
SKIP = 77


class Checks:
    def __init__(self):
        self.fails, self.n = [], 0

    def expect(self, cond, what):
        self.n += 1
        if not cond:
            self.fails.append(what)

    def done(self):
        for f in self.fails:
            print("FAIL:", f)
        print(f"{self.n} checks, {len(self.fails)} failed")
        return 1 if self.fails else 0


def run(cmd, cwd, env=None):
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, "hung", b"", b"(killed after a timeout)")


def case_dir(root, name, shape="2, 4"):
    """A directory with spec.yaml, out/ and dep/: the outputs' paths are
    relative, so every case writes the same bytes."""
    d = os.path.join(root, name)
    for sub in ("out", "dep"):
        os.makedirs(os.path.join(d, sub))
    with open(os.path.join(d, "spec.yaml"), "w") as f:
        f.write(SPEC % shape)
    return d


def generate(meshgen):
    return [meshgen, "generate", "spec.yaml", "--inventory", SYNTH, "-o", "out",
            "--depfile", "dep/lk.d"]


def contents(d, names=OUTPUTS):
    got = {}
    for name in names:
        try:
            with open(os.path.join(d, name), "rb") as f:
                got[name] = f.read()
        except OSError:
            got[name] = None
    return got


def mtimes(d):
    return [os.stat(os.path.join(d, name)).st_mtime_ns if os.path.exists(os.path.join(d, name))
            else None for name in OUTPUTS]


def plant_stale(d):
    for name in STALE:
        open(os.path.join(d, name), "w").close()


def own_temporaries(d):
    return [os.path.join(sub, f) for sub in ("out", "dep") for f in os.listdir(os.path.join(d, sub))
            if ".tmp." in f and os.path.join(sub, f) not in STALE]


def reference(meshgen, root, c):
    """A run with the lock: the bytes every other run must write, and the
    stale temporaries it removes (the contrast to the unlocked runs)."""
    d = case_dir(root, "reference")
    plant_stale(d)
    p = run(generate(meshgen), d)
    want = contents(d)
    c.expect(p.returncode == 0 and p.stderr == b"" and None not in want.values(),
             f"the locked reference run: exit {p.returncode} {p.stderr}")
    c.expect(not any(os.path.exists(os.path.join(d, s)) for s in STALE),
             "the locked run left the stale temporaries")
    c.expect(b"spec.yaml" in (want["dep/lk.d"] or b""), "the depfile does not list spec.yaml")
    return want


def shim(meshgen, lib, root, c):
    want = reference(meshgen, root, c)
    for var, err in (("MG_SHIM_FLOCK", "ENOLCK"), ("MG_SHIM_FLOCK", "EOPNOTSUPP"),
                     ("MG_SHIM_FLOCK", "ENOTSUP"), ("MG_SHIM_FLOCK", "EINVAL"),
                     ("MG_SHIM_FLOCK", "EACCES"), ("MG_SHIM_OPENDIR", "EACCES")):
        what = f"{var}={err}"
        d = case_dir(root, f"{var}-{err}")
        plant_stale(d)
        log = os.path.join(d, "shim.log")
        env = shim_env(lib, MG_SHIM_LOG=log, **{var: err})
        p = run(generate(meshgen), d, env)
        c.expect(p.returncode == 0 and p.stderr == b"",
                 f"{what}: exit {p.returncode}, stderr {p.stderr!r} (want 0, nothing)")
        c.expect(contents(d) == want, f"{what}: the outputs differ from the locked run's")
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        if var == "MG_SHIM_FLOCK":
            # out/ and dep/: one lock each, both refused.
            c.expect(lines == [f"flock {err}"] * 2, f"{what}: the shim saw {lines}")
        else:
            # Opened once per output that is replaced: out/ twice, dep/ once.
            c.expect(sorted(lines) == ["opendir EACCES dep"] + ["opendir EACCES out"] * 2,
                     f"{what}: the shim saw {lines}")
        c.expect(all(os.path.exists(os.path.join(d, s)) for s in STALE),
                 f"{what}: the unlocked run removed stale temporaries")
        c.expect(not own_temporaries(d), f"{what}: left temporaries {own_temporaries(d)}")
        before = mtimes(d)
        p = run(generate(meshgen), d, env)
        c.expect(p.returncode == 0 and mtimes(d) == before,
                 f"{what}: a second run rewrote the unchanged outputs (exit {p.returncode})")

    # A directory that cannot be opened for another reason is no best-effort
    # case: an io error, and neither table nor the depfile is written.
    d = case_dir(root, "EPERM")
    env = shim_env(lib, MG_SHIM_OPENDIR="EPERM")
    p = run(generate(meshgen), d, env)
    c.expect(p.returncode == 2 and b"cannot write lk_mesh.[ch]" in p.stderr and
             b"Operation not permitted" in p.stderr and b"[io]" in p.stderr,
             f"MG_SHIM_OPENDIR=EPERM: exit {p.returncode} {p.stderr}")
    c.expect(set(contents(d).values()) == {None}, "MG_SHIM_OPENDIR=EPERM: an output was written")


def as_nobody(cmd):
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd


def unreadable(meshgen, root, c):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("SKIP: needs root and setpriv (util-linux) to run as an unprivileged user")
        return SKIP
    os.chmod(root, 0o711)  # private: nobody may pass through, not list
    if run(as_nobody([meshgen, "--version"]), root).returncode != 0:
        print(f"SKIP: user 65534 cannot run {meshgen} (a directory on its path is closed)")
        return SKIP
    want = reference(meshgen, root, c)
    d = case_dir(root, "reference2", "4, 2")  # the bytes of a changed spec
    p = run(generate(meshgen), d)
    want2 = contents(d)
    c.expect(p.returncode == 0 and want2 != want, "the second reference run")

    d = case_dir(root, "unreadable")
    plant_stale(d)
    os.chmod(d, 0o755)
    for sub in ("out", "dep"):
        os.chown(os.path.join(d, sub), 65534, 65534)
        os.chmod(os.path.join(d, sub), 0o333)
    p = run(as_nobody(["ls", "out"]), d)
    c.expect(p.returncode != 0, "user 65534 could list a 0333 directory: the case tests nothing")
    p = run(as_nobody(generate(meshgen)), d)
    c.expect(p.returncode == 0 and p.stderr == b"",
             f"unreadable output directories: exit {p.returncode}, stderr {p.stderr!r}")
    c.expect(contents(d) == want, "unreadable output directories: the outputs differ")
    c.expect(all(os.stat(os.path.join(d, f)).st_uid == 65534 for f in OUTPUTS),
             "unreadable output directories: the outputs are not user 65534's")
    c.expect(all(os.path.exists(os.path.join(d, s)) for s in STALE),
             "unreadable output directories: stale temporaries were removed")
    c.expect(not own_temporaries(d), f"unreadable: left temporaries {own_temporaries(d)}")
    before = mtimes(d)
    p = run(as_nobody(generate(meshgen)), d)
    c.expect(p.returncode == 0 and mtimes(d) == before,
             f"unreadable: a second run rewrote the unchanged outputs (exit {p.returncode})")
    with open(os.path.join(d, "spec.yaml"), "w") as f:
        f.write(SPEC % "4, 2")
    p = run(as_nobody(generate(meshgen)), d)
    c.expect(p.returncode == 0 and contents(d) == want2,
             f"unreadable: a changed spec did not replace the outputs (exit {p.returncode})")
    return None


def prereq(depfile):
    """The inventory a depfile lists (its last prerequisite)."""
    return depfile.decode().split(":", 1)[1].split()[-1] if depfile else None


def inputs_line(source):
    """The inventory a .h or .c names in its 'Inputs:' line."""
    for line in (source or b"").decode().splitlines():
        if "Inputs:" in line:
            return line.rsplit("inventory ", 1)[1].strip()
    return None


def race(d, cmds, rounds, env=None):
    """Runs the commands together, rounds times; each round's exits."""
    for _ in range(rounds):
        procs = [subprocess.Popen(cmd, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=env) for cmd in cmds]
        codes = []
        for p in procs:
            try:
                codes.append(p.wait(TIMEOUT))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                codes.append("hung")
            p.stderr.close()
        yield codes


def shim_env(lib, **extra):
    env = dict(os.environ, LD_PRELOAD=lib, LC_ALL="C", **extra)
    # An ASan build of meshgen wants its runtime first; the shim is not
    # instrumented and intercepts nothing ASan does.
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    return env


def depfile(meshgen, lib, root, c, rounds=40):
    slow = shim_env(lib, MG_SHIM_DELAY_MS="10")
    d = os.path.join(root, "race")
    for sub in ("out", "out2", "dep"):
        os.makedirs(os.path.join(d, sub))
    for name, synth in (("a.xml", "synthetic:pack:2 core:4 pu:1"),
                        ("b.xml", "synthetic:pack:4 core:2 pu:1")):
        p = run([meshgen, "inventory", "--inventory", synth, "--export", name], d)
        c.expect(p.returncode == 0, f"inventory --export {name}: {p.stderr}")

    def gen(inv, out="out", dep="dep/lk.d"):
        return [meshgen, "generate", "--mesh", "dp:2,tp:4", "--name", "lk", "--inventory", inv,
                "-o", out, "--depfile", dep]

    # One output directory, the depfile in another: the three always agree.
    mixed = failed = 0
    for codes in race(d, [gen("a.xml"), gen("b.xml")], rounds, slow):
        failed += codes != [0, 0]
        got = contents(d, ("out/lk_mesh.h", "out/lk_mesh.c", "dep/lk.d"))
        invs = {inputs_line(got["out/lk_mesh.h"]), inputs_line(got["out/lk_mesh.c"]),
                prereq(got["dep/lk.d"])}
        mixed += len(invs) != 1 or None in invs
    c.expect(failed == 0, f"one output directory: {failed} of {rounds} rounds had a run fail")
    c.expect(mixed == 0, f"one output directory: {mixed} of {rounds} rounds left a depfile and "
             "a pair of different inventories")

    # Two output directories, one depfile: neither run fails (one never
    # removes the other's depfile temporary as stale), and the depfile names
    # a pair that agrees with it.
    mixed = failed = 0
    for codes in race(d, [gen("a.xml"), gen("b.xml", "out2")], rounds, slow):
        failed += codes != [0, 0]
        dep = contents(d, ("dep/lk.d",))["dep/lk.d"]
        out = dep.decode().split("/", 1)[0] if dep else "none"
        pair = contents(d, (f"{out}/lk_mesh.h", f"{out}/lk_mesh.c")).values()
        mixed += {inputs_line(s) for s in pair} != {prereq(dep)}
    c.expect(failed == 0, f"one depfile, two output directories: {failed} of {rounds} rounds "
             "had a run fail")
    c.expect(mixed == 0, f"one depfile, two output directories: {mixed} of {rounds} rounds "
             "left a depfile that disagrees with the pair it names")

    # out/ then dep/ against dep/ then out/: the locks are ordered, no run waits
    # on the other in a cycle.
    hung = 0
    for codes in race(d, [gen("a.xml", "out", "dep/x.d"), gen("b.xml", "dep", "out/y.d")], rounds,
                      slow):
        hung += codes != [0, 0]
        if "hung" in codes:
            break  # one is enough, and each costs the timeout
    c.expect(hung == 0, f"crossed directories: {hung} of {rounds} rounds hung or failed")
    c.expect(not [f for sub in ("out", "out2", "dep") for f in os.listdir(os.path.join(d, sub))
                  if ".tmp." in f], "the concurrent runs left temporaries")


def main():
    part, meshgen = sys.argv[1], os.path.abspath(sys.argv[2])
    c = Checks()
    with tempfile.TemporaryDirectory() as root:
        if part == "shim":
            shim(meshgen, os.path.abspath(sys.argv[3]), root, c)
        elif part == "unreadable":
            if unreadable(meshgen, root, c) == SKIP:
                return SKIP
        elif part == "depfile":
            depfile(meshgen, os.path.abspath(sys.argv[3]), root, c)
        else:
            print(f"unknown part '{part}'")
            return 2
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
