#!/usr/bin/env python3
"""Outputs that never clobber, inputs that never hang, errors that are never
lost (docs/reference.md, "Files and streams"). Everything happens in a
private temporary directory, with private FIFOs and links; no device node
of the machine is written.

- --svg, --export and --depfile through a symbolic link replace the link's
  target (the link stays), a dangling link's target is created, a FIFO is
  written in place (with a reader) or refused at once with exit 2 (without
  one), and stays a FIFO;
- resolve, show, inventory, --help, help COMMAND and --version exit 2 with
  a message when stdout cannot be written (a pipe whose reader has closed,
  SIGPIPE ignored);
- concurrent generate runs into one directory always leave a .h and a .c of
  the same run and no lock file; a lock file that stays (a run killed with
  SIGKILL) makes a run wait, then exit 2 naming it, with nothing written
  and the lock file left alone;
- a generate of half a million devices interrupted by SIGINT or SIGTERM at
  60 moments from 50% to 110% of an uninterrupted run's time (the lock
  files are held in the last part, which SIGKILL at such moments shows by
  leaving some behind) leaves no lock file, nothing but the .h and the .c,
  and those of one run (the previous or the new: a signal between the two
  renames once left a new .h beside an old .c, in about 3% of such
  moments);
- a FIFO as the spec, --inventory, a spec's inventory: or an inventory's
  topology: is refused at once (exit 2), a missing, directory or looping
  input is an I/O error (exit 2) wherever it is named;
- -o naming a regular file says so; a .h that is a directory is named in
  the message (not -o's directory), and nothing is written;
- no output over an input or another output: a --depfile that is the .h or
  the .c (by any path), the spec, the inventory or a topology; show --svg
  over the spec; a spec named like the .h it generates; inventory --export
  over the XML it reads; through links and "..", and before the output
  exists (two outputs of one name): exit 2 naming both, nothing written;
- a path that names meshgen's own descriptor (/dev/stdout, /dev/stderr,
  /dev/fd/N, /proc/self/fd/N), with that descriptor on a private regular
  file, is written through the descriptor at its offset (the file keeps
  its inode and what it held), never replaced by a new file; a descriptor
  that is not open for writing, or open on the .c, is refused and nothing
  is written.

    io_safety.py MESHGEN
"""
import os
import signal
import subprocess
import sys
import threading
import time

import mgtest

INV = mgtest.INV
TIMEOUT = 30  # a hang shows as a timeout, far above any real run


def run(meshgen, *args, cwd=None):
    return mgtest.meshgen(meshgen, *args, cwd=cwd, timeout=TIMEOUT)


class read_fifo:
    """Reads a FIFO to its end in a thread; into[0] gets the bytes. The
    read end is open before the constructor returns (a thread that opened
    it later lost the race to meshgen's non-blocking open under load: ENXIO,
    exit 2), and a write end of our own keeps the reader from seeing the end
    before meshgen writes; join() closes it and waits."""

    def __init__(self, path, into):
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.w = os.open(path, os.O_WRONLY)
        os.set_blocking(fd, True)

        def reader():
            with os.fdopen(fd, "rb") as f:
                into.append(f.read())
        self.t = threading.Thread(target=reader, daemon=True)
        self.t.start()

    def join(self, timeout):
        os.close(self.w)
        self.t.join(timeout)


def outputs(meshgen, d, c):
    """--svg, --export and --depfile through links and into FIFOs."""
    svg_args = ["show", "--mesh", "dp:8", "--inventory", INV, "--svg"]
    want = run(meshgen, *svg_args, os.path.join(d, "plain.svg")).returncode == 0 and \
        mgtest.read(os.path.join(d, "plain.svg"))
    c.check(b"<svg" in (want or b""), "plain --svg wrote no SVG")

    for flag, args, name in (("--svg", svg_args, "svg"),
                             ("--export", ["inventory", "--inventory", INV, "--export"], "xml")):
        target = mgtest.write(os.path.join(d, f"target.{name}"), "old")
        link = os.path.join(d, f"link.{name}")
        os.symlink(f"target.{name}", link)
        p = run(meshgen, *args, link)
        c.check(p.returncode == 0, f"{flag} through a link: exit {p.returncode} {p.stderr}")
        c.check(os.path.islink(link), f"{flag}: the link was replaced by a file")
        c.check(mgtest.read(target) != b"old", f"{flag}: the link's target was not written")

        dangling = os.path.join(d, f"dangling.{name}")
        os.symlink(f"created.{name}", dangling)
        p = run(meshgen, *args, dangling)
        c.check(p.returncode == 0 and os.path.islink(dangling) and
                 os.path.isfile(os.path.join(d, f"created.{name}")),
                 f"{flag} through a dangling link: target not created ({p.stderr})")

        fifo = os.path.join(d, f"fifo.{name}")
        os.mkfifo(fifo)
        p = run(meshgen, *args, fifo)
        c.check(p.returncode == 2 and b"FIFO that no process reads" in p.stderr,
                 f"{flag} into a FIFO without reader: exit {p.returncode} {p.stderr}")
        got = []
        t = read_fifo(fifo, got)
        p = run(meshgen, *args, fifo)
        t.join(TIMEOUT)
        c.check(p.returncode == 0 and got and len(got[0]) > 100,
                 f"{flag} into a FIFO with a reader: exit {p.returncode}, {len(got[0]) if got else 0} bytes")
        c.check(os.path.exists(fifo) and not os.path.isfile(fifo),
                 f"{flag}: the FIFO was replaced by a regular file")
        # A link to a FIFO: written through the link, in place.
        link_fifo = os.path.join(d, f"link-fifo.{name}")
        os.symlink(f"fifo.{name}", link_fifo)
        got = []
        t = read_fifo(fifo, got)
        p = run(meshgen, *args, link_fifo)
        t.join(TIMEOUT)
        c.check(p.returncode == 0 and got and len(got[0]) > 100 and os.path.islink(link_fifo),
                 f"{flag} into a link to a FIFO: exit {p.returncode}")

    # --depfile through a link: the link stays, its target is the depfile.
    out = os.path.join(d, "gen")
    os.mkdir(out)
    os.symlink("real.d", os.path.join(out, "dep.d"))
    p = run(meshgen, "generate", "--mesh", "dp:8", "--inventory", INV, "--name", "dep",
            "--depfile", os.path.join(out, "dep.d"), "-o", out)
    c.check(p.returncode == 0 and os.path.islink(os.path.join(out, "dep.d")) and
             b"dep_mesh.h" in mgtest.read(os.path.join(out, "real.d")),
             f"--depfile through a link: exit {p.returncode} {p.stderr}")
    # A depfile that cannot be written: neither table is, and the message
    # names the depfile, not the output directory that is fine.
    missing = os.path.join(d, "no-such-dir", "x.d")
    p = run(meshgen, "generate", "--mesh", "dp:8", "--inventory", INV, "--name", "nodep",
            "--depfile", missing, "-o", out)
    c.check(p.returncode == 2 and missing.encode() in p.stderr and
             not os.path.exists(os.path.join(out, "nodep_mesh.h")) and
             not os.path.exists(os.path.join(out, "nodep_mesh.c")),
             f"--depfile into a missing directory: exit {p.returncode} {p.stderr}")
    # A depfile that is one of the tables, by its name, through a linked
    # directory or through "..": refused, and neither table is written (it
    # was the .c holding the depfile, or the .h, whichever was renamed last).
    os.symlink("gen", os.path.join(d, "gen-link"))
    for dep in (os.path.join(out, "same_mesh.c"), os.path.join(d, "gen-link", "same_mesh.h"),
                os.path.join(out, "..", "gen", "same_mesh.c")):
        p = run(meshgen, "generate", "--mesh", "dp:8", "--inventory", INV, "--name", "same",
                "--depfile", dep, "-o", out)
        c.check(p.returncode == 2 and b"which this run also writes" in p.stderr and
                 not os.path.exists(os.path.join(out, "same_mesh.h")) and
                 not os.path.exists(os.path.join(out, "same_mesh.c")),
                 f"--depfile {dep}, one of the tables: exit {p.returncode} {p.stderr}")


def own_streams(meshgen, d, c):
    """/dev/stdout and its kin while the stream is a private regular file:
    written through the descriptor, after what the file already held."""
    if not os.path.isdir("/proc/self/fd"):
        return  # the rule is Linux's /proc/self/fd; elsewhere links are followed
    gen = ["generate", "--mesh", "dp:8", "--inventory", INV, "--name", "own", "-o", d]

    def through(args, name, fd=1, want=b"own_mesh.h"):
        """Runs meshgen with descriptor fd on a private file that holds
        'before\n'; returns (exit, the file's bytes, same inode)."""
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(b"before\n")
            f.flush()
            ino = os.fstat(f.fileno()).st_ino
            # The streams not on the file are pipes of this test's (no device
            # node of the machine is written).
            kw = {"stdout": f if fd == 1 else subprocess.PIPE,
                  "stderr": f if fd == 2 else subprocess.PIPE}
            if fd > 2:
                os.dup2(f.fileno(), fd)
                kw["pass_fds"] = (fd,)
            try:
                p = mgtest.meshgen(meshgen, *args, timeout=TIMEOUT, **kw)
            finally:
                if fd > 2:
                    os.close(fd)
        data = mgtest.read(path)
        same = os.stat(path).st_ino == ino
        c.check(p.returncode == 0 and same and data.startswith(b"before\n") and
                 want in data[7:], f"{args[-1]} on a private file ({name}): exit "
                 f"{p.returncode}, same inode {same}, {data[:80]!r} {p.stderr!r}")
        return data

    for dep in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        through(gen + ["--depfile", dep], "dep-" + dep.replace("/", "_"))
    through(gen + ["--depfile", "/dev/stderr"], "dep-stderr", fd=2)
    through(gen + ["--depfile", "/dev/fd/7"], "dep-fd7", fd=7)
    # A link to /dev/stdout is the descriptor too.
    os.symlink("/dev/stdout", os.path.join(d, "out-link"))
    through(gen + ["--depfile", os.path.join(d, "out-link")], "dep-link")
    c.check(os.path.islink(os.path.join(d, "out-link")), "the link to /dev/stdout was replaced")
    # show: its text first, then the SVG, both in the file.
    data = through(["show", "--mesh", "dp:8", "--inventory", INV, "--svg", "/dev/stdout"],
                   "show-svg", want=b"<svg")
    c.check(b"dp=8" in data and data.find(b"dp=8") < data.find(b"<svg"),
             f"show --svg /dev/stdout: the text does not precede the SVG: {data[:120]!r}")
    through(["inventory", "--inventory", INV, "--export", "/dev/stdout"], "export",
            want=b"<topology")
    # Refused before anything is written: a descriptor not open, one open
    # only for reading, one open on the .c itself.
    for name in ("own_mesh.h", "own_mesh.c"):
        os.unlink(os.path.join(d, name))
    p = run(meshgen, *gen, "--depfile", "/dev/fd/250")
    c.check(p.returncode == 2 and b"not open for writing" in p.stderr and
             not os.path.exists(os.path.join(d, "own_mesh.h")),
             f"--depfile /dev/fd/250 (not open): exit {p.returncode} {p.stderr}")
    with open(os.path.join(d, "dep-fd7"), "rb") as f:
        p = mgtest.meshgen(meshgen, *gen, "--depfile", "/dev/stdout", stdout=f, timeout=TIMEOUT)
    c.check(p.returncode == 2 and b"not open for writing" in p.stderr and
             not os.path.exists(os.path.join(d, "own_mesh.h")),
             f"--depfile /dev/stdout (read-only): exit {p.returncode} {p.stderr}")
    with open(os.path.join(d, "own_mesh.c"), "wb") as f:
        p = mgtest.meshgen(meshgen, *gen, "--depfile", "/dev/stdout", stdout=f, timeout=TIMEOUT)
    c.check(p.returncode == 2 and b"it is the .c" in p.stderr and
             not os.path.exists(os.path.join(d, "own_mesh.h")),
             f"--depfile /dev/stdout > the .c: exit {p.returncode} {p.stderr}")


def stdout_failures(meshgen, d, c):
    """stdout is a pipe whose reader has closed; SIGPIPE is ignored, so the
    write fails with EPIPE and meshgen must say so."""
    cases = [["resolve", "--mesh", "dp:8", "--inventory", INV],
             ["show", "--mesh", "dp:8", "--inventory", INV, "--color", "never"],
             ["inventory", "--inventory", INV], ["--help"], ["help", "generate"],
             ["generate", "--help"], ["--version"]]
    for args in cases:
        r, w = os.pipe()
        os.close(r)

        def ignore():
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        p = mgtest.meshgen(meshgen, *args, stdout=w, timeout=TIMEOUT, preexec=ignore)
        os.close(w)
        c.check(p.returncode == 2 and b"cannot write the output" in p.stderr,
                 f"{' '.join(args)} into a closed pipe: exit {p.returncode} {p.stderr}")


def digest(path):
    for line in open(path, encoding="utf-8"):
        if "Digest:" in line:
            return line.split("Digest:")[1].strip()
    return None


def concurrent(meshgen, d, c, rounds=60):
    out = os.path.join(d, "race")
    os.mkdir(out)
    mixed = 0
    for i in range(rounds):
        procs = [subprocess.Popen([meshgen, "generate", "--mesh", mesh, "--inventory", INV,
                                   "--name", "race", "-o", out], stderr=subprocess.PIPE)
                 for mesh in ("dp:2,tp:4", "dp:4,tp:2")]
        codes = [p.wait(TIMEOUT) for p in procs]
        for p in procs:
            p.stderr.close()
        if codes != [0, 0]:
            c.check(False, f"concurrent generate: exits {codes}")
            return
        if digest(os.path.join(out, "race_mesh.h")) != digest(os.path.join(out, "race_mesh.c")):
            mixed += 1
    c.check(mixed == 0, f"concurrent generate: {mixed} of {rounds} rounds left a .h and a .c "
             "of different runs")
    c.check(not mgtest.locks(out), "concurrent generate left lock files")

    # A lock file that stays: the run waits, then says which, writes
    # nothing, and leaves the lock file (it is not its own) alone.
    before = mgtest.snapshot(out)
    mgtest.write(os.path.join(out, "race_mesh.c.lock"), "")
    p = run(meshgen, "generate", "--mesh", "dp:8", "--inventory", INV, "--name", "race", "-o", out)
    c.check(p.returncode == 2 and b"race_mesh.c.lock' stayed" in p.stderr and
             b"another meshgen run" in p.stderr, f"a stale lock: exit {p.returncode} {p.stderr}")
    c.check(sorted(os.listdir(out)) == sorted(list(before) + ["race_mesh.c.lock"]) and
             mgtest.snapshot(out, list(before)) == before,
             f"a stale lock: the directory changed: {sorted(os.listdir(out))}")


def interrupted(meshgen, d, c, moments=60):
    """SIGINT and SIGTERM while generate loads, writes its lock files and
    renames them: the handler removes what the run holds, then the signal
    ends it as it would have."""
    inv = mgtest.write(os.path.join(d, "big.yaml"), "meshgen-inventory: 1\nhosts:\n"
                       "  - names: n[1-8000]\n    synthetic: \"pack:2 core:32 pu:1\"\n")
    out = os.path.join(d, "out")
    os.mkdir(out)
    meshes = ("dp:-1,tp:8", "dp:-1,tp:16")  # alternate, so that each run writes
    pair = ["big_mesh.h", "big_mesh.c"]

    def start(i):
        return subprocess.Popen([meshgen, "generate", "--mesh", meshes[i % 2], "--inventory", inv,
                                 "--name", "big", "--groups", "always", "-o", out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    p = start(1)
    _, err = p.communicate(timeout=TIMEOUT)
    whole = time.monotonic() - t0
    if p.returncode != 0:
        c.check(False, f"generate of the large mesh: exit {p.returncode} {err[-300:]!r}")
        return
    ended = 0
    for i in range(moments):
        sig = signal.SIGINT if i % 2 else signal.SIGTERM
        after = whole * (0.5 + 0.6 * i / moments)
        p = start(i)
        time.sleep(after)
        p.send_signal(sig)
        _, err = p.communicate(timeout=TIMEOUT)
        what = f"generate, {signal.Signals(sig).name} after {after:.3f} s"
        c.check(p.returncode in (0, -sig), f"{what}: exit {p.returncode} {err[-300:]!r}")
        c.check(sorted(os.listdir(out)) == sorted(pair),
                 f"{what}: the directory holds {sorted(os.listdir(out))}")
        c.check(digest(os.path.join(out, pair[0])) == digest(os.path.join(out, pair[1])),
                 f"{what}: a .h and a .c of different runs")
        ended += p.returncode == -sig
    c.check(ended > 0, "no generate was interrupted: every run ended before its signal")


def over_inputs(meshgen, d, c):
    """No output lands on an input of the same run, or on another output."""
    topo = os.path.join(d, "topo.xml")
    p = run(meshgen, "inventory", "--inventory", INV, "--export", topo)
    c.check(p.returncode == 0, f"export for the inputs: exit {p.returncode} {p.stderr}")
    files = {
        "s.yaml": "meshgen: 1\nname: m\ninventory: inv.yaml\nmesh: {axes: [dp], shape: [-1]}\n",
        "inv.yaml": "meshgen-inventory: 1\nhosts:\n  - names: h1\n    topology: topo.xml\n",
        # A spec named like the .h it generates.
        "m_mesh.h": "meshgen: 1\nname: m\ninventory: inv.yaml\nmesh: {axes: [dp], shape: [-1]}\n",
    }
    files = {name: text.encode() for name, text in files.items()}
    files["topo.xml"] = mgtest.read(topo)
    os.symlink("s.yaml", os.path.join(d, "spec-link"))
    os.mkdir(os.path.join(d, "sub"))
    gen = ["generate", "s.yaml", "-o", "out"]
    os.mkdir(os.path.join(d, "out"))
    for args, out, inp in (
            (gen + ["--depfile", "s.yaml"], "'s.yaml'", "the spec 's.yaml'"),
            (gen + ["--depfile", "spec-link"], "'spec-link'", "the spec 's.yaml'"),
            (gen + ["--depfile", "sub/../inv.yaml"], "'sub/../inv.yaml'", "the inventory"),
            (gen + ["--depfile", "topo.xml"], "'topo.xml'", "the topology 'topo.xml'"),
            (gen + ["--depfile", "out/fresh_mesh.c", "--name", "fresh"], "'out/fresh_mesh.c'",
             "the .c 'out/fresh_mesh.c'"),
            (["show", "s.yaml", "--svg", "s.yaml"], "the SVG 's.yaml'", "the spec 's.yaml'"),
            (["generate", "m_mesh.h", "-o", "."], "the .h './m_mesh.h'", "the spec 'm_mesh.h'"),
            (["inventory", "--inventory", "topo.xml", "--export", "./topo.xml"],
             "the snapshot './topo.xml'", "the inventory 'topo.xml'")):
        for name, text in files.items():  # each case from whole inputs
            mgtest.write(os.path.join(d, name), text)
        before = mgtest.snapshot(d)
        p = run(meshgen, *args, cwd=d)
        after = mgtest.snapshot(d)
        c.check(p.returncode == 2 and out.encode() in p.stderr and inp.encode() in p.stderr,
                 f"{' '.join(args)}: exit {p.returncode}, expected 2 naming {out} and {inp}: "
                 f"{p.stderr}")
        c.check(after == before and not os.listdir(os.path.join(d, "out")) and not p.stdout,
                 f"{' '.join(args)}: something was written")


def inputs(meshgen, d, c):
    """FIFOs refused at once; unreadable inputs are I/O errors everywhere."""
    fifo = os.path.join(d, "in.fifo")
    os.mkfifo(fifo)
    os.mkfifo(os.path.join(d, "in.xml"))
    os.mkfifo(os.path.join(d, "in.yaml"))
    os.mkdir(os.path.join(d, "adir.xml"))
    os.symlink("loop-b.xml", os.path.join(d, "loop-a.xml"))
    os.symlink("loop-a.xml", os.path.join(d, "loop-b.xml"))
    spec = "meshgen: 1\nname: s\n{inv}mesh: {{axes: [dp], shape: [-1]}}\n"

    def write(name, text):
        mgtest.write(os.path.join(d, name), text)
        return name

    write("plain.yaml", spec.format(inv=""))
    for bad, why in (("in.xml", "found a FIFO"), ("in.yaml", "found a FIFO"),
                     ("missing.xml", "No such file"), ("adir.xml", "found a directory"),
                     ("loop-a.xml", "Too many levels")):
        for where, args in (
                ("--inventory", ["validate", "--inventory", bad, "plain.yaml"]),
                ("inventory:", ["validate", write(f"s-{bad}.yaml", spec.format(
                    inv=f"inventory: {bad}\n"))]),
                ("topology:", ["validate", "--inventory", write(f"i-{bad}.yaml",
                    f"meshgen-inventory: 1\nhosts:\n  - names: h1\n    topology: {bad}\n"),
                    "plain.yaml"]),
                ("inventory --inventory", ["inventory", "--inventory", bad])):
            if where == "topology:" and bad == "in.yaml":
                continue
            p = run(meshgen, *args, cwd=d)
            c.check(p.returncode == 2 and why.encode() in p.stderr,
                     f"{bad} as {where}: exit {p.returncode}, expected 2 and '{why}': {p.stderr}")
    # A host's missing snapshot (topology: snap/{host}.xml) is one as well.
    p = run(meshgen, "validate", "--inventory", write("i-host.yaml", "meshgen-inventory: 1\n"
            "hosts:\n  - names: h[1-2]\n    topology: none/{host}.xml\n"), "plain.yaml", cwd=d)
    c.check(p.returncode == 2 and b"host 'h1' has no snapshot" in p.stderr,
             f"a missing {{host}} snapshot: exit {p.returncode}, expected 2: {p.stderr}")
    for bad, why in (("in.fifo", "found a FIFO"), ("missing.yaml", "No such file"),
                     ("adir.xml", "found a directory")):
        p = run(meshgen, "validate", "--inventory", INV, bad, cwd=d)
        c.check(p.returncode == 2 and why.encode() in p.stderr,
                 f"{bad} as the spec: exit {p.returncode}: {p.stderr}")

    # -o naming a regular file says what is wrong.
    write("afile", "x")
    p = run(meshgen, "generate", "--mesh", "dp:8", "--inventory", INV, "-o", "afile", cwd=d)
    c.check(p.returncode == 2 and b"'afile' is a regular file, not a directory" in p.stderr,
             f"-o FILE: exit {p.returncode}: {p.stderr}")
    # A directory where the .h goes: the message names it, not -o's.
    os.makedirs(os.path.join(d, "odir", "mesh_mesh.h"))
    p = run(meshgen, "generate", "--mesh", "dp:8", "--inventory", INV, "-o", "odir", cwd=d)
    c.check(p.returncode == 2 and b"'odir/mesh_mesh.h': it is a directory" in p.stderr and
             os.listdir(os.path.join(d, "odir")) == ["mesh_mesh.h"],
             f"the .h a directory: exit {p.returncode}: {p.stderr}")


def main():
    meshgen = os.path.abspath(sys.argv[1])
    c = mgtest.Checks("io_safety")
    with mgtest.tempdir("io-safety") as d:
        for part in (outputs, own_streams, stdout_failures, concurrent, interrupted, over_inputs,
                     inputs):
            sub = os.path.join(d, part.__name__)
            os.mkdir(sub)
            part(meshgen, sub, c)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
