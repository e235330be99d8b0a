#!/usr/bin/python3
"""meshgen benchmarks: `make bench` runs this (bench/README.md says why each
baseline and target is what it is).

  1. generator: whole `meshgen validate` / `meshgen generate` runs on a
     64-host, a 4096-host and a one-host mesh, against hwloc's own tool
     loading the same topology file once;
  2. generator at scale and the builds users wait for: 1000 specs in one
     `validate`; a mesh of a million devices (generate, resolve against
     `cat` of its output, show --svg, gcc -O2 of its tables with and
     without group tables), of 8 million (the growth exponent from 1M), one
     host of 4096 cores; a consumer project of three meshes built cold and
     again with nothing to do;
  3. runtime: ns per lookup (bench_lookup, compiled here at -O2 and -O3 and
     linked against the tables of meshes of 960, 1024 and 1M devices, and a
     1M mesh of sizes that are not powers of two), against hand-written
     loops compiled into the same program, and the number of allocations
     during the lookups;
  4. tables: bytes of the emitted C and of the compiled object's read-only
     data, against one line per device.

Load cannot fool it: every row is measured at least 3 times, interleaved
with its baseline in the same invocation; the minimum is printed beside the
median and the targets are judged on the minimum; whole commands and
compiles are judged on their CPU time (user + system of the process and its
children), which waiting for a core does not add to; and the load average
is printed at the start and the end of every section. Benchmarks report:
each target prints PASS or FAIL, and the exit status is 0 unless something
crashed or failed to run.

    /usr/bin/python3 bench/run_bench.py [--build DIR] [--rounds N] [--quick]
                                        [--only SECTION,...]
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
SECTIONS = ("generator", "scale", "lookups", "tables")

# Targets (bench/README.md justifies them). Ratios are of minimums, against
# the baseline of the same run; commands and compiles by CPU time.
T_VALIDATE_64 = 3.0      # validate(64 hosts) CPU time <= 3x one hwloc load
T_VALIDATE_4096 = 10.0   # validate(4096 hosts) CPU time <= 10x one hwloc load
T_VALIDATE_1 = 3.0       # validate(one host, 326 KB XML) <= 3x one hwloc load
T_GENERATE_64 = 3.0      # generate: the same bounds as validate
T_GENERATE_4096 = 10.0
T_RSS_64 = 2.0           # peak RSS <= 2x hwloc's for 64 hosts and for one host
T_RSS_4096 = 4.0         # peak RSS <= 4x hwloc's for 4096 hosts
T_MANY_SPECS_S = 0.5     # 1000 specs in one validate: <= 0.5 s of CPU ...
T_MANY_SPECS_X = 60.0    # ... or <= 60x one single-spec validate
T_CONSUMER_COLD_S = 0.5  # a consumer project of three meshes, built cold: <= 0.5 s of CPU
T_CONSUMER_NOOP_S = 0.1  # ... and again with nothing to do: <= 100 ms of CPU
T_GCC_1M_S = 3.0         # gcc -O2 of the default 1M-device tables <= 3 s of CPU
T_GROUPS_GCC_X = 2.0     # with --groups always: <= 2x the default compile (1M) ...
T_GROUPS_GCC_FLAT = 1.2  # ... and CPU per device at 1M <= 1.2x that at 64K
T_RESOLVE_MIB = 64.0     # resolve at 1M devices: peak RSS <= 64 MiB ...
T_RESOLVE_BYTES = 32.0   # ... <= 32 bytes per device ...
T_RESOLVE_CAT_X = 5.0    # ... and CPU time <= 5x `cat` of its own output
T_SVG_ELEMENTS = 10000   # show --svg at 1M devices: <= 10 000 elements ...
T_SVG_MIB = 4.0          # ... and <= 4 MiB
T_CORES_S = 0.1          # one host of 4096 cores: generate <= 0.1 s of CPU
T_GROWTH = 1.1           # generate CPU time grows as devices^k from 1M to 8M, k <= 1.1 ...
T_SCALE_8M_MIB = 1024.0  # ... and 8M devices take <= 1 GiB
T_LOOKUP_FLOOR = 2.0     # device_at, coords_of <= 2x their hand-written loop
T_GROUP = 2.0            # meshgen_group <= 2x the hand-written strided loop
T_GROUPS_ALL = 2.0       # group_index per device <= 2x the same arithmetic by hand; meshgen_group per group <= 2x nested loops
T_CURSOR = 2.5           # every device's group and rank via the cursor <= 2.5x nested loops (1M, -O2)
T_BATCH = 0.5            # meshgen_axis_groups, every axis and every pair <= 0.5x nested loops (1M)
T_RANK_SET_MS = 10.0     # one device's group along every subset of the axes < 10 ms (1M)
T_LOOKUP = 4.0           # group_index (one axis), shard <= 4x device -> coords by hand
T_TABLE_VS_LINES = 1 / 3  # 4096-host const data <= 1/3 of one line per device
MIN_RUNS = 3             # runs of every row, at the least

failures = []   # things that crashed or failed to run: exit status 1
targets = []    # (section, text, measured, ok)


def fail(what):
    failures.append(what)
    print(f"ERROR: {what}", file=sys.stderr)


def target(section, text, measured, ok):
    targets.append((section, text, measured, ok))
    print(f"TARGET {text}: {measured}  {'PASS' if ok else 'FAIL'}")


# ---- running a program: wall time, CPU time and peak RSS of that one child -------

def spawn(launcher, argv, outfile, errfile, stdout_file=None):
    """Runs argv through bench_spawn (stdout to /dev/null or stdout_file,
    stderr to errfile); returns (exit code, wall s, cpu s, peak RSS KiB) of
    the command itself, as the launcher measured them (bench_spawn.c says
    why there)."""
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, outfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               (os.POSIX_SPAWN_OPEN, 2, errfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    args = [launcher] + (["-o", stdout_file] if stdout_file else []) + argv
    pid = os.posix_spawn(launcher, args, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return (os.waitstatus_to_exitcode(status), 0.0, 0.0, 0)
    with open(outfile) as f:
        m = re.fullmatch(r"status (\d+) wall_ns (\d+) maxrss_kib (\d+) cpu_us (\d+)\s*",
                         f.read())
    if m is None:
        return (-1, 0.0, 0.0, 0)
    return (int(m.group(1)), int(m.group(2)) / 1e9, int(m.group(4)) / 1e6, int(m.group(3)))


class Job:
    """One command measured repeatedly. A job that may fail on purpose
    (refused=True: a size the generator does not handle yet) records its
    error instead of reporting a crash. `prepare`, when given, runs before
    each run, untimed (removing a previous run's output, so that every run
    does the same work)."""

    def __init__(self, case, label, argv, stdout_file=None, refused_ok=False, prepare=None):
        self.case, self.label, self.argv = case, label, argv
        self.stdout_file, self.refused_ok, self.prepare = stdout_file, refused_ok, prepare
        self.wall, self.cpu, self.rss = [], [], []
        self.broken = False
        self.error = None
        self.out_bytes = 0

    def run(self, launcher, tmp, record=True, keep_stdout=False):
        if self.broken:
            return
        if self.prepare is not None:
            self.prepare()
        errfile = os.path.join(tmp, "stderr.txt")
        code, wall, cpu, rss = spawn(launcher, self.argv, os.path.join(tmp, "spawn.txt"), errfile,
                                     self.stdout_file)
        if code != 0:
            self.broken = True
            with open(errfile, errors="replace") as f:
                err = f.read().strip()
            self.error = f"exit {code}: {err[-300:]}"
            if not (self.refused_ok and code == 1):
                fail(f"{' '.join(self.argv)} exited with {code}: {err[-2000:]}")
            return
        if self.stdout_file:
            self.out_bytes = os.path.getsize(self.stdout_file)
            if not keep_stdout:
                os.unlink(self.stdout_file)
        if record:
            self.wall.append(wall)
            self.cpu.append(cpu)
            self.rss.append(rss)

    def med(self, what):
        values = getattr(self, what)
        return statistics.median(values) if values else float("nan")

    def min(self, what):
        values = getattr(self, what)
        return min(values) if values else float("nan")

    def ok(self):
        return not self.broken and bool(self.wall)


def run_rounds(launcher, tmp, jobs, rounds, warm_up=True):
    """Each round runs every job once, in an order shuffled per round (seeded),
    so no command always runs after the same one."""
    if warm_up:
        for job in jobs:  # page cache, dynamic loader; not recorded
            job.run(launcher, tmp, record=False)
    for r in range(max(rounds, MIN_RUNS)):
        order = list(jobs)
        random.Random(r).shuffle(order)
        for job in order:
            job.run(launcher, tmp)


def job_line(job, base=None):
    """Wall and CPU time, median and minimum, peak RSS (its minimum), each
    with its ratio to the baseline's (minimum to minimum)."""
    def ratio(what, fn):
        return f"{fn(job, what) / fn(base, what):6.2f}x " if base else f"{'':7} "

    line = f"{job.label:<46} {job.med('wall') * 1e3:9.1f} {job.min('wall') * 1e3:9.1f} "
    line += ratio("wall", Job.min)
    line += f"{job.med('cpu') * 1e3:9.1f} {job.min('cpu') * 1e3:9.1f} "
    line += ratio("cpu", Job.min)
    line += f"{job.min('rss') / 1024:9.1f}"
    line += f" {job.min('rss') / base.min('rss'):6.2f}x" if base else ""
    return line


JOB_HEAD = (f"{'command':<46} {'wall ms':>9} {'min':>9} {'x base':>7} {'cpu ms':>9} "
            f"{'min':>9} {'x base':>7} {'peak MiB':>9} {'x base':>7}")


def load_line(what):
    """The load average, printed where a section starts and ends: a run
    under load says so beside its numbers."""
    one, five, fifteen = os.getloadavg()
    print(f"load average {what}: {one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; "
          f"{os.cpu_count()} CPUs)")
    return one


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def empty_dir(path):
    """Removes what a previous run wrote into path: meshgen leaves a file
    whose bytes would not change untouched, so a second run into a full
    directory would do less work than the first."""
    for name in os.listdir(path):
        os.unlink(os.path.join(path, name))


# ---- inputs of section 1 --------------------------------------------------------------

SPEC_4096 = """\
meshgen: 1
name: fsdp_tp_4096
inventory: inventory-4096.yaml
mesh:
  axes: [fsdp, tp]
  shape: [-1, 8]
  types: [explicit, explicit]
shardings:
  params: {spec: [fsdp, tp], shape: [65536, 8192]}
  activations: {spec: [fsdp, null, tp], shape: [65536, 2048, 8192]}
"""

INVENTORY_4096 = """\
meshgen-inventory: 1
hosts:
  - names: n[0001-4096]
    topology: topology/nvidiaDGX2.xml
"""

SPEC_1 = """\
meshgen: 1
name: uv2000
inventory: topology/192em64t-24n8c2t.xml
mesh:
  axes: [dp, tp]
  shape: [-1, 8]
  device_kind: core
shardings:
  x: {spec: [dp, tp], shape: [2400, 64]}
"""


def make_cases(tmp):
    os.makedirs(os.path.join(tmp, "topology"), exist_ok=True)
    for src in ("configs/inventories/hwloc/nvidiaDGX2.xml",
                "tests/data/hwloc/192em64t-24n8c2t.xml",
                "tests/data/hwloc/eas-tioga.xml"):
        shutil.copy(os.path.join(SOURCE, src), os.path.join(tmp, "topology"))
    write(os.path.join(tmp, "inventory-4096.yaml"), INVENTORY_4096)
    write(os.path.join(tmp, "mesh-4096.yaml"), SPEC_4096)
    write(os.path.join(tmp, "mesh-1.yaml"), SPEC_1)
    return [
        # key, title, spec, topology hwloc loads for the baseline
        ("h64", "64 hosts x 16 GPUs (configs/meshes/fsdp-tp-64.yaml)",
         os.path.join(SOURCE, "configs/meshes/fsdp-tp-64.yaml"),
         os.path.join(SOURCE, "configs/inventories/hwloc/nvidiaDGX2.xml")),
        ("h4096", "4096 hosts x 16 GPUs (n[0001-4096], nvidiaDGX2.xml)",
         os.path.join(tmp, "mesh-4096.yaml"), os.path.join(tmp, "topology/nvidiaDGX2.xml")),
        ("h1", "1 host, 192 cores (326 KB 192em64t-24n8c2t.xml)",
         os.path.join(tmp, "mesh-1.yaml"), os.path.join(tmp, "topology/192em64t-24n8c2t.xml")),
    ]


# ---- 1. generator -------------------------------------------------------------------

def bench_generator(cfg, tmp, rounds):
    print(f"\n== 1. generator: whole command-line runs, {max(rounds, MIN_RUNS)} interleaved rounds")
    load_line("at the start")
    hwloc = shutil.which("hwloc-info")
    if hwloc is None:
        fail("hwloc-info not found (Debian package hwloc): no baseline")
        return {}
    meshgen = cfg["meshgen"]
    jobs = []
    floor = Job("-", "/bin/true", ["/bin/true"])
    jobs.append(floor)
    by_case = {}
    for key, title, spec, topo in make_cases(tmp):
        out = os.path.join(tmp, "out-" + key)
        os.makedirs(out)
        trio = [Job(key, "baseline: hwloc-info --input " + os.path.basename(topo),
                    [hwloc, "--input", topo]),
                Job(key, "meshgen validate", [meshgen, "validate", spec]),
                Job(key, "meshgen generate", [meshgen, "generate", spec, "-o", out],
                    prepare=lambda out=out: empty_dir(out))]
        by_case[key] = (title, trio, out)
        jobs.extend(trio)
    run_rounds(cfg["bench_spawn"], tmp, jobs, rounds)

    print(f"process start floor (/bin/true): {floor.min('wall') * 1e3:.2f} ms wall, "
          f"{floor.min('cpu') * 1e3:.2f} ms CPU, {floor.min('rss') / 1024:.1f} MiB (minimums)")
    results = {}
    for key, (title, trio, out) in by_case.items():
        print(f"\n{title}")
        print(JOB_HEAD)
        base = trio[0]
        for job in trio:
            print(job_line(job, base))
        # The last run left its output: sections 3 and 4 read it.
        results[key] = {"out": out, "broken": any(j.broken for j in trio),
                        "base_cpu_ms": base.min("cpu") * 1e3}
        for what, job in (("validate", trio[1]), ("generate", trio[2])):
            results[key].update({
                what + "_cpu_ms": job.min("cpu") * 1e3,
                what + "_wall_ms": job.min("wall") * 1e3,
                what + "_x": job.min("cpu") / base.min("cpu"),
                what + "_wall_x": job.min("wall") / base.min("wall"),
                what + "_rss_x": job.min("rss") / base.min("rss"),
                what + "_rss_mib": job.min("rss") / 1024})
    print()
    load_line("at the end")

    def check(key, name, what, limit):
        res = results.get(key)
        if res is None or res["broken"]:
            return
        x = res[what + "_x"]
        target("generator", f"{what}({name}) CPU time <= {limit:g}x one hwloc load",
               f"{res[what + '_cpu_ms']:.1f} ms = {x:.2f}x (wall {res[what + '_wall_ms']:.1f} ms "
               f"= {res[what + '_wall_x']:.2f}x)", x <= limit)

    check("h64", "64 hosts", "validate", T_VALIDATE_64)
    check("h4096", "4096 hosts", "validate", T_VALIDATE_4096)
    check("h1", "1 host, 326 KB XML", "validate", T_VALIDATE_1)
    check("h64", "64 hosts", "generate", T_GENERATE_64)
    check("h4096", "4096 hosts", "generate", T_GENERATE_4096)
    for key, name, limit in (("h64", "64 hosts", T_RSS_64), ("h1", "1 host", T_RSS_64),
                             ("h4096", "4096 hosts", T_RSS_4096)):
        res = results.get(key)
        if res is None or res["broken"]:
            continue
        x = max(res["validate_rss_x"], res["generate_rss_x"])
        mib = max(res["validate_rss_mib"], res["generate_rss_mib"])
        target("generator", f"peak RSS of validate/generate({name}) <= {limit:g}x hwloc's",
               f"{mib:.1f} MiB = {x:.2f}x", x <= limit)
    return results


# ---- 2. generator at scale -------------------------------------------------------------

# One mesh family at three sizes: hosts of 8 GPUs (eas-tioga.xml, 4 MI250X
# = 8 GCDs), axes pp x dp x fsdp x tp = 4 x (devices / 2048) x 64 x 8.
SCALE_SPEC = """\
meshgen: 1
name: {name}
inventory: {inventory}
mesh:
  axes: [pp, dp, fsdp, tp]
  shape: [4, -1, 64, 8]
shardings:
  params: {{spec: [[dp, fsdp], tp], shape: [{rows}, 8192]}}
"""

SCALE_INVENTORY = """\
meshgen-inventory: 1
hosts:
  - names: n[0000001-{hosts:07d}]
    topology: topology/eas-tioga.xml
"""

SCALE_SIZES = (("scale64k", 8192), ("scale1m", 131072), ("scale8m", 1048576))

# 1000 specs that share one inventory (64 DGX-2 hosts): fsdp x tp with tp
# taking each power of two from 1 to 16 in turn.
MANY_SPEC = """\
meshgen: 1
name: m{i:04d}
inventory: inventory-64.yaml
mesh:
  axes: [fsdp, tp]
  shape: [-1, {tp}]
shardings:
  w: [fsdp, tp]
"""

MANY_INVENTORY = """\
meshgen-inventory: 1
hosts:
  - names: dgx[001-064]
    topology: topology/nvidiaDGX2.xml
"""

# One host of 4096 cores (4 packages x 2 NUMA nodes x 8 L3 x 64 cores), and
# a quarter of it for the linearity check.
CORES = (("cores4096", "pack:4 numa:2 l3:8 core:64 pu:1"),
         ("cores1024", "pack:1 numa:2 l3:8 core:64 pu:1"))

IDENTITY_TABLES = ("mesh_devices", "device_index", "process_devices")

# One host of many GPUs (issue: 20,000 took 48 s): 3D controllers of NVIDIA
# and AMD alternating, ids only (no pci.ids names, as in a container), 256
# to a host bridge, all under package 0 of a two-package machine.
T_GPUS_S = 1.0           # every command over one host of 20,000 GPUs <= 1 s of CPU ...
T_GPUS_LINEAR = 6.0      # ... and <= 6x its CPU time at 5,000 GPUs (4x the GPUs)
GPUS = (20000, 5000)
GPU_HOST_HEAD = """\
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" \
allowed_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" \
allowed_nodeset="0x00000001" gp_index="1">
    <info name="HostName" value="gpus"/>
    <object type="NUMANode" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" \
nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2"/>
    <object type="Package" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" \
nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3">
      <object type="Core" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" \
nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4">
        <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" \
nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5"/>
      </object>
      <object type="Core" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" \
nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="6">
        <object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" \
nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="7"/>
      </object>
"""


def gpu_host_xml(n):
    """An hwloc XML export of one host of n GPUs (see GPU_HOST_HEAD)."""
    parts, gp = [GPU_HOST_HEAD], 100
    for bus in range((n + 255) // 256):
        parts.append(f'      <object type="Bridge" gp_index="{gp}" bridge_type="0-1" depth="0" '
                     f'bridge_pci="{bus // 255:04x}:[{bus % 255 + 1:02x}-{bus % 255 + 1:02x}]">\n')
        gp += 1
        for k in range(min(256, n - bus * 256)):
            vendor = "10de:2335" if (bus * 256 + k) % 2 == 0 else "1002:740f"
            parts.append(f'        <object type="PCIDev" gp_index="{gp}" pci_busid="{bus // 255:04x}:'
                         f'{bus % 255 + 1:02x}:{k // 8:02x}.{k % 8:x}" pci_type="0302 [{vendor}] '
                         f'[{vendor}] 00"/>\n')
            gp += 1
        parts.append("      </object>\n")
    parts.append("    </object>\n  </object>\n</topology>\n")
    return "".join(parts)


def make_scale_inputs(tmp):
    specs = {}
    for name, hosts in SCALE_SIZES:
        devices = hosts * 8
        write(os.path.join(tmp, f"inventory-{name}.yaml"), SCALE_INVENTORY.format(hosts=hosts))
        specs[name] = os.path.join(tmp, f"{name}.yaml")
        write(specs[name], SCALE_SPEC.format(name=name, inventory=f"inventory-{name}.yaml",
                                             rows=devices // 2048 * 64 * 4))
    many = os.path.join(tmp, "many")
    os.makedirs(os.path.join(many, "topology"))
    shutil.copy(os.path.join(SOURCE, "configs/inventories/hwloc/nvidiaDGX2.xml"),
                os.path.join(many, "topology"))
    write(os.path.join(many, "inventory-64.yaml"), MANY_INVENTORY)
    many_specs = []
    for i in range(1000):
        many_specs.append(os.path.join(many, f"m{i:04d}.yaml"))
        write(many_specs[-1], MANY_SPEC.format(i=i, tp=1 << (i % 5)))
    return specs, many_specs


def identity_tables_emitted(cfile, devices):
    """The per-device tables of the .c that are emitted although they are
    the identity permutation: (name, entries) pairs."""
    emitted = []
    with open(cfile) as f:
        source = f.read()
    for table in IDENTITY_TABLES:
        m = re.search(r"const int32_t \w+_" + table + r"\[(\d+)\] = \{([^}]*)\}", source)
        if m is None or int(m.group(1)) != devices:
            continue
        values = m.group(2).replace(",", " ").split()
        if len(values) == devices and all(int(v) == i for i, v in enumerate(values)):
            emitted.append((table, devices))
    return emitted


def svg_facts(path):
    """(bytes, elements) of an SVG file: elements are opening tags."""
    size = os.path.getsize(path)
    elements, last = 0, b""
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            # A tag split between two chunks is counted in the second.
            elements += len(re.findall(rb"<[A-Za-z]", last + chunk))
            last = chunk[-1:]
    return size, elements


# A consumer project, as a user writes one against an installed meshgen:
# three meshes generated at build time and one program that links them.
CONSUMER_CMAKE = """\
cmake_minimum_required(VERSION 3.20)
project(bench_consumer C)
find_package(meshgen CONFIG REQUIRED)
meshgen_add_mesh(fsdp_tp_tables SPEC {source}/configs/meshes/fsdp-tp-64.yaml)
meshgen_add_mesh(two_host_tables SPEC {source}/configs/meshes/two-host-dp-tp.yaml)
meshgen_add_mesh(pipeline_tables SPEC {source}/configs/meshes/pipeline-16.yaml)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE fsdp_tp_tables two_host_tables pipeline_tables)
"""

CONSUMER_MAIN = """\
#include "fsdp_tp_mesh.h"
#include "pipeline_mesh.h"
#include "two_host_mesh.h"

int main(void)
{
    return meshgen_mesh_check(&fsdp_tp_mesh) != 0 || meshgen_mesh_check(&two_host_mesh) != 0 ||
           meshgen_mesh_check(&pipeline_mesh) != 0;
}
"""


def consumer_jobs(cfg, tmp):
    """meshgen installed into a prefix in tmp, and a consumer project of
    three meshes configured against it (untimed); returns the jobs of a
    cold build (everything cleaned first) and of a build with nothing to
    do, or None when the installation or the configure step fails."""
    cmake = shutil.which("cmake")
    build = os.path.dirname(os.path.dirname(cfg["bench_spawn"]))
    prefix, src = os.path.join(tmp, "prefix"), os.path.join(tmp, "consumer")
    out = os.path.join(src, "build")
    os.makedirs(src)
    write(os.path.join(src, "CMakeLists.txt"), CONSUMER_CMAKE.format(source=SOURCE))
    write(os.path.join(src, "main.c"), CONSUMER_MAIN)
    for cmd in ([cmake, "--install", build, "--prefix", prefix],
                [cmake, "-S", src, "-B", out, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 f"-DCMAKE_PREFIX_PATH={prefix}"]):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            fail(f"{' '.join(cmd)} exited with {p.returncode}: {p.stdout[-2000:]}")
            return None
    clean = [cmake, "--build", out, "--target", "clean"]
    cold = Job("consumer", "consumer build of three meshes, cold", [cmake, "--build", out],
               prepare=lambda: subprocess.run(clean, stdout=subprocess.DEVNULL, check=True))
    noop = Job("consumer", "the same build again: nothing to do", [cmake, "--build", out])
    return cold, noop


def bench_scale(cfg, tmp, rounds):
    rounds = max(rounds, MIN_RUNS)
    print(f"\n== 2. generator at scale, and builds: {rounds} interleaved rounds of each row")
    load_line("at the start")
    hwloc = shutil.which("hwloc-info")
    if hwloc is None:
        fail("hwloc-info not found (Debian package hwloc): no baseline")
        return {"scale": True}
    meshgen, launcher = cfg["meshgen"], cfg["bench_spawn"]
    make_cases(tmp)
    specs, many_specs = make_scale_inputs(tmp)
    result = {"scale": True}

    # 1000 specs, one inventory.
    one = Job("many", "baseline: validate 1 spec", [meshgen, "validate", many_specs[0]])
    many = Job("many", "validate 1000 specs (one call)", [meshgen, "validate"] + many_specs)
    run_rounds(launcher, tmp, [one, many], rounds, warm_up=False)
    print("\n1000 specs sharing one inventory (64 DGX-2 hosts)")
    print(JOB_HEAD)
    print(job_line(one, one))
    print(job_line(many, one))

    # A consumer project: a cold build and a build with nothing to do.
    consumer = consumer_jobs(cfg, tmp)
    if consumer is not None:
        cold, noop = consumer
        for _ in range(rounds):
            cold.run(launcher, tmp)
            noop.run(launcher, tmp)
        print("\na consumer project (find_package(meshgen); fsdp-tp-64, two-host-dp-tp, "
              "pipeline-16), cmake --build")
        print(JOB_HEAD)
        print(job_line(cold))
        print(job_line(noop))

    # 1M devices: validate, generate, resolve (and cat of its output), show --svg.
    outs = {}
    for name, _ in SCALE_SIZES:
        outs[name] = os.path.join(tmp, "out-" + name)
        os.makedirs(outs[name])
    svg = os.path.join(tmp, "scale1m.svg")
    spec = specs["scale1m"]
    resolved = os.path.join(tmp, "resolve-kept.json")
    Job("1m", "resolve, kept for cat", [meshgen, "resolve", spec],
        stdout_file=resolved).run(launcher, tmp, record=False, keep_stdout=True)
    base = Job("1m", "baseline: hwloc-info --input eas-tioga.xml",
               [hwloc, "--input", os.path.join(tmp, "topology/eas-tioga.xml")])
    jobs_1m = [base,
               Job("1m", "validate", [meshgen, "validate", spec]),
               Job("1m", "generate", [meshgen, "generate", spec, "-o", outs["scale1m"]],
                   prepare=lambda: empty_dir(outs["scale1m"])),
               Job("1m", "resolve > file", [meshgen, "resolve", spec],
                   stdout_file=os.path.join(tmp, "resolve.json")),
               Job("1m", "baseline: cat of resolve's output > file", ["/bin/cat", resolved],
                   stdout_file=os.path.join(tmp, "cat.json")),
               Job("1m", "show --svg", [meshgen, "show", "--color=never", spec, "--svg", svg]),
               Job("1m", "floor: resolve, one host of the topology",
                   [meshgen, "resolve", "--mesh", "d:-1", "--inventory",
                    os.path.join(tmp, "topology/eas-tioga.xml")],
                   stdout_file=os.path.join(tmp, "resolve-one.json"))]
    run_rounds(launcher, tmp, jobs_1m, rounds, warm_up=False)
    os.unlink(resolved)
    print("\n1M devices: 131 072 hosts x 8 GPUs, pp x dp x fsdp x tp = 4 x 512 x 64 x 8")
    print(JOB_HEAD)
    for job in jobs_1m:
        print(job_line(job, base))
    _, validate_1m, generate_1m, resolve_1m, cat_1m, show_1m, floor_1m = jobs_1m
    if resolve_1m.ok():
        print(f"resolve: {resolve_1m.out_bytes / 2**20:.1f} MiB of JSON")
    svg_size, svg_elements = svg_facts(svg) if show_1m.ok() and os.path.exists(svg) else (0, 0)
    if show_1m.ok():
        print(f"show --svg: {svg_size / 2**20:.1f} MiB, {svg_elements:,} elements")

    # gcc -O2 of the tables: 64K and 1M devices, default and --groups always,
    # interleaved. The default 1M output is the one the rounds above left.
    gcc_jobs = {}
    for name, devices in (("scale64k", 65536), ("scale1m", 1048576)):
        for groups in ("auto", "always"):
            out = outs[name]
            if groups == "always":
                out = os.path.join(tmp, f"out-{name}-groups")
                os.makedirs(out)
            if groups == "always" or name == "scale64k":
                Job(name, "generate", [meshgen, "generate", "--groups", groups, specs[name],
                                       "-o", out]).run(launcher, tmp)
            cfile = os.path.join(out, f"{name}_mesh.c")
            if not os.path.exists(cfile):
                continue
            obj = os.path.join(tmp, f"{name}-{groups}.o")
            job = Job("gcc", f"gcc -O2 {name}_mesh.c (--groups {groups})",
                      [cfg["cc"], "-O2", "-std=c11", "-I", cfg["runtime_include"], "-I", out,
                       "-c", cfile, "-o", obj])
            job.devices, job.c_bytes, job.obj = devices, os.path.getsize(cfile), obj
            gcc_jobs[(name, groups)] = job
    run_rounds(launcher, tmp, list(gcc_jobs.values()), rounds, warm_up=False)
    for name in ("scale64k", "scale1m"):
        shutil.rmtree(os.path.join(tmp, f"out-{name}-groups"), ignore_errors=True)
    print(f"\ngcc -O2 -c of the generated tables ({rounds} interleaved runs each)")
    print(f"{'compile':<46} {'.c MB':>7} {'cpu s':>7} {'min':>7} {'ns/device':>10} "
          f"{'wall min':>9} {'peak MiB':>9}")
    for job in gcc_jobs.values():
        if job.ok():
            print(f"{job.label:<46} {job.c_bytes / 1e6:7.1f} {job.med('cpu'):7.2f} "
                  f"{job.min('cpu'):7.2f} {job.min('cpu') / job.devices * 1e9:10.0f} "
                  f"{job.min('wall'):9.2f} {job.min('rss') / 1024:9.1f}")
    cfile_1m = os.path.join(outs["scale1m"], "scale1m_mesh.c")
    identity = identity_tables_emitted(cfile_1m, 1048576) if os.path.exists(cfile_1m) else None
    gcc_1m = gcc_jobs.get(("scale1m", "auto"))
    if gcc_1m is not None and gcc_1m.ok():
        result["table_1m"] = (gcc_1m.obj, "scale1m_mesh")

    # 8M devices, no group tables, interleaved with the 1M generate they are
    # compared with (the same command at an eighth of the size).
    gen_1m = Job("8m", "generate --groups never (1M devices)",
                 [meshgen, "generate", "--groups", "never", specs["scale1m"], "-o",
                  outs["scale1m"]], prepare=lambda: empty_dir(outs["scale1m"]))
    big = Job("8m", "generate --groups never (8M devices)",
              [meshgen, "generate", "--groups", "never", specs["scale8m"], "-o", outs["scale8m"]],
              refused_ok=True, prepare=lambda: empty_dir(outs["scale8m"]))
    run_rounds(launcher, tmp, [gen_1m, big], rounds, warm_up=False)
    empty_dir(outs["scale1m"])
    empty_dir(outs["scale8m"])
    print("\n8M devices: 1 048 576 hosts x 8 GPUs, 4 x 4096 x 64 x 8")
    if big.ok():
        print(JOB_HEAD)
        print(job_line(gen_1m))
        print(job_line(big, gen_1m))
    else:
        print(f"meshgen generate: {big.error}")
    # Its 2 GB of JSON go nowhere: what is measured is its memory.
    resolve_8m = Job("8m", "resolve (8M devices, stdout not kept)",
                     [meshgen, "resolve", specs["scale8m"]], refused_ok=True)
    resolve_8m.run(launcher, tmp)
    if resolve_8m.ok():
        print(job_line(resolve_8m))

    # One host of 4096 cores, a quarter of it, and hwloc loading it.
    core_jobs = []
    for name, topo in CORES:
        out = os.path.join(tmp, "out-" + name)
        os.makedirs(out)
        core_jobs.append(Job(name, f"generate, {name[5:]} cores ({topo})",
                             [meshgen, "generate", "--mesh", "dp:-1,tp:8", "--inventory",
                              "synthetic:" + topo, "-o", out],
                             prepare=lambda out=out: empty_dir(out)))
    hwloc_cores = Job("cores", f"baseline: hwloc-info --input '{CORES[0][1]}'",
                      [hwloc, "--input", CORES[0][1]])
    run_rounds(launcher, tmp, [hwloc_cores] + core_jobs, rounds)
    print("\none host of 4096 cores (synthetic)")
    print(JOB_HEAD)
    print(job_line(hwloc_cores, hwloc_cores))
    for job in core_jobs:
        print(job_line(job, hwloc_cores))
    print()
    load_line("at the end")

    # One host of 20,000 GPUs and of a quarter of them: every command that
    # reads a host's devices, against hwloc loading the file.
    gpu_jobs = {}
    for n in GPUS:
        xml = os.path.join(tmp, f"gpus{n}.xml")
        write(xml, gpu_host_xml(n))
        mesh = ["--inventory", xml, "--mesh", "d:-1"]
        gpu_jobs[n] = [Job(f"gpus{n}", f"baseline: hwloc-info --input gpus{n}.xml",
                           [hwloc, "--input", xml])]
        for cmd in (["validate"], ["resolve"], ["env", "--process", "0"], ["inventory"]):
            gpu_jobs[n].append(Job(f"gpus{n}", f"{cmd[0]}, one host of {n:,} GPUs",
                                   [meshgen] + cmd + (mesh if cmd[0] != "inventory" else
                                                      ["--inventory", xml])))
        run_rounds(launcher, tmp, gpu_jobs[n], max(rounds, 3))
    print("\none host of many GPUs (NVIDIA and AMD ids, no names)")
    print(JOB_HEAD)
    for n in GPUS:
        for job in gpu_jobs[n]:
            print(job_line(job, gpu_jobs[n][0]))
    print()

    # Targets, in the order of the tables in bench/README.md.
    if one.ok() and many.ok():
        s, x = many.min("cpu"), many.min("cpu") / one.min("cpu")
        target("scale", f"validate of 1000 specs sharing one inventory <= {T_MANY_SPECS_S:g} s "
               f"of CPU or <= {T_MANY_SPECS_X:g}x one single-spec validate",
               f"{s:.2f} s = {x:.0f}x (wall {many.min('wall'):.2f} s)",
               s <= T_MANY_SPECS_S or x <= T_MANY_SPECS_X)
    if consumer is not None and cold.ok() and noop.ok():
        target("scale", f"consumer build of three meshes, cold: <= {T_CONSUMER_COLD_S:g} s of CPU",
               f"{cold.min('cpu'):.3f} s (wall {cold.min('wall'):.3f} s)",
               cold.min("cpu") <= T_CONSUMER_COLD_S)
        target("scale", f"the same build with nothing to do: <= {T_CONSUMER_NOOP_S * 1e3:g} ms "
               f"of CPU", f"{noop.min('cpu') * 1e3:.0f} ms (wall {noop.min('wall') * 1e3:.0f} ms)",
               noop.min("cpu") <= T_CONSUMER_NOOP_S)
    if gcc_1m is not None and gcc_1m.ok():
        target("scale", f"gcc -O2 of the default 1M-device tables <= {T_GCC_1M_S:g} s of CPU",
               f"{gcc_1m.min('cpu'):.2f} s, {gcc_1m.min('rss') / 1024:.0f} MiB "
               f"(wall {gcc_1m.min('wall'):.2f} s)", gcc_1m.min("cpu") <= T_GCC_1M_S)
    g_1m, g_small = gcc_jobs.get(("scale1m", "always")), gcc_jobs.get(("scale64k", "always"))
    if g_1m is not None and g_1m.ok() and gcc_1m is not None and gcc_1m.ok():
        x = g_1m.min("cpu") / gcc_1m.min("cpu")
        target("scale", f"gcc -O2 of the 1M-device tables with --groups always <= "
               f"{T_GROUPS_GCC_X:g}x the default", f"{g_1m.min('cpu'):.2f} s of CPU = {x:.2f}x, "
               f"{g_1m.min('rss') / 1024:.0f} MiB", x <= T_GROUPS_GCC_X)
    if g_1m is not None and g_1m.ok() and g_small is not None and g_small.ok():
        per = g_1m.min("cpu") / g_1m.devices
        per_small = g_small.min("cpu") / g_small.devices
        target("scale", f"the same, CPU time per device flat: 1M <= {T_GROUPS_GCC_FLAT:g}x 64K",
               f"{per * 1e9:.0f} vs {per_small * 1e9:.0f} ns = {per / per_small:.2f}x",
               per <= T_GROUPS_GCC_FLAT * per_small)
    if identity is not None:
        target("scale", "identity tables not emitted (1M devices, the identity permutation)",
               ", ".join(f"{t} ({n:,} entries)" for t, n in identity) or "none emitted",
               not identity)
    if resolve_1m.ok():
        mib = resolve_1m.min("rss") / 1024
        target("scale", f"resolve at 1M devices: peak RSS <= {T_RESOLVE_MIB:g} MiB",
               f"{mib:.0f} MiB ({resolve_1m.out_bytes / 2**20:.0f} MiB of JSON)",
               mib <= T_RESOLVE_MIB)
    if resolve_1m.ok() and resolve_8m.ok():
        per = {n: job.min("rss") * 1024 / n for n, job in ((1 << 20, resolve_1m),
                                                           (1 << 23, resolve_8m))}
        # The floor (the binary, its libraries, hwloc's topology: what a
        # resolve of one host holds) is printed, not subtracted: the bound
        # holds with it (bench/README.md).
        floor = (f"; floor {floor_1m.min('rss') / 1024:.1f} MiB = "
                 f"{floor_1m.min('rss') * 1024 / (1 << 20):.1f} B at 1M" if floor_1m.ok() else "")
        target("scale", f"resolve: peak RSS <= {T_RESOLVE_BYTES:g} bytes per device "
               f"(1M and 8M devices)",
               f"{per[1 << 20]:.1f} B at 1M, {per[1 << 23]:.1f} B at 8M "
               f"({resolve_8m.min('rss') / 1024:.0f} MiB{floor})",
               max(per.values()) <= T_RESOLVE_BYTES)
    if resolve_1m.ok() and cat_1m.ok():
        x = resolve_1m.min("cpu") / cat_1m.min("cpu")
        target("scale", f"resolve at 1M devices: CPU time <= {T_RESOLVE_CAT_X:g}x cat of its "
               f"output", f"{resolve_1m.min('cpu'):.2f} s = {x:.1f}x (cat "
               f"{cat_1m.min('cpu') * 1e3:.0f} ms; wall {resolve_1m.min('wall'):.2f} s against "
               f"{cat_1m.min('wall') * 1e3:.0f} ms)", x <= T_RESOLVE_CAT_X)
    if show_1m.ok():
        target("scale", f"show --svg at 1M devices: <= {T_SVG_ELEMENTS:,} elements and "
               f"<= {T_SVG_MIB:g} MiB",
               f"{svg_elements:,} elements, {svg_size / 2**20:.1f} MiB "
               f"({show_1m.min('cpu'):.2f} s of CPU)",
               svg_elements <= T_SVG_ELEMENTS and svg_size <= T_SVG_MIB * 2**20)
    if all(j.ok() for j in core_jobs):
        big_cores = core_jobs[0]
        s = big_cores.min("cpu")
        target("scale", f"one host of 4096 cores: generate <= {T_CORES_S:g} s of CPU",
               f"{s:.3f} s CPU, {big_cores.min('wall'):.3f} s wall, "
               f"{big_cores.min('rss') / 1024:.0f} MiB (hwloc load "
               f"{hwloc_cores.min('cpu'):.3f} s CPU)", s <= T_CORES_S)
    big_gpus, small_gpus = gpu_jobs[GPUS[0]][1:], gpu_jobs[GPUS[1]][1:]
    if all(j.ok() for j in big_gpus + small_gpus):
        worst = max(big_gpus, key=lambda j: j.min("cpu"))
        # CPU time, as for the cores above: wall time on this shared machine
        # adds the wait for a core.
        target("scale", f"one host of {GPUS[0]:,} GPUs: validate, resolve, env and inventory "
               f"each <= {T_GPUS_S:g} s of CPU",
               ", ".join(f"{j.argv[1]} {j.min('cpu'):.2f} s" for j in big_gpus)
               + f" (hwloc load {gpu_jobs[GPUS[0]][0].min('cpu'):.2f} s)",
               worst.min("cpu") <= T_GPUS_S)
        x = max(b.min("cpu") / s.min("cpu") for b, s in zip(big_gpus, small_gpus))
        target("scale", f"one host, linear in GPUs: CPU time {GPUS[0]:,} GPUs <= "
               f"{T_GPUS_LINEAR:g}x {GPUS[1]:,} GPUs, every command", f"{x:.1f}x at most",
               x <= T_GPUS_LINEAR)
    growth = f"generate's CPU time grows as devices^k from 1M to 8M devices, k <= {T_GROWTH:g}, " \
             f"and 8M devices take <= {T_SCALE_8M_MIB / 1024:g} GiB"
    if gen_1m.ok() and big.ok():
        k = math.log(big.min("cpu") / gen_1m.min("cpu")) / math.log(8)
        mib = big.min("rss") / 1024
        target("scale", growth,
               f"k = {k:.2f} ({big.min('cpu'):.2f} s against {gen_1m.min('cpu'):.2f} s of CPU "
               f"= {big.min('cpu') / gen_1m.min('cpu'):.1f}x), {mib:.0f} MiB",
               k <= T_GROWTH and mib <= T_SCALE_8M_MIB)
    elif big.error is not None:
        target("scale", growth, f"refused ({big.error})", False)
    return result


# ---- 3. runtime lookups ---------------------------------------------------------------

LOOKUP_LABELS = {
    "read": "baseline: mesh->mesh_devices[i]",
    "radix_at": "baseline: coords -> device by hand",
    "radix_of": "baseline: device -> coords by hand",
    "groups_loop": "baseline: all groups, nested loops",
    "groups_by_hand": "baseline: all groups, device by device",
    "groups_by_shift": "baseline: all groups, device by device, shifts",
    "pairs_loop": "baseline: all groups of pairs, nested loops",
    "groups_by_index": "all groups via meshgen_group_index",
    "groups_by_group": "all groups via meshgen_group",
    "colours_by_index": "every colour, key via meshgen_group_index",
    "groups_by_cursor": "every colour, key via the cursor",
    "axis_groups": "all groups via meshgen_axis_groups",
    "pairs_by_group": "all groups of pairs via meshgen_group",
    "pair_groups": "all groups of pairs via meshgen_axis_groups",
    "rank_groups": "one device's groups, every subset (ns/set)",
    "rank_groups_batch": "all groups of every subset, batch (ns/set)",
}


def compile_lookup(cfg, tmp, level, table_obj, symbol):
    """bench_lookup at -O<level>, the runtime compiled at the same level from
    its own sources (separate objects: nothing is inlined), linked with the
    compiled tables of one mesh. Returns the program's path."""
    cc, inc = cfg["cc"], cfg["runtime_include"]
    flags = cfg.get("runtime_cflags", [])  # the runtime's jump alignment, on both sides
    runtime_objs = []
    for src in cfg["runtime_sources"]:
        obj = os.path.join(tmp, f"runtime-{os.path.basename(src)}-O{level}.o")
        if not os.path.exists(obj):
            subprocess.run([cc, f"-O{level}", "-std=c11", "-fPIC"] + flags + ["-I", inc, "-c", src,
                            "-o", obj], check=True)
        runtime_objs.append(obj)
    exe = os.path.join(tmp, f"bench_lookup-{symbol}-O{level}")
    subprocess.run([cc, f"-O{level}", "-std=c11"] + flags + ["-D_POSIX_C_SOURCE=200809L",
                    f"-DMESH={symbol}", "-I", inc, os.path.join(HERE, "bench_lookup.c")]
                   + runtime_objs + [table_obj, "-o", exe], check=True)
    return exe


def run_lookup(exe, reps, extra=()):
    proc = subprocess.run([exe, "--reps", str(reps)] + list(extra), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        fail(f"{exe} exited with {proc.returncode}: {proc.stderr.strip()}")
        return None
    info, ops = {}, []
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "op":
            ops.append({"name": parts[1], "base": parts[2], "median": float(parts[3]),
                        "min": float(parts[4]), "max": float(parts[5]), "calls": int(parts[6]),
                        "members": int(parts[7]), "units": int(parts[8])})
        elif len(parts) == 2:
            info[parts[0]] = parts[1]
    return info, ops


def print_lookup(title, info, ops):
    low = {o["name"]: o["min"] for o in ops}
    print(f"\n{title}: {info.get('devices')} devices, {info.get('axes')} axes, "
          f"{info.get('reps')} interleaved batches; ratios of minimums")
    print(f"{'operation':<44} {'ns/call':>11} {'min':>11} {'x read':>7} {'x by hand':>10}  by hand")
    for o in ops:
        label = LOOKUP_LABELS.get(o["name"], o["name"])
        line = f"{label:<44} {o['median']:11.2f} {o['min']:11.2f} "
        line += f"{o['min'] / low['read']:6.1f}x" if not o["units"] else f"{'':7}"
        if o["base"] != "-":
            line += f" {o['min'] / low[o['base']]:9.2f}x  {o['base']}"
        print(line)
    calls = int(info.get("calls_counted", "0"))
    mallocs = info.get("malloc_calls", "unmeasured")
    selftest = info.get("malloc_selftest")
    print(f"allocations during {calls:,} measured calls: {mallocs}"
          + (f" (the counter's self-test saw {selftest} of 1 deliberate malloc)"
             if selftest is not None else " (no counter in this build)"))


# Sizes that are not powers of two, where the lookups must divide: 120
# hosts of 8 GPUs as pp x dp x fsdp x tp = 3 x 5 x 8 x 8.
ODD_SPEC = """\
meshgen: 1
name: odd
inventory: inventory-odd.yaml
mesh:
  axes: [pp, dp, fsdp, tp]
  shape: [3, 5, 8, 8]
shardings:
  params: {spec: [[dp, fsdp], tp], shape: [400, 64]}
"""

ODD_INVENTORY = """\
meshgen-inventory: 1
hosts:
  - names: n[001-120]
    topology: topology/eas-tioga.xml
"""

# A million devices of sizes that are not powers of two (but tp, a host's
# 8 GPUs): 131 076 hosts as pp x dp x fsdp x tp = 3 x 3641 x 12 x 8.
ODD1M_SPEC = """\
meshgen: 1
name: odd1m
inventory: inventory-odd1m.yaml
mesh:
  axes: [pp, dp, fsdp, tp]
  shape: [3, -1, 12, 8]
"""

ODD1M_INVENTORY = """\
meshgen-inventory: 1
hosts:
  - names: n[0000001-0131076]
    topology: topology/eas-tioga.xml
"""


def lookup_tables(cfg, tmp, gen_results, scale_results):
    """The compiled tables of the 1k-device and 1M-device meshes: those that
    sections 1 and 2 generated, or generated and compiled here (untimed)
    when those sections did not run. Returns (size, title, object, symbol)."""
    def compiled(out, name):
        obj = os.path.join(tmp, f"lookup-{name}.o")
        subprocess.run([cfg["cc"], "-O2", "-std=c11", "-I", cfg["runtime_include"], "-I", out,
                        "-c", os.path.join(out, f"{name}_mesh.c"), "-o", obj], check=True)
        return obj

    def generated(spec, name):
        out = os.path.join(tmp, "out-lookup-" + name)
        os.makedirs(out)
        subprocess.run([cfg["meshgen"], "generate", spec, "-o", out], check=True,
                       stdout=subprocess.DEVNULL)
        return out

    tables = []
    make_cases(tmp)
    write(os.path.join(tmp, "inventory-odd.yaml"), ODD_INVENTORY)
    write(os.path.join(tmp, "odd.yaml"), ODD_SPEC)
    tables.append(("960", "odd (120 hosts, 960 GPUs, 3 x 5 x 8 x 8)",
                   compiled(generated(os.path.join(tmp, "odd.yaml"), "odd"), "odd"), "odd_mesh"))
    h64 = gen_results.get("h64")
    out = h64["out"] if h64 is not None and not h64["broken"] else \
        generated(os.path.join(SOURCE, "configs/meshes/fsdp-tp-64.yaml"), "fsdp_tp")
    tables.append(("1k", "fsdp_tp (64 hosts, 1024 GPUs)", compiled(out, "fsdp_tp"),
                   "fsdp_tp_mesh"))
    if scale_results.get("table_1m") is not None:
        obj, symbol = scale_results["table_1m"]
    elif "scale" not in scale_results:
        specs, _ = make_scale_inputs(tmp)
        obj, symbol = compiled(generated(specs["scale1m"], "scale1m"), "scale1m"), "scale1m_mesh"
    else:
        return tables  # section 2 ran and failed to compile them: reported there
    tables.append(("1M", "scale1m (131 072 hosts, 1 048 576 GPUs)", obj, symbol))
    write(os.path.join(tmp, "inventory-odd1m.yaml"), ODD1M_INVENTORY)
    write(os.path.join(tmp, "odd1m.yaml"), ODD1M_SPEC)
    tables.append(("1M odd", "odd1m (131 076 hosts, 1 048 608 GPUs, 3 x 3641 x 12 x 8)",
                   compiled(generated(os.path.join(tmp, "odd1m.yaml"), "odd1m"), "odd1m"),
                   "odd1m_mesh"))
    return tables


def bench_lookup(cfg, tmp, gen_results, scale_results, quick):
    print("\n== 3. runtime lookups: bench_lookup and the runtime compiled at -O2 and -O3")
    load_line("at the start")
    try:
        meshes = lookup_tables(cfg, tmp, gen_results, scale_results)
    except subprocess.CalledProcessError as e:
        fail(f"generating or compiling the lookup benchmark's tables: {e}")
        return
    runs = {}
    for size, title, obj, symbol in meshes:
        big = size.startswith("1M")
        reps = (5 if quick else 15) if big else (31 if quick else 101)
        for level in (2, 3):
            try:
                exe = compile_lookup(cfg, tmp, level, obj, symbol)
            except subprocess.CalledProcessError as e:
                fail(f"compiling bench_lookup -O{level} for {symbol}: {e}")
                continue
            # The 1M meshes leave their identity tables out; run once more
            # over a copy that carries them, so that the paths that read
            # the tables are timed too (reported, not judged).
            for extra in ((), ("--tables",)) if size == "1M" else ((),):
                res = run_lookup(exe, reps, extra)
                if res is not None:
                    name = size + (" tables" if extra else "")
                    print_lookup(f"{title}{', tables written out' if extra else ''}, -O{level}",
                                 *res)
                    runs[(name, level)] = res
    if not runs:
        return
    print()
    load_line("at the end")

    # One target line per operation: its worst ratio over the meshes and
    # levels, minimum against minimum.
    configs = list(runs)
    judged = [k for k in configs if not k[0].endswith("tables")]

    def ratios(match, base=None, sizes=None, levels=(2, 3)):
        """(config, op, ratio) of every op that matches, against its own
        baseline or the named one, in the runs of the given mesh sizes."""
        out = []
        for key in judged:
            if (sizes is not None and key[0] not in sizes) or key[1] not in levels:
                continue
            info, ops = runs[key]
            low = {o["name"]: o["min"] for o in ops}
            for o in ops:
                if match(o):
                    out.append((key, o["name"], o["min"] / low[base or o["base"]]))
        return out

    def ratio_target(what, against, match, limit, base=None, sizes=None, levels=(2, 3)):
        rs = ratios(match, base, sizes, levels)
        if rs:
            worst = max(r for _, _, r in rs)
            at = ", ".join(f"{s} -O{lv}" for (s, lv) in dict.fromkeys(k for k, _, _ in rs))
            target("runtime", f"{what} <= {limit:g}x {against} ({at})",
                   " ".join(f"{r:.2f}" for _, _, r in rs) + f"; worst {worst:.2f}x",
                   worst <= limit)

    def note(what, match, base, sizes, levels=(2, 3)):
        rs = ratios(match, base, sizes, levels)
        if rs:
            print(f"NOTE  {what}: " + ", ".join(f"{r:.2f}x ({k[0]} -O{k[1]})" for k, _, r in rs))

    # The rows kept from before issue 23 are judged on the meshes they had;
    # the odd1m mesh, added for the cursor's row, is printed for them.
    big, old_meshes = ("1M", "1M odd"), ("960", "1k", "1M")
    mallocs = [runs[k][0].get("malloc_calls", "unmeasured") for k in configs]
    selftests = [runs[k][0].get("malloc_selftest") for k in configs]
    if "unmeasured" not in mallocs:
        target("runtime", "no allocation at run time (malloc/calloc/realloc calls during lookups)",
               " ".join(mallocs), all(m == "0" for m in mallocs) and
               all(s == "1" for s in selftests))
    ratio_target("meshgen_device_at", "coords -> device by hand (radix_at)",
                 lambda o: o["name"] == "meshgen_device_at", T_LOOKUP_FLOOR, sizes=old_meshes)
    ratio_target("meshgen_coords_of", "device -> coords by hand (radix_of)",
                 lambda o: o["name"] == "meshgen_coords_of", T_LOOKUP_FLOOR, sizes=old_meshes)
    ratio_target("meshgen_group (last, first, last but one axis)", "the strided loop by hand",
                 lambda o: o["name"].startswith("meshgen_group("), T_GROUP, sizes=old_meshes)
    # Every group of every axis at a million devices. Device by device: each
    # device's group number and rank (its colour and key) through the
    # cursor, against the nested loops that list the groups (-O2, the
    # issue's level; -O3 is a note); through meshgen_group_index, against
    # the same per-device arithmetic by hand. Group by group: meshgen_group
    # once per group, and meshgen_axis_groups once per axis and per pair.
    ratio_target("every device's group and rank along every axis through the cursor",
                 "the nested loops by hand", lambda o: o["name"] == "groups_by_cursor", T_CURSOR,
                 "groups_loop", big, levels=(2,))
    note("the same at -O3", lambda o: o["name"] == "groups_by_cursor", "groups_loop", big, (3,))
    note("the same through meshgen_group_index, as before the cursor",
         lambda o: o["name"] == "colours_by_index", "groups_loop", big)
    note("the per-device floor (shifts and masks, no checks, writing each device at its "
         "group and rank), against the nested loops", lambda o: o["name"] == "groups_by_shift",
         "groups_loop", big)
    ratio_target("all groups of all axes through meshgen_group_index on every device",
                 "the same per-device arithmetic by hand",
                 lambda o: o["name"] == "groups_by_index", T_GROUPS_ALL, sizes=("1M",))
    ratio_target("all groups of all axes through meshgen_group once per group",
                 "the nested loops by hand", lambda o: o["name"] == "groups_by_group",
                 T_GROUPS_ALL, sizes=("1M",))
    ratio_target("all groups of every axis through meshgen_axis_groups",
                 "the nested loops by hand", lambda o: o["name"] == "axis_groups", T_BATCH,
                 sizes=big)
    ratio_target("all groups of every pair of axes through meshgen_axis_groups",
                 "the nested loops by hand", lambda o: o["name"] == "pair_groups", T_BATCH,
                 sizes=big)
    note("the same through meshgen_group once per group, as before the batch call",
         lambda o: o["name"] == "pairs_by_group", "pairs_loop", big)
    rank_sets = [(k, o["min"]) for k in judged if k[0] in big
                 for o in runs[k][1] if o["name"] == "rank_groups"]
    if rank_sets:
        worst = max(ns for _, ns in rank_sets)
        target("runtime", f"one device's group along every subset of the axes, through "
               f"meshgen_group, < {T_RANK_SET_MS:g} ms ("
               + ", ".join(f"{k[0]} -O{k[1]}" for k, _ in rank_sets) + ")",
               " ".join(f"{ns / 1e6:.2f}" for _, ns in rank_sets) + f" ms; worst {worst / 1e6:.2f} ms",
               worst < T_RANK_SET_MS * 1e6)
    batch_sets = [(k, o["min"]) for k in judged if k[0] in big
                  for o in runs[k][1] if o["name"] == "rank_groups_batch"]
    if batch_sets:
        print("NOTE  every group of every subset of the axes through meshgen_axis_groups: "
              + ", ".join(f"{ns / 1e6:.1f} ms ({k[0]} -O{k[1]})" for k, ns in batch_sets))
    ratio_target("meshgen_group_index (last axis)", "device -> coords by hand (radix_of)",
                 lambda o: o["name"].startswith("meshgen_group_index("), T_LOOKUP,
                 sizes=old_meshes)
    ratio_target("meshgen_shard", "device -> coords by hand (radix_of)",
                 lambda o: o["name"] == "meshgen_shard", T_LOOKUP, sizes=old_meshes)


# ---- 4. table size --------------------------------------------------------------------

DESC_STRING = re.compile(r'\.(?:pci|vendor|model|uuid|cpuset) = "((?:[^"\\]|\\.)*)"')


def table_size(cfg, out, tmp, sizeof_info):
    """Sizes of one generated mesh: the .c, and the compiled object's
    read-only data split by table."""
    cfile = next(os.path.join(out, f) for f in os.listdir(out) if f.endswith("_mesh.c"))
    hfile = cfile[:-1] + "h"
    obj = os.path.join(tmp, os.path.basename(cfile) + ".o")
    subprocess.run([cfg["cc"], "-O2", "-std=c11", "-I", cfg["runtime_include"], "-I", out,
                    "-c", cfile, "-o", obj], check=True)
    with open(hfile) as f:
        header = f.read()
    with open(cfile) as f:
        source = f.read()
    hosts = int(re.search(r"_MESH_HOSTS (\d+)", header).group(1))
    devices = int(re.search(r"_MESH_INVENTORY_DEVICES (\d+)", header).group(1))
    sections = {}
    for line in subprocess.run(["size", "-A", obj], check=True, stdout=subprocess.PIPE,
                               text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith("."):
            sections[parts[0]] = int(parts[1])
    const = sum(v for k, v in sections.items()
                if k.startswith(".rodata") or k.startswith(".data.rel.ro"))
    rodata = sum(v for k, v in sections.items() if k.startswith(".rodata"))
    symbols = {}
    for line in subprocess.run(["nm", "-S", obj], check=True, stdout=subprocess.PIPE,
                               text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            symbols[parts[3]] = int(parts[1], 16)
    templates = sum(v for k, v in symbols.items() if re.search(r"_template\d+$", k))
    host_table = sum(v for k, v in symbols.items() if k.endswith("_hosts"))
    per_device = sum(v for k, v in symbols.items()
                     if re.search(r"_(mesh_devices|device_index|process_devices|groups_\w+)$", k))
    strings = sum(len(s) + 1 for s in set(DESC_STRING.findall(source)))
    one_line = devices * sizeof_info  # one meshgen_device_info per device; strings as now
    return {"hosts": hosts, "devices": devices, "c_bytes": len(source.encode()),
            "const": const, "rodata": rodata, "relro": const - rodata,
            "templates": templates, "host_table": host_table, "per_device": per_device,
            "strings": strings, "one_line_desc": one_line,
            "one_line_const": const - templates + one_line}


def bench_tables(cfg, gen_results, tmp):
    print("\n== 4. generated tables: emitted C and compiled read-only data (cc -O2)")
    load_line("at the start")
    sizes = subprocess.run([cfg["bench_lookup"], "--sizes"], stdout=subprocess.PIPE, text=True)
    sizeof_info = int(re.search(r"sizeof_device_info (\d+)", sizes.stdout).group(1))
    cols = []
    for key, name in (("h64", "64 hosts"), ("h4096", "4096 hosts")):
        res = gen_results.get(key)
        if res is None or res["broken"]:
            continue
        try:
            cols.append((name, table_size(cfg, res["out"], tmp, sizeof_info)))
        except (subprocess.CalledProcessError, AttributeError, StopIteration) as e:
            fail(f"table size of {name}: {e}")
    if not cols:
        return

    def row(label, fn):
        print(f"{label:<52}" + "".join(f"{fn(t):>16}" for _, t in cols))

    print(f"{'':<52}" + "".join(f"{n:>16}" for n, _ in cols))
    row("hosts / devices", lambda t: f"{t['hosts']} / {t['devices']}")
    row("emitted .c, bytes", lambda t: f"{t['c_bytes']:,}")
    row("  per device", lambda t: f"{t['c_bytes'] / t['devices']:.1f}")
    row("object read-only data (.rodata* + .data.rel.ro*)", lambda t: f"{t['const']:,}")
    row("  per device", lambda t: f"{t['const'] / t['devices']:.1f}")
    row("  device descriptions (host templates)", lambda t: f"{t['templates']:,}")
    row("  their strings (pci, model, uuid, cpuset)", lambda t: f"{t['strings']:,}")
    row("  host table", lambda t: f"{t['host_table']:,}")
    row("  per-device index tables (mesh, index, process...)", lambda t: f"{t['per_device']:,}")
    row(f"one line per device: devices x {sizeof_info} B + strings",
        lambda t: f"{t['one_line_desc'] + t['strings']:,}")
    row("read-only data with one line per device", lambda t: f"{t['one_line_const']:,}")
    row("  per device", lambda t: f"{t['one_line_const'] / t['devices']:.1f}")
    row("as emitted / one line per device", lambda t: f"{t['const'] / t['one_line_const']:.2f}")
    print()
    t = dict(cols)
    if "64 hosts" in t and "4096 hosts" in t:
        a, b = t["64 hosts"], t["4096 hosts"]
        target("tables", "device descriptions stored once per topology: template bytes "
               "(4096 hosts) == (64 hosts)", f"{b['templates']:,} vs {a['templates']:,} B",
               b["templates"] == a["templates"])
        pa, pb = a["const"] / a["devices"], b["const"] / b["devices"]
        target("tables", "read-only bytes per device do not grow with hosts: 4096 <= 64",
               f"{pb:.1f} vs {pa:.1f} B/device", pb <= pa)
    if "4096 hosts" in t:
        b = t["4096 hosts"]
        x = b["const"] / b["one_line_const"]
        target("tables", f"4096-host read-only data <= {T_TABLE_VS_LINES:.2f}x one line per device",
               f"{b['const']:,} vs {b['one_line_const']:,} B = {x:.2f}x", x <= T_TABLE_VS_LINES)


# ---- main -------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(SOURCE, "build"),
                    help="the CMake build directory (default: build)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="interleaved rounds of the generator runs (default 31, --quick 5; "
                         f"at scale 3; never fewer than {MIN_RUNS})")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions: a smoke run")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections to run: " + ", ".join(SECTIONS) +
                         " (lookups at 1k need generator, at 1M scale)")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if not only <= set(SECTIONS):
        ap.error(f"--only takes {', '.join(SECTIONS)}")
    rounds = args.rounds or (5 if args.quick else 31)
    scale_rounds = MIN_RUNS
    cfg_path = os.path.join(args.build, "bench", "bench_config.json")
    try:
        with open(cfg_path) as f:
            cfg = json.load(f)
    except OSError as e:
        print(f"run_bench: {e}: configure and build with MESHGEN_BUILD_BENCH=ON first "
              f"(make bench does)", file=sys.stderr)
        return 2
    if cfg.get("sanitize", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
        print("run_bench: warning: a sanitizer build; its timings mean little", file=sys.stderr)
    start = time.perf_counter()
    print(f"meshgen benchmarks: {cfg['meshgen']} ({cfg['build_type']}), {os.cpu_count()} CPUs")
    load_start = load_line("at the start of the run")
    with tempfile.TemporaryDirectory(prefix="meshgen-bench-") as tmp:
        gen_results = bench_generator(cfg, tmp, rounds) if "generator" in only else {}
        scale_results = bench_scale(cfg, tmp, scale_rounds) if "scale" in only else {}
        if "lookups" in only:
            bench_lookup(cfg, tmp, gen_results, scale_results, args.quick)
        if "tables" in only:
            bench_tables(cfg, gen_results, tmp)

    print()
    load_end = load_line("at the end of the run")
    print(f"\n== targets ({time.perf_counter() - start:.1f} s, load average {load_start:.2f} at "
          f"the start, {load_end:.2f} at the end; judged on minimums; benchmarks report, they "
          f"do not gate)")
    for section, text, measured, ok in targets:
        print(f"{'PASS' if ok else 'FAIL'}  [{section}] {text}: {measured}")
    print(f"{sum(1 for t in targets if t[3])} of {len(targets)} targets pass")
    if failures:
        print(f"\n{len(failures)} benchmark run(s) crashed or failed:", file=sys.stderr)
        for f in failures:
            print(f"  {f[:300]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
