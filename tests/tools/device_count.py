#!/usr/bin/env python3
"""Device counts past MG_MAX_DEVICES (8388608) for hosts that each have a
snapshot of their own (`topology: snap/{host}.xml`, every snapshot a link
to one exported file of 8 packages, 8192 cores and PUs, one NUMA node;
tests/cases/inventory_device_count.yaml covers a synthetic topology refused
from its description before it is built):

- 1025 hosts hold 8396800 cores: the inventory still loads (its NUMA nodes
  and packages are within the limit, so a mesh could use it: the load
  refuses only an inventory with no kind in reach), a mesh of cores is
  refused by device-kind-available with the real count, and a mesh of
  packages over the same inventory is accepted;
- 1024 hosts (8388608 cores, the limit itself) give a mesh of cores no
  device-kind-available error.

Also an inventory of many host groups: 100000 single-chip TPU slices, each
its own group, are checked at once (each group compared with every earlier
one for tpu-slice took 68 s of CPU here; a timeout far above the fixed run
shows it), and one slice named twice is still found.

    device_count.py MESHGEN
"""
import os
import sys

import mgtest


def main():
    meshgen = os.path.abspath(sys.argv[1])
    t = mgtest.Checks("device_count")
    with mgtest.tempdir("device-count") as d:
        p = mgtest.meshgen(meshgen, "inventory", "--inventory", "synthetic:pack:8 core:1024 pu:1",
                           "--export", "big.xml", cwd=d, timeout=300)
        if p.returncode != 0:
            mgtest.die(f"export failed: {p.stderr!r}")
        os.mkdir(os.path.join(d, "snap"))
        for i in range(1, 1026):
            os.symlink("../big.xml", os.path.join(d, "snap", f"h{i}.xml"))

        def run(hosts, kind):
            mgtest.write(os.path.join(d, "inv.yaml"),
                         f"meshgen-inventory: 1\nhosts:\n  - names: h[1-{hosts}]\n"
                         "    topology: snap/{host}.xml\n")
            mgtest.write(os.path.join(d, "mesh.yaml"),
                         f"meshgen: 1\nname: big\ninventory: inv.yaml\nmesh:\n"
                         f"  device_kind: {kind}\n  axes: [dp]\n  shape: [-1]\n")
            return mgtest.meshgen(meshgen, "validate", "inv.yaml" if kind is None else "mesh.yaml",
                                  cwd=d, text=True, timeout=300)

        for hosts, kind, code, want, unwanted in (
                (1025, None, 0, "", "inventory-device-count"),
                (1025, "core", 1, "mesh.yaml:5:16: error: the inventory has 8396800 core devices; "
                                  "meshgen handles at most 8388608 [device-kind-available]",
                 "inventory-device-count"),
                (1025, "package", 0, "", "error"),
                (1024, "core", 0, "", "device-kind-available")):
            p = run(hosts, kind)
            t.check(p.returncode == code and want in p.stderr and unwanted not in p.stderr,
                    f"{hosts} hosts, kind {kind}: exit {p.returncode}, expected {code}: "
                    f"{p.stderr[-400:]!r}")
        with open(os.path.join(d, "pod.yaml"), "w") as f:
            f.write("meshgen-inventory: 1\nhosts:\n")
            for i in range(100000):
                f.write(f"  - {{names: t{i}, tpu: v5e, topology: 1x1, slice: {'x' * 60}{i}}}\n")
            f.write(f"  - {{names: again, tpu: v5e, topology: 1x1, slice: {'x' * 60}7}}\n")
        p = mgtest.meshgen(meshgen, "validate", "pod.yaml", cwd=d, text=True, timeout=60)
        t.check(p.returncode == 1 and "of hosts[7] again" in p.stderr
                and p.stderr.count("[tpu-slice]") == 1,
                f"100001 TPU groups: exit {p.returncode} (no answer in 60 s is 'hung'): "
                f"{p.stderr[-400:]!r}")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
