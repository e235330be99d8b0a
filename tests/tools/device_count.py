#!/usr/bin/env python3
"""inventory-device-count for hosts that each have a snapshot of their own
(`topology: snap/{host}.xml`; tests/cases/inventory_device_count.yaml covers
a synthetic topology): 1025 hosts of 8192 devices, every snapshot a link to
one exported file, are 8396800 devices, one group past the limit of
8388608, and are refused with the real sum; 1024 of them are accepted.

    device_count.py MESHGEN
"""
import os
import subprocess
import sys
import tempfile


def main():
    meshgen = os.path.abspath(sys.argv[1])
    fails = []
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([meshgen, "inventory", "--inventory", "synthetic:pack:8 core:1024 pu:1",
                            "--export", "big.xml"], cwd=d, capture_output=True, timeout=300)
        if p.returncode != 0:
            sys.exit(f"export failed: {p.stderr!r}")
        os.mkdir(os.path.join(d, "snap"))
        for i in range(1, 1026):
            os.symlink("../big.xml", os.path.join(d, "snap", f"h{i}.xml"))
        for hosts, code, want in (
                (1025, 1, "1025 hosts with 8396800 devices in all make 8396800 devices in the "
                          "inventory up to here, expected at most 8388608 of any one kind "
                          "[inventory-device-count]"),
                (1024, 0, "")):
            with open(os.path.join(d, "inv.yaml"), "w") as f:
                f.write(f"meshgen-inventory: 1\nhosts:\n  - names: h[1-{hosts}]\n"
                        "    topology: snap/{host}.xml\n")
            p = subprocess.run([meshgen, "validate", "inv.yaml"], cwd=d, capture_output=True,
                               text=True, timeout=300)
            if p.returncode != code or want not in p.stderr or \
                    (code == 0 and "inventory-device-count" in p.stderr):
                fails.append(f"{hosts} hosts: exit {p.returncode}, expected {code}: "
                             f"{p.stderr[-400:]!r}")
    for f in fails:
        print("FAIL:", f)
    print(f"device_count: {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
