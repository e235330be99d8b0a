#!/usr/bin/python3
"""meshgen benchmarks: `make bench` runs this (bench/README.md says why each
baseline and target is what it is).

  1. generator: whole `meshgen validate` / `meshgen generate` runs on a
     64-host, a 4096-host and a one-host mesh, against hwloc's own tool
     loading the same topology file once;
  2. runtime: ns per lookup (bench_lookup, built against tables generated at
     build time), against hand-written table reads, and the number of
     allocations during the lookups;
  3. tables: bytes of the emitted C and of the compiled object's read-only
     data, against one line per device.

Every measured run is interleaved with its baseline in the same invocation
and medians are reported, so load from other work on the machine affects
both. Benchmarks report: each target prints PASS or FAIL, and the exit status
is 0 unless something crashed or failed to run.

    /usr/bin/python3 bench/run_bench.py [--build DIR] [--rounds N] [--quick]
"""
import argparse
import json
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

# Targets (bench/README.md justifies them). Ratios are medians against the
# baseline of the same run.
T_VALIDATE_64 = 3.0      # validate(64 hosts) wall time <= 3x one hwloc load
T_VALIDATE_4096 = 10.0   # validate(4096 hosts) wall time <= 10x one hwloc load
T_VALIDATE_1 = 3.0       # validate(one host, 326 KB XML) <= 3x one hwloc load
T_GENERATE_64 = 3.0      # generate: the same bounds as validate
T_GENERATE_4096 = 10.0
T_RSS_64 = 2.0           # peak RSS <= 2x hwloc's for 64 hosts and for one host
T_RSS_4096 = 4.0         # peak RSS <= 4x hwloc's for 4096 hosts
T_LOOKUP = 4.0           # a one-answer lookup <= 4x its hand-written equivalent
T_GROUP_PER_MEMBER = 2.0  # group(tp) <= 2x hand-written device->coords per member
T_TABLE_VS_LINES = 1 / 3  # 4096-host const data <= 1/3 of one line per device

failures = []   # things that crashed or failed to run: exit status 1
targets = []    # (section, text, measured, ok)


def fail(what):
    failures.append(what)
    print(f"ERROR: {what}", file=sys.stderr)


def target(section, text, measured, ok):
    targets.append((section, text, measured, ok))
    print(f"TARGET {text}: {measured}  {'PASS' if ok else 'FAIL'}")


# ---- running a program: wall time, CPU time and peak RSS of that one child -------

def spawn(launcher, argv, outfile, errfile):
    """Runs argv through bench_spawn (stdout to /dev/null, stderr to
    errfile); returns (exit code, wall s, cpu s, peak RSS KiB) of the command
    itself, as the launcher measured them (bench_spawn.c says why there)."""
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, outfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               (os.POSIX_SPAWN_OPEN, 2, errfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    pid = os.posix_spawn(launcher, [launcher] + argv, os.environ, file_actions=actions)
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
    """One command measured repeatedly."""

    def __init__(self, case, label, argv):
        self.case, self.label, self.argv = case, label, argv
        self.wall, self.cpu, self.rss = [], [], []
        self.broken = False

    def run(self, launcher, tmp, record=True):
        if self.broken:
            return
        errfile = os.path.join(tmp, "stderr.txt")
        code, wall, cpu, rss = spawn(launcher, self.argv, os.path.join(tmp, "spawn.txt"), errfile)
        if code != 0:
            self.broken = True
            with open(errfile, errors="replace") as f:
                err = f.read().strip()
            fail(f"{' '.join(self.argv)} exited with {code}: {err[-2000:]}")
            return
        if record:
            self.wall.append(wall)
            self.cpu.append(cpu)
            self.rss.append(rss)

    def med(self, what):
        values = getattr(self, what)
        return statistics.median(values) if values else float("nan")


# ---- inputs ---------------------------------------------------------------------------

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


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def make_cases(tmp):
    os.makedirs(os.path.join(tmp, "topology"))
    for src in ("configs/inventories/hwloc/nvidiaDGX2.xml",
                "tests/data/hwloc/192em64t-24n8c2t.xml"):
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
    print(f"\n== 1. generator: whole command-line runs, median of {rounds} interleaved rounds")
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
                Job(key, "meshgen generate", [meshgen, "generate", spec, "-o", out])]
        by_case[key] = (title, trio, out)
        jobs.extend(trio)
    launcher = cfg["bench_spawn"]
    for job in jobs:  # warm-up: page cache, dynamic loader; not recorded
        job.run(launcher, tmp, record=False)
    for r in range(rounds):
        order = list(jobs)
        random.Random(r).shuffle(order)  # no command always runs after the same one
        for job in order:
            job.run(launcher, tmp)

    print(f"process start floor (/bin/true): "
          f"{floor.med('wall') * 1e3:.2f} ms wall, {floor.med('rss') / 1024:.1f} MiB")
    head = f"{'command':<50} {'wall ms':>9} {'x base':>7} {'cpu ms':>8} {'x base':>7} " \
           f"{'peak MiB':>9} {'x base':>7}"
    results = {}
    for key, (title, trio, out) in by_case.items():
        print(f"\n{title}")
        print(head)
        base = trio[0]
        for job in trio:
            w, c, m = job.med("wall"), job.med("cpu"), job.med("rss")
            print(f"{job.label:<50} {w * 1e3:9.2f} {w / base.med('wall'):6.2f}x "
                  f"{c * 1e3:8.2f} {c / base.med('cpu'):6.2f}x "
                  f"{m / 1024:9.1f} {m / base.med('rss'):6.2f}x")
        results[key] = {
            "out": out,
            "broken": any(j.broken for j in trio),
            "base_ms": base.med("wall") * 1e3,
            "validate_ms": trio[1].med("wall") * 1e3,
            "generate_ms": trio[2].med("wall") * 1e3,
            "validate_x": trio[1].med("wall") / base.med("wall"),
            "validate_cpu_x": trio[1].med("cpu") / base.med("cpu"),
            "generate_cpu_x": trio[2].med("cpu") / base.med("cpu"),
            "generate_x": trio[2].med("wall") / base.med("wall"),
            "validate_rss_x": trio[1].med("rss") / base.med("rss"),
            "generate_rss_x": trio[2].med("rss") / base.med("rss"),
            "validate_rss_mib": trio[1].med("rss") / 1024,
            "generate_rss_mib": trio[2].med("rss") / 1024,
        }
    print()

    def check(key, name, what, limit):
        res = results.get(key)
        if res is None or res["broken"]:
            return
        ms = res[what + "_ms"]
        x = res[what + "_x"]
        target("generator", f"{what}({name}) wall <= {limit:g}x one hwloc load",
               f"{ms:.1f} ms = {x:.2f}x (CPU time {res[what + '_cpu_x']:.2f}x)", x <= limit)

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


# ---- 2. runtime lookups ---------------------------------------------------------------

LOOKUP_LABELS = {
    "read": "baseline: mesh->mesh_devices[i]",
    "radix_at": "baseline: coords -> device by hand",
    "radix_of": "baseline: device -> coords by hand",
}


def bench_lookup(cfg, quick):
    print("\n== 2. runtime lookups: fsdp_tp (64 hosts, 1024 GPUs, tables generated at build time)")
    argv = [cfg["bench_lookup"]] + (["--reps", "31"] if quick else [])
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(argv)} exited with {proc.returncode}: {proc.stderr.strip()}")
        return
    info, ops = {}, []
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "op":
            ops.append({"name": parts[1], "base": parts[2], "median": float(parts[3]),
                        "min": float(parts[4]), "max": float(parts[5]), "calls": int(parts[6])})
        elif len(parts) == 2:
            info[parts[0]] = parts[1]
    med = {o["name"]: o["median"] for o in ops}
    print(f"{info.get('devices')} devices, median of {info.get('reps')} interleaved batches "
          f"per operation; every device once per pass")
    print(f"{'operation':<40} {'ns/call':>8} {'min':>7} {'x read':>8} {'x by hand':>10}  by hand")
    for o in ops:
        label = LOOKUP_LABELS.get(o["name"], o["name"])
        line = f"{label:<40} {o['median']:8.2f} {o['min']:7.2f} {o['median'] / med['read']:7.1f}x"
        if o["base"] != "-":
            line += f" {o['median'] / med[o['base']]:9.2f}x  {o['base']}"
        print(line)
    calls = int(info.get("calls_counted", "0"))
    mallocs = info.get("malloc_calls", "unmeasured")
    selftest = info.get("malloc_selftest")
    print(f"allocations during {calls:,} measured calls: {mallocs}"
          + (f" (the counter's self-test saw {selftest} of 1 deliberate malloc)"
             if selftest is not None else " (no counter in this build)"))
    print()
    if mallocs != "unmeasured":
        target("runtime", "no allocation at run time (malloc/calloc/realloc calls during lookups)",
               f"{mallocs} in {calls:,} calls", mallocs == "0" and selftest == "1")
    for name in ("meshgen_device_at", "meshgen_coords_of", "meshgen_group_index(tp)",
                 "meshgen_shard"):
        o = next(o for o in ops if o["name"] == name)
        x = o["median"] / med[o["base"]]
        target("runtime", f"{name} <= {T_LOOKUP:g}x by hand ({o['base']})",
               f"{o['median']:.1f} ns = {x:.2f}x", x <= T_LOOKUP)
    size = 8  # FSDP_TP_AXIS_tp_SIZE
    x = med["meshgen_group(tp)"] / (size * med["radix_of"])
    target("runtime", f"meshgen_group(tp) <= {T_GROUP_PER_MEMBER:g}x radix_of per member "
           f"({size} members)", f"{med['meshgen_group(tp)'] / size:.1f} ns/member = {x:.2f}x",
           x <= T_GROUP_PER_MEMBER)


# ---- 3. table size --------------------------------------------------------------------

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
    print("\n== 3. generated tables: emitted C and compiled read-only data (cc -O2)")
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
                    help="interleaved rounds of the generator runs (default 31, --quick 5)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions: a smoke run")
    args = ap.parse_args()
    rounds = args.rounds or (5 if args.quick else 31)
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
    print(f"meshgen benchmarks: {cfg['meshgen']} ({cfg['build_type']}), "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="meshgen-bench-") as tmp:
        gen_results = bench_generator(cfg, tmp, rounds)
        bench_lookup(cfg, args.quick)
        bench_tables(cfg, gen_results, tmp)

    print(f"\n== targets ({time.perf_counter() - start:.1f} s, load average "
          f"{os.getloadavg()[0]:.2f}; benchmarks report, they do not gate)")
    for section, text, measured, ok in targets:
        print(f"{'PASS' if ok else 'FAIL'}  [{section}] {text}: {measured}")
    if failures:
        print(f"\n{len(failures)} benchmark run(s) crashed or failed:", file=sys.stderr)
        for f in failures:
            print(f"  {f[:300]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
