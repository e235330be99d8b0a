#!/usr/bin/env python3
"""`meshgen verify` against drifted copies of a shipped hwloc export (test cli.verify).

Usage: verify_check.py MESHGEN DATA_DIR [AGREE]

The inventory is one host, drac-12, whose snapshot is a copy of
tests/data/hwloc/power8gpudistances.xml (4 NVIDIA P100s, each with its NVML
UUID; 2 NUMA nodes; 8 cores) at snap/drac-12.xml; the spec is a mesh of its
four GPUs. "This machine" is HWLOC_XMLFILE: the export itself, then a
variant of it for each kind of drift (docs/reference.md, "meshgen verify"):
- a GPU missing (its bridge, PCI device and OS devices removed);
- a GPU moved to another bus id (its UUID tells it is the same GPU);
- a GPU of another model;
- an extra GPU (a fifth, on a bus of its own);
- another core count (a core and its PUs removed).
Each must exit 1 with node-drift errors that name the GPU or the count and
point at the snapshot's line of the object that expects otherwise, with the
inventory's line of the host as the related note; the export itself must
exit 0 with nothing on stderr. Then the formats (json, sarif, github) carry
the same errors, and a machine not in the inventory is a node-host error.

AGREE (tests/e2e/verify_agree.c) is a program whose meshgen_verify checks
tables compiled from the same export; on each machine its report must be the
first difference the command reports (the two share one comparison): for
the mesh's GPUs, so another core count is no difference to it.
"""
import json
import os
import re
import shutil
import sys

import mgtest

T = mgtest.Checks("verify")
# Each run reads one small export: far below this unless it hangs.
TIMEOUT = 120


def check(name, ok, detail=""):
    T.check(ok, "%s: %s" % (name, detail))


def line_of(lines, needle, start=0):
    """The 0-based index of the first line from start that holds needle."""
    for i in range(start, len(lines)):
        if needle in lines[i]:
            return i
    raise AssertionError("no line holds %r" % needle)


def element(lines, first):
    """The lines [first, end) of the element that starts at line first."""
    indent = len(lines[first]) - len(lines[first].lstrip())
    for i in range(first + 1, len(lines)):
        if len(lines[i]) - len(lines[i].lstrip()) == indent and lines[i].strip() == "</object>":
            return first, i + 1
    raise AssertionError("element at line %d does not end" % (first + 1))


def variants(xml):
    """{name: (text of the variant, what the test expects)}."""
    lines = xml.splitlines(keepends=True)
    out = {}

    # The last GPU goes: its bridge holds its PCI device and OS devices.
    a, b = element(lines, line_of(lines, 'bridge_pci="000b:[01-01]"'))
    out["missing"] = "".join(lines[:a] + lines[b:])

    # GPU 2 moves to bus 000a:02 (bridge and device), keeping its UUID.
    out["moved"] = xml.replace('bridge_pci="000a:[01-01]"', 'bridge_pci="000a:[02-02]"').replace(
        'pci_busid="000a:01:00.0"', 'pci_busid="000a:02:00.0"')

    # GPU 1 becomes a V100: every name its backends give.
    a, b = element(lines, line_of(lines, 'bridge_pci="0003:[01-01]"'))
    block = "".join(lines[a:b]).replace("Tesla P100-SXM2-16GB", "Tesla V100-SXM2-32GB")
    out["model"] = "".join(lines[:a]) + block + "".join(lines[b:])

    # A fifth GPU: GPU 3's bridge again on domain 000c, with objects and a
    # UUID of its own.
    a, b = element(lines, line_of(lines, 'bridge_pci="000b:[01-01]"'))
    extra = "".join(lines[a:b]).replace("000b:", "000c:")
    extra = re.sub(r'gp_index="(\d+)"', lambda m: 'gp_index="%d"' % (int(m.group(1)) + 1000),
                   extra)
    extra = re.sub(r'name="(cuda|nvml)3"', r'name="\g<1>4"', extra).replace(
        'name="opencl0d3"', 'name="opencl0d4"').replace(
        "GPU-93f5db36-624e-1453-40ab-85cc675aa903", "GPU-93f5db36-624e-1453-40ab-85cc675aa904")
    out["extra"] = "".join(lines[:b]) + extra + "".join(lines[b:])

    # Core 168 (the last of NUMA node 1) and its two PUs go.
    a, b = element(lines, line_of(lines, '<object type="Core" os_index="168"'))
    out["cores"] = "".join(lines[:a] + lines[b:])
    return out


# What the program's meshgen_verify says of each machine: the return code
# and the report.
AGREE = {
    "match": "0 ",
    "missing": "-16 missing device: expected 4 gpu devices, found 3",
    "moved": "-16 device 2: PCI bus id 000a:01:00.0 expected, 000a:02:00.0 found",
    "model": "-16 device 1: model 'Tesla P100-SXM2-16GB' expected, 'Tesla V100-SXM2-32GB' found",
    "extra": "-16 extra device: expected 4 gpu devices, found 5",
    "cores": "0 ",
}


def machine_env(machine, host):
    """This process's environment with nothing of a launcher's, Slurm's,
    meshgen's or hwloc's but this machine (HWLOC_XMLFILE) and its name
    (MESHGEN_HOSTNAME, unless host is None)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM", "MESHGEN_", "HWLOC_"))}
    env["HWLOC_XMLFILE"] = machine
    if host:
        env["MESHGEN_HOSTNAME"] = host
    return env


def agree(program, machines):
    """The program's meshgen_verify on each machine, as AGREE says."""
    for name, want in AGREE.items():
        r = mgtest.run([program], text=True, env=machine_env(machines[name], "drac-12"),
                       timeout=TIMEOUT)
        check("agree." + name, r.returncode == 0 and r.stdout == want + "\n",
              "meshgen_verify said %r, not %r" % (r.stdout, want))


def run(meshgen, tmp, machine, *args, host="drac-12"):
    env = machine_env(machine, host)
    env["LC_ALL"] = "C"
    return mgtest.meshgen(meshgen, "verify", "mesh.yaml", *args, cwd=tmp, text=True, env=env,
                          timeout=TIMEOUT)


def parse_json(name, text):
    """A JSON document, or None after a failure."""
    try:
        return json.loads(text)
    except ValueError as e:
        check(name, False, "not JSON (%s): %r" % (e, text[:400]))
        return None


def errors(stderr):
    """The node-drift errors as (file, line, message), and the notes."""
    found = re.findall(r"^(\S+?):(\d+):\d+: error: (.*) \[node-drift\]$", stderr, re.M)
    notes = re.findall(r"^(\S+?):(\d+):\d+: note: (.*)$", stderr, re.M)
    return [(f, int(n), m) for f, n, m in found], notes


def expect_drift(meshgen, tmp, name, machine, xml_lines, want):
    """want: (message part, the snapshot line it must be at: a needle of
    the original export, or None for the Machine's)."""
    r = run(meshgen, tmp, machine)
    found, notes = errors(r.stderr)
    check(name + ".exit", r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr))
    check(name + ".stdout", "difference" in r.stdout and "drac-12" in r.stdout, r.stdout)
    check(name + ".notes", notes and len(notes) == len(found) and all(
        f == "inventory.yaml" and n == "4" and m == "host 'drac-12' is listed here"
        for f, n, m in notes), r.stderr)
    for part, needle in want:
        line = line_of(xml_lines, needle or '<object type="Machine"') + 1
        check(name + ": " + part, any(part in m and f == "snap/drac-12.xml" and n == line
                                      for f, n, m in found),
              "no error %r at snap/drac-12.xml:%d in:\n%s" % (part, line, r.stderr))
    return r


def main():
    meshgen, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    src = os.path.join(data, "hwloc", "power8gpudistances.xml")
    with mgtest.tempdir("verify") as tmp:
        os.mkdir(os.path.join(tmp, "snap"))
        shutil.copy(src, os.path.join(tmp, "snap", "drac-12.xml"))
        mgtest.write(os.path.join(tmp, "inventory.yaml"),
                     "meshgen-inventory: 1\n# One host, its own snapshot.\nhosts:\n"
                     "  - names: drac-12\n    topology: snap/{host}.xml\n")
        mgtest.write(os.path.join(tmp, "mesh.yaml"),
                     "meshgen: 1\nname: p8\ninventory: inventory.yaml\nmesh:\n  axes: [dp]\n"
                     "  shape: [4]\n")
        xml = mgtest.read_text(src)
        lines = xml.splitlines()
        machines = {"match": src}
        for name, text in variants(xml).items():
            machines[name] = mgtest.write(os.path.join(tmp, name + ".xml"), text)

        # The node as the inventory has it.
        r = run(meshgen, tmp, src)
        check("match", r.returncode == 0 and r.stderr == "" and r.stdout ==
              "host drac-12 matches the inventory: 4 GPUs, 2 NUMA nodes, 2 packages, 8 cores, "
              "16 PUs\n", "exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))

        expect_drift(meshgen, tmp, "missing", machines["missing"], lines, [
            ("host 'drac-12' has 4 GPUs in the inventory and 3 on this machine", None),
            ("GPU 3 (PCI bus id '000b:01:00.0', 'Tesla P100-SXM2-16GB') of host 'drac-12' is "
             "in the inventory but not on this machine", 'pci_busid="000b:01:00.0"')])
        r = expect_drift(meshgen, tmp, "moved", machines["moved"], lines, [
            ("GPU 2 of host 'drac-12': PCI bus id '000a:01:00.0' in the inventory, "
             "'000a:02:00.0' on this machine", 'pci_busid="000a:01:00.0"')])
        check("moved.only", len(errors(r.stderr)[0]) == 1, r.stderr)
        r = expect_drift(meshgen, tmp, "model", machines["model"], lines, [
            ("GPU 1 (PCI bus id '0003:01:00.0') of host 'drac-12': model "
             "'Tesla P100-SXM2-16GB' in the inventory, 'Tesla V100-SXM2-32GB' on this machine",
             'pci_busid="0003:01:00.0"')])
        check("model.only", len(errors(r.stderr)[0]) == 1, r.stderr)
        expect_drift(meshgen, tmp, "extra", machines["extra"], lines, [
            ("host 'drac-12' has 4 GPUs in the inventory and 5 on this machine", None),
            ("this machine's GPU 4 (PCI bus id '000c:01:00.0', 'Tesla P100-SXM2-16GB') is not "
             "in the inventory of host 'drac-12'", None)])
        expect_drift(meshgen, tmp, "cores", machines["cores"], lines, [
            ("host 'drac-12' has 8 cores in the inventory and 7 on this machine", None),
            ("host 'drac-12' has 16 PUs in the inventory and 14 on this machine", None)])

        # Every format carries the errors, located.
        r = run(meshgen, tmp, machines["missing"], "--format", "json")
        doc = parse_json("json", r.stderr) or {"diagnostics": []}
        drift = [x for x in doc["diagnostics"] if x.get("check") == "node-drift"]
        check("json", r.returncode == 1 and len(drift) == 2 and all(
            x["file"] == "snap/drac-12.xml" and x["line"] > 0 for x in drift), r.stderr)
        r = run(meshgen, tmp, machines["missing"], "--format", "sarif")
        doc = parse_json("sarif", r.stderr) or {"runs": [{"results": []}]}
        results = doc["runs"][0]["results"]
        check("sarif", r.returncode == 1 and len(results) == 2 and all(
            x["ruleId"] == "node-drift" for x in results), r.stderr)
        r = run(meshgen, tmp, machines["missing"], "--format", "github")
        check("github", r.returncode == 1 and r.stderr.count("::error file=snap/drac-12.xml,")
              == 2, r.stderr)

        # No host of the inventory: which names it has, and how to name this one.
        r = run(meshgen, tmp, src, host="drac-13")
        check("no_host", r.returncode == 1 and r.stdout == "" and
              "this machine's name 'drac-13' (from MESHGEN_HOSTNAME) is no host of the "
              "inventory, whose hosts are 'drac-12'" in r.stderr and "[node-host]" in r.stderr,
              r.stderr)
        r = run(meshgen, tmp, src, "--host", "DRAC-12", host=None)
        check("host_option", r.returncode == 0 and "matches" in r.stdout, r.stderr)
        if len(sys.argv) > 3:
            agree(os.path.abspath(sys.argv[3]), machines)
    return T.done("a matching node passes; a GPU missing, moved, of another model, extra, and "
                  "another core count are each found at the snapshot's line")


if __name__ == "__main__":
    sys.exit(main())
