#!/usr/bin/env python3
"""cli.jax_order: meshgen's device order is JAX's, on shuffled inventories.

Usage: jax_order.py MESHGEN

Builds inventories whose host names are in no sorted order (random names,
hostlists written out of order, slices interleaved), resolves a mesh on each
and compares it with the mesh that JAX's create_hybrid_device_mesh gives,
computed here from JAX's documented semantics, not from meshgen's code:

- jax.devices() lists process 0's devices first, then process 1's, ...; the
  process index of a host is its place in the inventory (docs/reference.md,
  "Semantics"); a slice's slice_index is the order of its first process;
- `devices: N` is devices[:N];
- create_hybrid_device_mesh(ici, dcn, devices, process_is_granule) groups the
  devices by process_index (host granules) or slice_index (slices), sorted by
  that key, reshapes each granule's devices to the ICI shape (the order of
  create_device_mesh for non-TPU devices) and lays the granules out with
  np.block over the DCN shape: DCN is the outer factor on every axis;
- without `dcn`, eformer's create_mesh: for slices, all slices on the first
  axis the slice count divides; for hosts, calculate_host_mesh_shape.

Every case is printed on failure with the inventory and the spec.
"""
import json
import os
import random
import sys

import mgtest


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def unravel(f, shape):
    coords = []
    for s in reversed(shape):
        coords.append(f % s)
        f //= s
    return coords[::-1]


def ravel(coords, shape):
    f = 0
    for c, s in zip(coords, shape):
        f = f * s + c
    return f


def hybrid_mesh(granules, ici, dcn):
    """np.block of per-granule meshes (reshape to ici) arranged by dcn."""
    shape = [i * d for i, d in zip(ici, dcn)]
    out = []
    for f in range(prod(shape)):
        c = unravel(f, shape)
        g = ravel([x // i for x, i in zip(c, ici)], dcn)
        local = ravel([x % i for x, i in zip(c, ici)], ici)
        out.append(granules[g][local])
    return out


def eformer_dcn(shape, n_granules, slices):
    """dcn as eformer's create_mesh infers it, or None when it cannot."""
    if slices:
        for i, s in enumerate(shape):
            if s % n_granules == 0:
                return [n_granules if j == i else 1 for j in range(len(shape))]
        return None
    host, left = list(shape), n_granules
    for i, s in enumerate(shape):
        if left <= 1:
            break
        if s >= left:
            if s % left:
                return None
            host[i], left = s // left, 1
        else:
            host[i], left = 1, left // s
    dcn = [s // h for s, h in zip(shape, host)]
    return dcn if prod(dcn) == n_granules else None


def split(n, k, rng):
    """n as a product of k factors, prime factors dealt at random."""
    out, p, m = [1] * k, 2, n
    while m > 1:
        while m % p == 0:
            out[rng.randrange(k)] *= p
            m //= p
        p += 1
    return out


def jax_granules(case):
    """The granules of create_hybrid_device_mesh over devices[:N], sorted by
    key, and each host's granule index (None: no device in the mesh)."""
    hosts, per_host, slices = case["hosts"], case["per_host"], case["slices"]
    devices = []  # (id, process_index, slice_index)
    slice_index = {}
    for k, _ in enumerate(hosts):
        if slices and slices[k] not in slice_index:
            slice_index[slices[k]] = len(slice_index)
        for _ in range(per_host):
            devices.append((len(devices), k, slice_index[slices[k]] if slices else None))
    used = devices[: case.get("devices", len(devices))]
    groups = {}
    for d in used:
        groups.setdefault(d[2] if slices else d[1], []).append(d[0])
    keys = sorted(groups)
    host_keys = [slice_index[slices[k]] if slices else k for k in range(len(hosts))]
    host_granule = [keys.index(key) if key in groups else None for key in host_keys]
    return [groups[key] for key in keys], host_granule


def expected(case):
    """(mesh, host_granule) as JAX would have them, or (None, check)."""
    granules, host_granule = jax_granules(case)
    if len({len(g) for g in granules}) != 1:
        return None, "devices-granules" if "devices" in case else "granules-homogeneous"
    dcn = case.get("dcn") or eformer_dcn(case["shape"], len(granules), bool(case["slices"]))
    if dcn is None:
        return None, "dcn-infer"
    ici = [s // d for s, d in zip(case["shape"], dcn)]
    return hybrid_mesh(granules, ici, dcn), host_granule


def make_case(rng):
    n_hosts = rng.choice([1, 2, 3, 4, 6, 8])
    per_host = rng.choice([1, 2, 4])
    names = set()
    while len(names) < n_hosts:
        names.add(rng.choice(["n", "gpu", "node-"]) + str(rng.randrange(1, 200)))
    hosts = list(names)
    rng.shuffle(hosts)
    slices = None
    n_slices = [d for d in range(2, n_hosts + 1) if n_hosts % d == 0 and d < n_hosts]
    if n_slices and rng.random() < 0.4:
        k = rng.choice(n_slices)
        labels = ["rack%d" % rng.randrange(100) for _ in range(k)]
        while len(set(labels)) < k:
            labels = ["rack%d" % rng.randrange(100) for _ in range(k)]
        slices = [labels[i % k] for i in range(n_hosts)]
        rng.shuffle(slices)
    case = {"hosts": hosts, "per_host": per_host, "slices": slices}
    total = n_hosts * per_host
    if rng.random() < 0.3:
        case["devices"] = rng.randrange(1, total + 1)
    n = case.get("devices", total)
    n_axes = rng.choice([1, 2, 3])
    granules = jax_granules(case)[0]
    if len({len(g) for g in granules}) != 1:
        granules = [n]  # an error case: any shape of n devices
    granules = len(granules)
    dcn = split(granules, n_axes, rng)
    ici = split(n // granules, n_axes, rng)
    case["shape"] = [i * d for i, d in zip(ici, dcn)]
    if rng.random() < 0.7:
        case["dcn"] = dcn
    return case


def inventory_yaml(case):
    lines = ["meshgen-inventory: 1", "hosts:"]
    topo = '    synthetic: "core:%d pu:1"' % case["per_host"]
    hosts, slices = case["hosts"], case["slices"]
    k = 0
    while k < len(hosts):
        # Runs of hosts of one prefix and slice become one hostlist written
        # in inventory order (n[17,3,120]), which expands as written.
        j = k + 1
        prefix = hosts[k].rstrip("0123456789")
        while (
            j < len(hosts)
            and hosts[j].rstrip("0123456789") == prefix
            and (not slices or slices[j] == slices[k])
        ):
            j += 1
        run = hosts[k:j]
        if len(run) == 1:
            lines.append("  - names: %s" % run[0])
        else:
            nums = ",".join(h[len(prefix):] for h in run)
            lines.append("  - names: %s[%s]" % (prefix, nums))
        lines.append(topo)
        if slices:
            lines.append("    slice: %s" % slices[k])
        k = j
    return "\n".join(lines) + "\n"


def spec_yaml(case):
    n = len(case["shape"])
    axes = ["a%d" % i for i in range(n)]
    lines = [
        "meshgen: 1",
        "name: jax_order",
        "inventory: inv.yaml",
        "mesh:",
        "  axes: [%s]" % ", ".join(axes),
        "  shape: [%s]" % ", ".join(map(str, case["shape"])),
        "  device_kind: core",
        "  order: inventory",
    ]
    if case.get("dcn"):
        lines.append("  dcn: [%s]" % ", ".join(map(str, case["dcn"])))
    if "devices" in case:
        lines.append("  devices: %d" % case["devices"])
    if case["slices"]:
        lines.append("  granule: slice")
    return "\n".join(lines) + "\n"


def run_case(meshgen, case, tmp):
    mgtest.write(os.path.join(tmp, "inv.yaml"), inventory_yaml(case))
    mgtest.write(os.path.join(tmp, "mesh.yaml"), spec_yaml(case))
    r = mgtest.meshgen(meshgen, "resolve", "mesh.yaml", cwd=tmp, text=True)
    want, info = expected(case)
    if want is None:
        if r.returncode != 1:
            return "expected an error (%s), got exit %d" % (info, r.returncode)
        if "[%s]" % info not in r.stderr:
            return "expected [%s], got: %s" % (info, r.stderr.strip())
        return None
    if r.returncode != 0:
        return "exit %d: %s" % (r.returncode, r.stderr.strip())
    got = json.loads(r.stdout)
    if got["mesh"] != want:
        return "mesh %s, JAX gives %s" % (got["mesh"], want)
    for k, p in enumerate(got["processes"]):
        if p["host"] != k:
            return "process %d is on host %d, not host %d" % (k, p["host"], k)
    for k, h in enumerate(got["hosts"]):
        if h["name"] != case["hosts"][k]:
            return "host %d is %s, the inventory's is %s" % (k, h["name"], case["hosts"][k])
        if info[k] is not None and h["granule"] != info[k]:
            return "host %d is in granule %d, JAX's is %d" % (k, h["granule"], info[k])
    return None


# The reference case of issue 14: n10, n2, n1, 2 cores each, dp:3,tp:2 with
# dcn [3, 1]: JAX gives [0..5] (sorting by name gave [4,5,2,3,0,1]).
REFERENCE = {
    "hosts": ["n10", "n2", "n1"],
    "per_host": 2,
    "slices": None,
    "shape": [3, 2],
    "dcn": [3, 1],
}


def main():
    meshgen = sys.argv[1]
    rng = random.Random(14)
    cases = [REFERENCE] + [make_case(rng) for _ in range(150)]
    assert expected(REFERENCE)[0] == [0, 1, 2, 3, 4, 5]
    checks = mgtest.Checks("jax_order")
    errors_seen = 0
    with mgtest.tempdir("jax-order") as tmp:
        for i, case in enumerate(cases):
            if expected(case)[0] is None:
                errors_seen += 1
            why = run_case(meshgen, case, tmp)
            checks.check(not why, "case %d: %s\n%s%s" % (i, why, inventory_yaml(case),
                                                       spec_yaml(case)))
    return checks.done("%d cases (%d expected errors)" % (len(cases), errors_seen))


if __name__ == "__main__":
    sys.exit(main())
