#!/usr/bin/env python3
"""`meshgen env` under a real mpirun started with the wrong -np, then with the fix it names.

Usage: env_launch_errors.py MPIEXEC MESHGEN

One machine, a synthetic inventory of one host with four cores (its host is
"localhost", which any machine is). For each mesh, mpirun starts too many or
too few ranks, each running `meshgen env mesh.yaml`:
- one process per host ('processes: host', 1 process) under -np 2;
- one process per core ('processes: device', 4 processes) under -np 3.
Every rank must fail (exit 1, nothing on stdout) with the env-process error
that names OMPI_COMM_WORLD_SIZE and its value, the mesh's count, and the
mpirun options that start the right number (docs/reference.md, "When no
process is found"). Then mpirun runs again with exactly the options the
message gave, and every rank must be placed: processes 0..n-1, each once.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

FIX = re.compile(r"start (?:one process|\d+ processes) per host, \d+ in all: mpirun (.*?) \(or -N \d+\)")
PLACED = re.compile(r"^placed (\d+) of (\d+)$", re.M)
SCRIPT = 'v=$("$MESHGEN" env "$SPEC") && eval "$v" && echo "placed $MESHGEN_PROCESS of $MESHGEN_PROCESS_COUNT"'


def mpirun(mpiexec, options, meshgen, spec):
    cmd = [mpiexec, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
           "--mca", "oob_tcp_if_include", "lo", "-x", "MESHGEN", "-x", "SPEC"] + options + \
          ["sh", "-c", SCRIPT]
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    env = dict(os.environ)
    for name in ("MESHGEN_HOSTNAME", "SLURMD_NODENAME", "MESHGEN_PROCESS", "LOCAL_RANK",
                 "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_NTASKS"):
        env.pop(name, None)
    env.update(MESHGEN=meshgen, SPEC=spec)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    print(p.stdout + p.stderr, flush=True)
    return p


def case(mpiexec, meshgen, tmp, name, processes, n, wrong):
    """A mesh of n processes started with -np wrong, then with the fix."""
    fails = []
    spec = os.path.join(tmp, name + ".yaml")
    with open(spec, "w") as f:
        f.write("meshgen: 1\nname: %s\ninventory: \"synthetic:pack:1 core:4 pu:1\"\nmesh:\n"
                "  axes: [dp]\n  shape: [4]\n  device_kind: core\n  processes: %s\n"
                % (name, processes))
    p = mpirun(mpiexec, ["-np", str(wrong)], meshgen, spec)
    want = ("OMPI_COMM_WORLD_SIZE=%d, but the mesh has %d process%s, one per %s "
            "('processes: %s')" % (wrong, n, "" if n == 1 else "es", processes, processes))
    errors = [ln for ln in p.stderr.splitlines() if "[env-process]" in ln]
    if p.returncode == 0 or "placed" in p.stdout:
        fails.append("%s -np %d: ran placed (exit %d)" % (name, wrong, p.returncode))
    if not errors or any(want not in ln for ln in errors):
        fails.append("%s -np %d: no rank said %r" % (name, wrong, want))
    fix = FIX.search(p.stderr)
    if not fix:
        fails.append("%s -np %d: the message names no mpirun options" % (name, wrong))
        return fails
    p = mpirun(mpiexec, shlex.split(fix.group(1)), meshgen, spec)
    placed = sorted((int(a), int(b)) for a, b in PLACED.findall(p.stdout))
    if p.returncode != 0 or placed != [(k, n) for k in range(n)]:
        fails.append("%s with the fix (mpirun %s): exit %d, placed %s, not processes 0..%d of %d"
                     % (name, fix.group(1), p.returncode, placed, n - 1, n))
    return fails


def main():
    mpiexec, meshgen = sys.argv[1], os.path.abspath(sys.argv[2])
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        fails += case(mpiexec, meshgen, tmp, "per_host", "host", 1, 2)
        fails += case(mpiexec, meshgen, tmp, "per_device", "device", 4, 3)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("env_launch_errors: -np 2 for one process per host and -np 3 for four per device "
              "were named with their fix, and the fix placed every rank")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
