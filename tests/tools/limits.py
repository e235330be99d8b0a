#!/usr/bin/env python3
"""Resource limits end a run cleanly (docs/reference.md, "Files and
streams"): exit 2 with a message, never a signal or a core dump, no lock
file left behind, and every output as it was.

- Out of memory (`ulimit -v`, RLIMIT_AS, at every limit from the one where
  the dynamic loader starts meshgen up to the one where the run succeeds):
  validate, resolve, generate, show --svg and inventory --export of hwloc
  XML files, a YAML inventory and synthetic topologies exit 0, or 2 with
  "out of memory"; no lock file is left and generate's previous .h and .c
  are intact. (hwloc does not check all of its own allocations: without
  meshgen's check before each load, some limits end in SIGSEGV.) The same
  for the TPU assignment of a whole v5p slice (8192 devices), at every
  limit in the 2 MiB below the one where it succeeds, in 16 KiB steps: its
  work arrays are the last large allocations there.
- A file-size limit (`ulimit -f`) smaller than an output: SIGXFSZ is
  ignored, the write fails with EFBIG, which is an I/O error naming the
  file ("File too large"), for the .h/.c pair, show --svg, inventory
  --export and a result on standard output.
- A full file system (a private 64 KiB tmpfs, mounted in a temporary
  directory; skipped with a message where mount is not permitted): "No
  space left on device", exit 2, the previous outputs intact.

Nothing is written outside a private temporary directory; no device node
is used.

    limits.py MESHGEN DATA_DIR
"""
import os
import resource
import signal
import subprocess
import sys

import mgtest
from mgtest import locks, snapshot

SMALL = mgtest.INV
BIG = "synthetic:pack:4 core:64 pu:1"  # 256 devices: a .c of about 35 KB
TIMEOUT = 60


def run(meshgen, args, cwd, as_kib=None, fsize=None, stdout=subprocess.PIPE):
    """meshgen under the limits given. Its standard output is a pipe of this
    test's unless stdout says otherwise: no device node of the machine is
    written, and a pipe is bound by no file-size limit."""
    def limits():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if as_kib is not None:
            resource.setrlimit(resource.RLIMIT_AS, (as_kib * 1024, as_kib * 1024))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return mgtest.meshgen(meshgen, *args, cwd=cwd, stdout=stdout, preexec=limits, timeout=TIMEOUT)


def memory(meshgen, data, d, c):
    """Every address-space limit from the loader's up to success."""
    inv = mgtest.write(os.path.join(d, "inv.yaml"),
                       "meshgen-inventory: 1\nhosts:\n  - names: node[1-2]\n"
                       f"    topology: {os.path.join(data, 'hwloc', 'nvidiaDGX2.xml')}\n")
    spec = mgtest.write(os.path.join(d, "spec.yaml"),
                        f"meshgen: 1\nname: mem\ninventory: {inv}\n"
                        "mesh: {axes: [dp, tp], shape: [2, -1]}\n")
    out = os.path.join(d, "out")
    os.mkdir(out)
    p = run(meshgen, ["generate", spec, "-o", out], d)
    if p.returncode != 0:
        c.check(False, f"generate without a limit: exit {p.returncode} {p.stderr!r}")
        return
    pair = ["mem_mesh.h", "mem_mesh.c"]
    before = snapshot(out, pair)
    # Under the limits the pair changes (groups), whole or not at all.
    regen = ["generate", spec, "-o", out, "--groups", "always"]
    other = os.path.join(d, "other")
    os.mkdir(other)
    run(meshgen, regen[:2] + ["-o", other, "--groups", "always"], d)
    after = snapshot(other, pair)
    commands = [
        ["validate", spec],
        regen,
        ["resolve", "--mesh", "dp:-1", "--inventory", "synthetic:pack:4 core:512 pu:1"],
        ["show", "--mesh", "dp:-1", "--inventory", BIG, "--svg", os.path.join(d, "m.svg")],
        ["inventory", "--inventory", os.path.join(data, "hwloc", "192em64t-24n8c2t.xml"),
         "--export", os.path.join(d, "m.xml")],
    ]
    started = 0
    for args in commands:
        kib, ok = 2048, False
        while kib < 1 << 20 and not ok:
            p = run(meshgen, args, d, as_kib=kib)
            if p.returncode == 127 and b"loading shared libraries" in p.stderr:
                kib += 256  # the dynamic loader, before meshgen runs
                continue
            started += 1
            ok = p.returncode == 0
            c.check(ok or (p.returncode == 2 and b"out of memory" in p.stderr),
                     f"{args[0]} under ulimit -v {kib}: exit {p.returncode} {p.stderr[-200:]!r}")
            c.check(not locks(out) and not locks(d),
                     f"{args[0]} under ulimit -v {kib}: lock files left {locks(out) + locks(d)}")
            c.check(snapshot(out, pair) in (before, after),
                     f"{args[0]} under ulimit -v {kib}: a .h and a .c of different runs")
            kib += 256
        c.check(ok, f"{args[0]} never succeeded under ulimit -v up to {kib} KiB")
    c.check(started > 0, "meshgen never started under any ulimit -v")


def tpu_memory(meshgen, data, d, c):
    """Out of memory in the TPU assignment: exit 2, never an error of the
    spec (exit 1, "order: torus: out of memory ...")."""
    mgtest.write(os.path.join(d, "inv.yaml"), "meshgen-inventory: 1\nhosts:\n"
                 "  - names: t-[0-2047]\n    tpu: v5p\n    topology: 16x16x32\n")
    spec = mgtest.write(os.path.join(d, "spec.yaml"),
                        "meshgen: 1\nname: t\ninventory: inv.yaml\n"
                        "mesh: {axes: [dp, tp], shape: [-1, 32]}\n")
    lo, hi = 2048, 1 << 20  # lo fails (or cannot start), hi succeeds
    if run(meshgen, ["validate", spec], d, as_kib=hi).returncode != 0:
        c.check(False, "the v5p slice does not validate without a tight limit")
        return
    while hi - lo > 16:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if run(meshgen, ["validate", spec], d, as_kib=mid).returncode == 0 \
            else (mid, hi)
    for kib in range(max(2048, hi - 2048), hi, 16):
        p = run(meshgen, ["validate", spec], d, as_kib=kib)
        if p.returncode == 127 and b"loading shared libraries" in p.stderr:
            continue
        c.check(p.returncode in (0, 2) and (p.returncode == 0 or b"out of memory" in p.stderr),
                f"the TPU assignment under ulimit -v {kib}: exit {p.returncode} "
                f"{p.stderr[-200:]!r}")


def file_size(meshgen, data, d, c):
    """ulimit -f below each output's size."""
    out = os.path.join(d, "out")
    os.mkdir(out)
    gen = ["generate", "--mesh", "dp:-1", "--name", "fs", "-o", out, "--inventory"]
    p = run(meshgen, gen + [SMALL], d)
    c.check(p.returncode == 0, f"generate without a limit: exit {p.returncode} {p.stderr!r}")
    pair = ["fs_mesh.h", "fs_mesh.c"]
    before = snapshot(out, pair)
    for what, args, name in (
            ("generate", gen + [BIG], "fs_mesh.c"),
            ("show --svg", ["show", "--mesh", "dp:-1", "--inventory", BIG, "--svg",
                            os.path.join(d, "fs.svg")], "fs.svg"),
            ("inventory --export", ["inventory", "--inventory", BIG, "--export",
                                    os.path.join(d, "fs.xml")], "fs.xml")):
        p = run(meshgen, args, d, fsize=16384)
        c.check(p.returncode == 2 and b"File too large" in p.stderr and name.encode() in p.stderr,
                 f"{what} under ulimit -f: exit {p.returncode} {p.stderr!r}")
        c.check(not locks(out) and not locks(d), f"{what} under ulimit -f: lock files left")
    c.check(snapshot(out, pair) == before, "generate under ulimit -f changed the pair")
    c.check(not os.path.exists(os.path.join(d, "fs.svg")) and
             not os.path.exists(os.path.join(d, "fs.xml")), "a partial SVG or snapshot was left")
    # A result on standard output, a regular file.
    with open(os.path.join(d, "resolve.json"), "wb") as sink:
        p = run(meshgen, ["resolve", "--mesh", "dp:-1", "--inventory", BIG], d, fsize=4096,
                stdout=sink)
    c.check(p.returncode == 2 and b"cannot write the output: File too large" in p.stderr,
             f"resolve under ulimit -f: exit {p.returncode} {p.stderr!r}")


def full_disk(meshgen, data, d, c):
    """A private 64 KiB tmpfs, filled."""
    mnt = os.path.join(d, "tmpfs")
    os.mkdir(mnt)
    m = mgtest.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt])
    if m.returncode != 0:
        print(f"full disk: skipped, cannot mount a tmpfs here: {m.stderr.decode().strip()}")
        return
    try:
        gen = ["generate", "--mesh", "dp:-1", "--name", "full", "-o", mnt]
        p = run(meshgen, gen + ["--inventory", SMALL], d)
        c.check(p.returncode == 0, f"generate into the tmpfs: exit {p.returncode} {p.stderr!r}")
        pair = ["full_mesh.h", "full_mesh.c"]
        before = snapshot(mnt, pair)
        # What is left is less than the big .c needs.
        with open(os.path.join(mnt, "filler"), "wb") as f:
            try:
                f.write(b"x" * (40 * 1024))
            except OSError:
                pass
        for what, args in (
                ("generate", gen + ["--inventory", BIG]),
                ("show --svg", ["show", "--mesh", "dp:-1", "--inventory", BIG, "--svg",
                                os.path.join(mnt, "full.svg")]),
                ("inventory --export", ["inventory", "--inventory", BIG, "--export",
                                        os.path.join(mnt, "full.xml")])):
            p = run(meshgen, args, d)
            c.check(p.returncode == 2 and b"No space left on device" in p.stderr,
                     f"{what} on a full disk: exit {p.returncode} {p.stderr!r}")
            c.check(not locks(mnt), f"{what} on a full disk: lock files left {locks(mnt)}")
        c.check(snapshot(mnt, pair) == before, "generate on a full disk changed the pair")
        c.check(sorted(os.listdir(mnt)) == sorted(pair + ["filler"]),
                 f"a full disk was left with {sorted(os.listdir(mnt))}")
    finally:
        mgtest.run(["umount", mnt])


def main():
    meshgen, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    c = mgtest.Checks("limits")
    # ASan reserves terabytes of address space: ulimit -v cannot apply.
    probe = run(meshgen, ["--version"], "/", as_kib=1 << 20)
    with mgtest.tempdir("limits") as d:
        for part in (memory, tpu_memory, file_size, full_disk):
            if part in (memory, tpu_memory) and probe.returncode != 0:
                print("out of memory: skipped, meshgen does not start under ulimit -v "
                      "(a sanitizer build)")
                continue
            sub = os.path.join(d, part.__name__)
            os.mkdir(sub)
            part(meshgen, data, sub, c)
    return c.done()


if __name__ == "__main__":
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    sys.exit(main())
