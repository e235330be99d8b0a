#!/usr/bin/env python3
"""`meshgen env` under a real mpirun over two hosts, gpu2 and gpu1, played by one machine.

Usage: env_two_hosts.py MPIEXEC MESHGEN AGENT DATA_DIR

The README's line, with mpirun for srun: every rank runs
    sh -c 'eval "$(meshgen env mesh.yaml)"; printf ...'
The mesh is over tests/data/inventory/per-host.yaml: hosts gpu2 and gpu1
(rank order: gpu2 first), each with its own snapshot and so its own GPU
UUIDs, one process per GPU. mpirun starts its daemon for each host through
AGENT (tests/e2e/fake_rsh.sh), which runs it here with MESHGEN_HOSTNAME set
to the host's name (mpi_two_hosts.py says more). The job runs with
--map-by node (ranks alternate hosts) and --map-by slot (ranks 0-1 on gpu2,
2-3 on gpu1). Each rank must get the process of its host and its launcher
local rank, and that GPU's UUID, whatever its global rank.
"""
import os
import re
import subprocess
import sys
import tempfile

HOSTS = ["gpu2", "gpu1"]
PER_HOST = 2
RANKS = len(HOSTS) * PER_HOST
UUIDS = {
    "gpu2": ["GPU-11111111-2222-3333-4444-000000000003", "GPU-11111111-2222-3333-4444-000000000004"],
    "gpu1": ["GPU-11111111-2222-3333-4444-000000000001", "GPU-11111111-2222-3333-4444-000000000002"],
}
LINE = re.compile(r"^rank (\d+) on (\S+) local (\d+): process (\d+) of (\d+), gpus (\S+)$")
SCRIPT = (
    'eval "$("$MESHGEN" env "$SPEC")" && printf "rank %s on %s local %s: process %s of %s, '
    'gpus %s\\n" "$OMPI_COMM_WORLD_RANK" "$MESHGEN_HOSTNAME" "$OMPI_COMM_WORLD_LOCAL_RANK" '
    '"$MESHGEN_PROCESS" "$MESHGEN_PROCESS_COUNT" "$CUDA_VISIBLE_DEVICES"'
)


def run(mpiexec, meshgen, agent, spec, mapping, tmp):
    hostfile = os.path.join(tmp, "hosts")
    with open(hostfile, "w") as f:
        f.write("".join(f"{h} slots={PER_HOST}\n" for h in HOSTS))
    cmd = [mpiexec, "--allow-run-as-root", "--hostfile", hostfile, "-np", str(RANKS),
           "--map-by", mapping, "--bind-to", "none", "--mca", "plm_rsh_agent", agent,
           "--mca", "oob_tcp_if_include", "lo", "-x", "MESHGEN", "-x", "SPEC",
           "sh", "-c", SCRIPT]
    print("$ " + " ".join(cmd), flush=True)
    env = dict(os.environ)
    for name in ("MESHGEN_HOSTNAME", "SLURMD_NODENAME", "MESHGEN_PROCESS", "LOCAL_RANK",
                 "SLURM_LOCALID", "OMPI_MCA_orte_tmpdir_base"):
        env.pop(name, None)
    env.update(MESHGEN=meshgen, SPEC=spec,
               MESHGEN_FAKE_RSH_DIR=os.path.join(tmp, f"daemons-{mapping}"))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    print(p.stdout + p.stderr, flush=True)
    fails = []
    if p.returncode != 0:
        fails.append(f"--map-by {mapping}: mpirun exited with {p.returncode}")
    seen = {}
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        rank, host, local, process, count, gpus = m.groups()
        rank, local, process = int(rank), int(local), int(process)
        want_host = HOSTS[rank % 2] if mapping == "node" else HOSTS[rank // PER_HOST]
        want_process = HOSTS.index(host) * PER_HOST + local
        seen[rank] = process
        if host != want_host:
            fails.append(f"--map-by {mapping}: rank {rank} ran on {host}, not {want_host}")
        if process != want_process or count != str(RANKS):
            fails.append(f"--map-by {mapping}: rank {rank} on {host} local {local} is process "
                         f"{process} of {count}, not {want_process} of {RANKS}")
        if gpus != UUIDS[host][local]:
            fails.append(f"--map-by {mapping}: rank {rank} on {host} got {gpus}, not its own "
                         f"GPU {UUIDS[host][local]}")
    if sorted(seen) != list(range(RANKS)) or sorted(seen.values()) != list(range(RANKS)):
        fails.append(f"--map-by {mapping}: ranks {sorted(seen)} took processes "
                     f"{sorted(seen.values())}")
    return fails


def main():
    mpiexec, meshgen, agent, data = sys.argv[1:5]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "mesh.yaml")
        with open(spec, "w") as f:
            f.write("meshgen: 1\nname: env2\ninventory: %s/inventory/per-host.yaml\nmesh:\n"
                    "  axes: [dp, tp]\n  shape: [2, 2]\n  processes: device\n"
                    % os.path.abspath(data))
        for mapping in ("node", "slot"):
            fails += run(mpiexec, os.path.abspath(meshgen), agent, spec, mapping, tmp)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print(f"env_two_hosts: {RANKS} ranks on {len(HOSTS)} hosts, --map-by node and slot: "
              "every rank's meshgen env named its own host's GPU")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
