#!/usr/bin/env python3
"""`meshgen inventory --export FILE`: the snapshot must read back as the same
inventory, and two exports of one source must be byte-identical.

For this machine (live), a shared real export and a synthetic description:
export twice, compare the bytes, then check that `meshgen resolve` gives the
same JSON from the snapshot as from the source (the JSON names devices,
hosts and a digest of both, so any difference in what was extracted shows).
The snapshot keeps HostName and drops what describes the exporting process
(ProcessName, LinuxCgroup). Then the error paths: an inventory YAML, an
unwritable path, --export on another command.

usage: export_roundtrip.py MESHGEN HWLOC_DATA_DIR
"""

import os
import sys

import mgtest

T = mgtest.Checks("export_roundtrip")


def run(meshgen, *args):
    return mgtest.meshgen(meshgen, *args, text=True)


def expect(cond, what):
    """Each step needs the one before it: the first failure ends the test."""
    if not T.check(cond, what):
        T.exit()


def resolve(meshgen, source):
    # A one-axis mesh over every device of the default kind (GPUs if any).
    r = run(meshgen, "resolve", "--mesh", "x:-1", "--inventory", source)
    expect(r.returncode == 0, f"resolve --inventory {source} failed: {r.stderr}")
    return r.stdout


def roundtrip(meshgen, tmp, source, label):
    paths = [os.path.join(tmp, f"{label}-{i}.xml") for i in (1, 2)]
    for path in paths:
        args = ["inventory", "--export", path]
        if source != "live":
            args += ["--inventory", source]
        r = run(meshgen, *args)
        expect(r.returncode == 0 and r.stdout == "" and r.stderr == "",
               f"export of {label} failed ({r.returncode}): {r.stderr}")
    first, second = mgtest.read(paths[0]), mgtest.read(paths[1])
    expect(first == second, f"two exports of {label} differ")
    text = first.decode("utf-8")
    expect(text.startswith("<?xml"), f"export of {label} is not XML")
    expect('name="HostName"' in text, f"export of {label} has no HostName")
    for noise in ("ProcessName", "LinuxCgroup"):
        expect(noise not in text, f"export of {label} still has {noise}")
    expect(resolve(meshgen, source) == resolve(meshgen, paths[0]),
           f"{label}: the snapshot resolves differently from its source")


def main():
    meshgen, data = sys.argv[1], sys.argv[2]
    with mgtest.tempdir("export") as tmp:
        roundtrip(meshgen, tmp, "live", "live")
        # Its original has a ProcessName and a batch job's LinuxCgroup.
        roundtrip(meshgen, tmp, os.path.join(data, "power8gpudistances.xml"), "power8")
        # No HostName of its own: the snapshot must keep "localhost".
        roundtrip(meshgen, tmp, "synthetic:pack:2 numa:2 core:4 pu:2", "synthetic")

        # An existing file is replaced whole, and no lock file is left.
        target = mgtest.write(os.path.join(tmp, "live-1.xml"), "old")
        expect(run(meshgen, "inventory", "--export", target).returncode == 0,
               "export over an existing file failed")
        expect(mgtest.read(target) == mgtest.read(os.path.join(tmp, "live-2.xml")),
               "export over an existing file differs")
        expect(not mgtest.locks(tmp), f"lock files left behind: {mgtest.locks(tmp)}")

        yaml_path = mgtest.write(os.path.join(tmp, "hosts.yaml"),
                                 "meshgen-inventory: 1\nhosts: []\n")
        r = run(meshgen, "inventory", "--inventory", yaml_path, "--export",
                os.path.join(tmp, "x.xml"))
        expect(r.returncode == 1 and "[inventory-export]" in r.stderr,
               f"exporting an inventory YAML: {r.returncode} {r.stderr}")
        r = run(meshgen, "inventory", "--export", os.path.join(tmp, "no", "such", "dir.xml"))
        expect(r.returncode == 2 and "cannot write" in r.stderr,
               f"exporting to a missing directory: {r.returncode} {r.stderr}")
        r = run(meshgen, "resolve", "--mesh", "x:2", "--export", os.path.join(tmp, "y.xml"))
        expect(r.returncode == 2 and "--export" in r.stderr,
               f"--export on resolve: {r.returncode} {r.stderr}")
        expect(not os.path.exists(os.path.join(tmp, "x.xml"))
               and not os.path.exists(os.path.join(tmp, "y.xml")),
               "a failed export wrote a file")
    T.exit()


if __name__ == "__main__":
    main()
