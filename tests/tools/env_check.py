#!/usr/bin/env python3
"""cli.env: `meshgen env` for a CUDA, a ROCm, a mixed-vendor, a TPU and a CPU mesh, vendors
by PCI vendor id, and one host of 20,000 GPUs.

Usage: env_check.py MESHGEN DATA_DIR

Each case runs `meshgen env` with the launcher's variables of a real launch
(srun, torchrun, mpirun) or the command line's --host/--local-rank/--process,
in a clean environment, and checks the variables it prints. The sh output is
also run through `sh -c 'eval "$(cat)"; ...'`, so what is checked is what a
wrapper script gets.
"""
import json
import os
import sys

import mgtest

T = mgtest.Checks("env_check")


def check(name, cond, detail=""):
    T.check(cond, "%s %s" % (name, detail))


def clean_env(env=None):
    """A clean environment: PATH, and env."""
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    base.update(env or {})
    return base


def env_run(meshgen, cwd, args, env=None, fmt="sh"):
    return mgtest.meshgen(meshgen, "env", *args, *(["--format", "json"] if fmt == "json" else []),
                          cwd=cwd, env=clean_env(env), text=True)


def sh_values(text, names):
    """The variables as sh sees them after eval."""
    script = 'eval "$(cat)"; for v in %s; do printf "%%s=%%s\\n" "$v" "$(printenv "$v")"; done' % (
        " ".join(names)
    )
    r = mgtest.run(["sh", "-c", script], input=text, text=True)
    return dict(line.split("=", 1) for line in r.stdout.splitlines())


NAMES = [
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ZE_AFFINITY_MASK",
    "ZE_ENABLE_PCI_ID_DEVICE_ORDER",
    "ZE_FLAT_DEVICE_HIERARCHY",
    "TPU_VISIBLE_CHIPS",
    "TPU_CHIPS_PER_PROCESS_BOUNDS",
    "TPU_PROCESS_BOUNDS",
    "TPU_PROCESS_ADDRESSES",
    "TPU_PROCESS_PORT",
    "CLOUD_TPU_TASK_ID",
    "OMP_PLACES",
    "OMP_PROC_BIND",
    "MESHGEN_PROCESS",
    "MESHGEN_PROCESS_COUNT",
]


def expect(meshgen, cwd, name, args, want, env=None, notes=()):
    """Runs sh and JSON forms; want maps variable -> value ('' = unset);
    notes: the start of each note, in order (sh comments, JSON "notes")."""
    r = env_run(meshgen, cwd, args, env)
    check(name + ".exit", r.returncode == 0, r.stderr)
    comments = [ln[2:] for ln in r.stdout.splitlines() if ln.startswith("#")]
    check(name + ".notes", len(comments) == len(notes)
          and all(c.startswith(n) for c, n in zip(comments, notes)), r.stdout)
    got = sh_values(r.stdout, NAMES)
    for k, v in want.items():
        check("%s.%s" % (name, k), got.get(k) == v, "got %r, want %r" % (got.get(k), v))
    for k in NAMES:
        if k not in want:
            check("%s.%s-unset" % (name, k), got.get(k) == "", "got %r" % got.get(k))
    j = env_run(meshgen, cwd, args, env, fmt="json")
    check(name + ".json-exit", j.returncode == 0, j.stderr)
    if j.returncode == 0:
        doc = json.loads(j.stdout)
        check(name + ".json-env", doc["env"] == {k: v for k, v in want.items()}, j.stdout)
        check(name + ".json-notes", doc.get("notes") == comments, j.stdout)
        check(
            name + ".json-process",
            str(doc["process"]) == want["MESHGEN_PROCESS"]
            and str(doc["process_count"]) == want["MESHGEN_PROCESS_COUNT"],
            j.stdout,
        )
    return r


def expect_error(meshgen, cwd, name, args, part, env=None, check_name="env-process"):
    r = env_run(meshgen, cwd, args, env)
    check(name + ".exit", r.returncode == 1, "exit %d" % r.returncode)
    check(name + ".stdout", r.stdout == "", r.stdout)
    check(name + ".message", part in r.stderr and "[%s]" % check_name in r.stderr, r.stderr)


def mixed_vendors(meshgen, tmp, data):
    """One host, NVIDIA and AMD GPUs alternating in PCI bus order
    (tests/data/topo/nvidia-amd.xml): CUDA's list holds the NVIDIA GPUs, by
    UUID, and ROCR's the AMD ones by their index among the AMD GPUs alone
    (0 and 1, not the host's 1 and 3); HIP_VISIBLE_DEVICES keeps both AMD
    GPUs, as HIP would otherwise filter them by CUDA_VISIBLE_DEVICES. A
    process of one vendor gets no HIP_VISIBLE_DEVICES. Then Intel, Habana and AMD
    (accel-0380.xml): the Habana card is in no list, said in a note and an
    env-vendor warning; the Intel card, a two-tile Max 1550 that the mesh
    counts as one device, is mask index 0 under ZE_FLAT_DEVICE_HIERARCHY=
    COMPOSITE (Level Zero's default FLAT would count its tiles)."""
    uuids = "GPU-18000000-0000-0000-0000-000000000000,GPU-86000000-0000-0000-0000-000000000000"
    mixed = ["--inventory", "%s/topo/nvidia-amd.xml" % data, "--host", "nvidia-amd"]
    expect(meshgen, tmp, "mixed.host", mixed + ["--mesh", "dp:4"],
           {"CUDA_VISIBLE_DEVICES": uuids, "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
            "ROCR_VISIBLE_DEVICES": "0,1", "HIP_VISIBLE_DEVICES": "0,1",
            "OMP_PLACES": "{0:2},{2:2}", "OMP_PROC_BIND": "spread",
            "MESHGEN_PROCESS": "0", "MESHGEN_PROCESS_COUNT": "1"})
    mgtest.write(os.path.join(tmp, "mixed.yaml"),
                 "meshgen: 1\nname: mixed\ninventory: %s/topo/nvidia-amd.xml\nmesh:\n"
                 "  axes: [dp]\n  shape: [4]\n  processes: device\n" % data)
    expect(meshgen, tmp, "mixed.amd", ["mixed.yaml", "--host", "nvidia-amd", "--local-rank", "3"],
           {"ROCR_VISIBLE_DEVICES": "1", "OMP_PLACES": "{2:2}", "OMP_PROC_BIND": "spread",
            "MESHGEN_PROCESS": "3", "MESHGEN_PROCESS_COUNT": "4"})
    expect(meshgen, tmp, "mixed.nvidia", ["mixed.yaml", "--process", "2"],
           {"CUDA_VISIBLE_DEVICES": uuids.split(",")[1], "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
            "OMP_PLACES": "{2:2}", "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "2",
            "MESHGEN_PROCESS_COUNT": "4"})
    accel = ["--inventory", "%s/topo/accel-0380.xml" % data, "--mesh", "dp:4", "--process", "0"]
    r = expect(meshgen, tmp, "mixed.unknown", accel,
               {"ROCR_VISIBLE_DEVICES": "0,1", "ZE_AFFINITY_MASK": "0",
                "ZE_ENABLE_PCI_ID_DEVICE_ORDER": "1", "ZE_FLAT_DEVICE_HIERARCHY": "COMPOSITE",
                "OMP_PLACES": "{0:2},{2:2}",
                "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "0", "MESHGEN_PROCESS_COUNT": "1"},
               notes=["device 1 (0000:2a:00.0, PCI vendor 0x1da3 'Habana Labs Ltd.') is a GPU of "
                      "a vendor with no visible-devices variable"])
    check("mixed.unknown.warning", "warning: process 0: no visible-devices variable selects GPU 1 "
          "(0000:2a:00.0, PCI vendor 0x1da3 'Habana Labs Ltd.')" in r.stderr
          and "[env-vendor]" in r.stderr, r.stderr)


def vendor_ids(meshgen, tmp, data):
    """Vendors by PCI vendor id, never by name (docs/reference.md §2,
    "Vendors"). A real H200 in a container (tests/data/hwloc/h200-container.xml:
    `0302 [10de:2335]` and no names, no OS device) gets CUDA_VISIBLE_DEVICES by
    index, with CUDA_DEVICE_ORDER=PCI_BUS_ID, and no env-vendor warning (0.3.0
    printed none and warned). tests/data/topo/vendor-ids.xml: an AMD and an
    Intel GPU without names get ROCm's and Level Zero's variables; an NVIDIA
    GPU named 'Amdahl Corporation' is CUDA's; a Tenstorrent card named
    'NVIDIA Corporation' and a Xilinx one named 'Applied Intelligent Systems,
    Inc.' are in no list, with the warning."""
    r = expect(meshgen, tmp, "vendor.h200",
               ["--inventory", "%s/hwloc/h200-container.xml" % data, "--mesh", "dp:1",
                "--host", "vm"],
               {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
                "OMP_PLACES": "{0:16}", "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "0",
                "MESHGEN_PROCESS_COUNT": "1"})
    check("vendor.h200.no-warning", r.stderr == "", r.stderr)
    j = mgtest.meshgen(meshgen, "resolve", "--inventory", "%s/hwloc/h200-container.xml" % data,
                       "--mesh", "dp:1", text=True)
    dev = json.loads(j.stdout)["devices"][0] if j.returncode == 0 else {}
    check("vendor.h200.resolve", dev.get("vendor_id") == 0x10de and dev.get("vendor") == "NVIDIA"
          and dev.get("pci") == "0000:00:06.0", j.stdout + j.stderr)
    ids = ["--inventory", "%s/topo/vendor-ids.xml" % data, "--mesh", "dp:5", "--process", "0"]
    r = expect(meshgen, tmp, "vendor.ids", ids,
               {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
                "ROCR_VISIBLE_DEVICES": "0", "HIP_VISIBLE_DEVICES": "0",
                "ZE_AFFINITY_MASK": "0", "ZE_ENABLE_PCI_ID_DEVICE_ORDER": "1",
                "ZE_FLAT_DEVICE_HIERARCHY": "COMPOSITE", "OMP_PLACES": "{0:2},{2:2}",
                "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "0", "MESHGEN_PROCESS_COUNT": "1"},
               notes=["devices 3 (0000:82:00.0, PCI vendor 0x1e52 'NVIDIA Corporation'), 4 "
                      "(0000:83:00.0, PCI vendor 0x10ee 'Applied Intelligent Systems, Inc.') are "
                      "GPUs of vendors with no visible-devices variable"])
    check("vendor.ids.warning", "[env-vendor]" in r.stderr and "0x1e52" in r.stderr, r.stderr)


def one_host_many_gpus(meshgen, tmp):
    """20,000 GPUs on one host, NVIDIA and AMD ids alternating and no names
    (the timing is make bench's; here, the answer): each vendor's list
    numbers its own GPUs 0 to 9,999, and `inventory` leaves the 20,000 x
    20,000 closeness matrix out."""
    n = 20000
    parts = [mgtest.read_text(os.path.join(mgtest.DATA, "topo", "no-cores.xml"))
             .rsplit("</object>", 1)[0]]
    for bus in range(n // 250):
        parts.append('<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
                     'bridge_pci="0000:[%02x-%02x]">' % (1000 + bus, bus + 1, bus + 1))
        for k in range(250):
            vendor = "10de:2335" if k % 2 == 0 else "1002:740f"
            parts.append('<object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:%02x.%x" '
                         'pci_type="0302 [%s] [%s] 00"/>'
                         % (10000 + bus * 250 + k, bus + 1, k // 8, k % 8, vendor, vendor))
        parts.append("</object>")
    path = mgtest.write(os.path.join(tmp, "gpus.xml"),
                        "\n".join(parts) + "</object>\n</topology>\n")
    r = env_run(meshgen, tmp, ["--inventory", path, "--mesh", "d:-1", "--process", "0"])
    got = sh_values(r.stdout, ["CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"])
    want = ",".join(str(i) for i in range(n // 2))
    check("many.exit", r.returncode == 0, r.stderr[-500:])
    check("many.cuda", got.get("CUDA_VISIBLE_DEVICES") == want,
          (got.get("CUDA_VISIBLE_DEVICES") or "")[-80:])
    check("many.rocr", got.get("ROCR_VISIBLE_DEVICES") == want,
          (got.get("ROCR_VISIBLE_DEVICES") or "")[-80:])
    r = mgtest.meshgen(meshgen, "inventory", "--inventory", path, text=True)
    check("many.inventory", r.returncode == 0 and "closeness: not printed for more than 64 GPUs "
          "(20000 x 20000)" in r.stdout and len(r.stdout) < 4 << 20, r.stderr[-500:])


def tpu(meshgen, tmp):
    """One process per TPU chip: the variables torch_xla's configure_topology
    sets, checked against its own test cases (test_experimental_tpu.py:
    v4-8 process 3; v4-16 worker 1 process 0, whose worker IPs are host
    names here). One process per host: a note, no variable."""
    def write(name, inventory, mesh):
        mgtest.write(os.path.join(tmp, name),
                     "meshgen-inventory: 1\nhosts:\n" + inventory if mesh is None else
                     "meshgen: 1\nname: m\ninventory: %s\nmesh:\n%s" % (inventory, mesh))
    write("v4-8.yaml", "  - names: t1v-n-a-w-0\n    tpu: v4\n    topology: 2x2x1\n", None)
    write("v4-16.yaml", "  - names: t1v-n-b-w-[0-1]\n    tpu: v4\n    topology: 2x2x2\n", None)
    write("v3-8.yaml", "  - names: t1v-n-c-w-0\n    tpu: v3\n    topology: 2x2\n", None)
    per_chip = "  axes: [dp]\n  shape: [%d]\n  processes: device\n"
    write("tpu8.yaml", "v4-8.yaml", per_chip % 4)
    write("tpu16.yaml", "v4-16.yaml", per_chip % 8)
    write("tpu16h.yaml", "v4-16.yaml", "  axes: [dp]\n  shape: [8]\n")
    write("tpu16p.yaml", "v4-16.yaml", per_chip % 4 + "  devices: 4\n")
    write("tpuv3.yaml", "v3-8.yaml", per_chip % 8)
    ports = ["%d" % (8476 + k) for k in range(4)]
    expect(meshgen, tmp, "tpu.v4-8", ["tpu8.yaml"],
           {"TPU_VISIBLE_CHIPS": "3", "TPU_CHIPS_PER_PROCESS_BOUNDS": "1,1,1",
            "TPU_PROCESS_BOUNDS": "2,2,1",
            "TPU_PROCESS_ADDRESSES": ",".join("localhost:" + p for p in ports),
            "TPU_PROCESS_PORT": "8479", "CLOUD_TPU_TASK_ID": "3", "MESHGEN_PROCESS": "3",
            "MESHGEN_PROCESS_COUNT": "4"},
           env={"MESHGEN_HOSTNAME": "t1v-n-a-w-0", "LOCAL_RANK": "3", "LOCAL_WORLD_SIZE": "4"})
    expect(meshgen, tmp, "tpu.v4-16", ["tpu16.yaml", "--host", "t1v-n-b-w-1", "--local-rank", "0"],
           {"TPU_VISIBLE_CHIPS": "0", "TPU_CHIPS_PER_PROCESS_BOUNDS": "1,1,1",
            "TPU_PROCESS_BOUNDS": "2,2,2",
            "TPU_PROCESS_ADDRESSES": ",".join("t1v-n-b-w-%d:%s" % (h, p)
                                              for h in range(2) for p in ports),
            "TPU_PROCESS_PORT": "8476", "CLOUD_TPU_TASK_ID": "4", "MESHGEN_PROCESS": "4",
            "MESHGEN_PROCESS_COUNT": "8"})
    expect(meshgen, tmp, "tpu.host", ["tpu16h.yaml", "--host", "t1v-n-b-w-1"],
           {"MESHGEN_PROCESS": "1", "MESHGEN_PROCESS_COUNT": "2"},
           notes=["TPU: one process per host"])
    expect_error(meshgen, tmp, "tpu.two_cores", ["tpuv3.yaml", "--process", "1"],
                 "each core of a 'TPU v3' chip is a process", check_name="env-tpu")
    expect_error(meshgen, tmp, "tpu.part", ["tpu16p.yaml", "--process", "0"],
                 "the mesh uses 4 of the 8 chips of TPU slice", check_name="env-tpu")


def main():
    meshgen, data = sys.argv[1], os.path.abspath(sys.argv[2])
    uuid = "GPU-11111111-2222-3333-4444-00000000000%d"
    with mgtest.tempdir("env") as tmp:
        mgtest.write(os.path.join(tmp, "cuda.yaml"),
                     "meshgen: 1\nname: cuda\ninventory: %s/inventory/per-host.yaml\n"
                     "mesh:\n  axes: [dp, tp]\n  shape: [2, 2]\n  processes: device\n" % data)
        mgtest.write(os.path.join(tmp, "template.yaml"),
                     "meshgen: 1\nname: tmpl\ninventory: %s/inventory/template.yaml\n"
                     "mesh:\n  axes: [dp, tp]\n  shape: [2, 2]\n" % data)
        cuda = {"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "OMP_PLACES": "{0:2}", "OMP_PROC_BIND": "spread",
                "MESHGEN_PROCESS_COUNT": "4"}
        # CUDA, per-host snapshots (gpu2 is process 0 and 1, gpu1 2 and 3):
        # srun's variables, then torchrun's under srun (the innermost wins).
        expect(meshgen, tmp, "cuda.srun", ["cuda.yaml"],
               dict(cuda, CUDA_VISIBLE_DEVICES=uuid % 2, MESHGEN_PROCESS="3"),
               env={"SLURMD_NODENAME": "gpu1", "SLURM_LOCALID": "1", "SLURM_NTASKS": "4"})
        expect(meshgen, tmp, "cuda.torchrun", ["cuda.yaml"],
               dict(cuda, CUDA_VISIBLE_DEVICES=uuid % 3, MESHGEN_PROCESS="0"),
               env={"MESHGEN_HOSTNAME": "gpu2.cluster.example", "SLURMD_NODENAME": "gpu1",
                    "SLURM_LOCALID": "1", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2",
                    "WORLD_SIZE": "4"})
        expect(meshgen, tmp, "cuda.mpirun", ["cuda.yaml"],
               dict(cuda, CUDA_VISIBLE_DEVICES=uuid % 4, MESHGEN_PROCESS="1"),
               env={"MESHGEN_HOSTNAME": "gpu2", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
                    "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "OMPI_COMM_WORLD_SIZE": "4"})
        expect(meshgen, tmp, "cuda.options", ["cuda.yaml", "--host", "gpu1", "--local-rank", "0"],
               dict(cuda, CUDA_VISIBLE_DEVICES=uuid % 1, MESHGEN_PROCESS="2"),
               env={"SLURM_NTASKS": "99"})
        expect(meshgen, tmp, "cuda.process", ["cuda.yaml", "--process", "1"],
               dict(cuda, CUDA_VISIBLE_DEVICES=uuid % 4, MESHGEN_PROCESS="1"))
        # A template shared by two hosts: GPUs by index.
        expect(meshgen, tmp, "cuda.template", ["template.yaml", "--host", "gpu2"],
               dict(cuda, CUDA_VISIBLE_DEVICES="0,1", MESHGEN_PROCESS="1",
                    MESHGEN_PROCESS_COUNT="2"))
        # Each launch error names the variable, its value, what the mesh
        # expects and the launcher's fix (docs/reference.md, "When no
        # process is found").
        expect_error(meshgen, tmp, "cuda.count", ["cuda.yaml"],
                     "SLURM_NTASKS=8, but the mesh has 4 processes, one per device "
                     "('processes: device'); start 2 processes per host, 4 in all: "
                     "srun -N 2 --ntasks-per-node=2",
                     env={"SLURMD_NODENAME": "gpu1", "SLURM_LOCALID": "1", "SLURM_NTASKS": "8"})
        expect_error(meshgen, tmp, "cuda.no_host", ["cuda.yaml", "--host", "gpu7"],
                     "(--host is read as MESHGEN_HOSTNAME): this machine's name 'gpu7' (from "
                     "MESHGEN_HOSTNAME) is no host of the mesh, whose hosts are 'gpu2' and "
                     "'gpu1'")
        expect_error(meshgen, tmp, "cuda.no_rank", ["cuda.yaml", "--host", "gpu1"],
                     "--local-rank")
        expect_error(meshgen, tmp, "cuda.mismatch", ["cuda.yaml", "--host", "gpu1", "--process",
                                                     "0"], "runs on host 'gpu2'")
        # The README's wrapper line: the program runs placed, or not at all
        # (an eval of nothing would succeed and run it unplaced).
        readme = os.path.join(data, "..", "..", "README.md")
        line = [ln for ln in mgtest.read_text(readme).splitlines()
                if "sh -c" in ln and "meshgen env mesh.yaml" in ln][0]
        script = line.split("sh -c '", 1)[1].rsplit("'", 1)[0]
        script = script.replace("meshgen env mesh.yaml", "%s env cuda.yaml" % meshgen)
        script = script.replace("exec python train.py", 'echo "ran $MESHGEN_PROCESS"')
        for host, want in (("gpu1", "ran 2"), ("gpu7", None)):
            r = mgtest.run(["sh", "-c", script], cwd=tmp, text=True,
                           env=clean_env({"MESHGEN_HOSTNAME": host, "SLURM_LOCALID": "0"}))
            if want:
                check("readme.%s" % host, r.returncode == 0 and r.stdout.strip() == want,
                      "%r: exit %d, %r %r" % (script, r.returncode, r.stdout, r.stderr))
            else:
                check("readme.%s" % host, r.returncode != 0 and "ran" not in r.stdout,
                      "%r: exit %d, %r" % (script, r.returncode, r.stdout))
        # Past the processes, from --process or from MESHGEN_PROCESS: the
        # message names the number given.
        expect_error(meshgen, tmp, "cuda.range_option", ["cuda.yaml", "--process", "9"],
                     "(--process is read as MESHGEN_PROCESS): MESHGEN_PROCESS=9, but the mesh "
                     "has 4 processes (0 to 3)")
        expect_error(meshgen, tmp, "cuda.range_env", ["cuda.yaml"],
                     "MESHGEN_PROCESS=9, but the mesh has 4 processes (0 to 3)",
                     env={"MESHGEN_PROCESS": "9"})

        # ROCm: a Tioga node's MI250X GCDs, by RSMI unique id; one process
        # per GCD, the second local rank.
        tioga = ["--inventory", "%s/hwloc/eas-tioga.xml" % data, "--mesh", "dp:8",
                 "--host", "tioga29"]
        expect(meshgen, tmp, "rocm.host", tioga,
               {"ROCR_VISIBLE_DEVICES": ",".join("GPU-" + u for u in [
                   "4a7c19da329a2b8c", "4b2293c2b81539dc", "d5cfd2e3f280ffdd", "ffc79f350ee5ff7a",
                   "e850aef0615db971", "b37f6c6d134d9698", "226d71390992870e", "7afa7c692a198e0f"]),
                "OMP_PLACES": "{48:8,112:8},{56:8,120:8},{16:8,80:8},{24:8,88:8},"
                              "{0:8,64:8},{8:8,72:8},{32:8,96:8},{40:8,104:8}",
                "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "0", "MESHGEN_PROCESS_COUNT": "1"})
        mgtest.write(os.path.join(tmp, "rocm.yaml"),
                     "meshgen: 1\nname: rocm\ninventory: %s/hwloc/eas-tioga.xml\nmesh:\n"
                     "  axes: [dp]\n  shape: [8]\n  processes: device\n" % data)
        expect(meshgen, tmp, "rocm.device", ["rocm.yaml"],
               {"ROCR_VISIBLE_DEVICES": "GPU-4b2293c2b81539dc", "OMP_PLACES": "{56:8,120:8}",
                "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "1", "MESHGEN_PROCESS_COUNT": "8"},
               env={"MESHGEN_HOSTNAME": "tioga29", "FLUX_TASK_LOCAL_ID": "1",
                    "FLUX_JOB_SIZE": "8"})

        mixed_vendors(meshgen, tmp, data)
        vendor_ids(meshgen, tmp, data)
        one_host_many_gpus(meshgen, tmp)
        tpu(meshgen, tmp)

        # CPU: a synthetic machine's cores, one process per core; no GPU
        # variable at all.
        cpu = ["--inventory", "synthetic:pack:2 core:2 pu:2", "--mesh", "dp:4"]
        mgtest.write(os.path.join(tmp, "cpu.yaml"),
                     "meshgen: 1\nname: cpu\ninventory: \"synthetic:pack:2 core:2 pu:2\"\n"
                     "mesh:\n  axes: [dp]\n  shape: [4]\n  processes: device\n")
        expect(meshgen, tmp, "cpu.host", cpu,
               {"OMP_PLACES": "{0:2},{2:2},{4:2},{6:2}", "OMP_PROC_BIND": "spread",
                "MESHGEN_PROCESS": "0", "MESHGEN_PROCESS_COUNT": "1"})
        expect(meshgen, tmp, "cpu.device", ["cpu.yaml"],
               {"OMP_PLACES": "{4:2}", "OMP_PROC_BIND": "spread", "MESHGEN_PROCESS": "2",
                "MESHGEN_PROCESS_COUNT": "4"},
               env={"PMI_SIZE": "4", "MPI_LOCALRANKID": "2", "MPI_LOCALNRANKS": "4"})
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
