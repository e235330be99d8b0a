#!/usr/bin/env python3
"""The pictures of `meshgen show --svg`, and the text `show` prints.

- Every mesh under configs/ draws a well-formed SVG (Python's XML parser)
  with a viewBox, a <title>, the axis labels and a legend, one square per
  device whose tooltip names the device and its host, and renders with
  rsvg-convert where it is installed (librsvg2-bin).
- --color-by: the NVLink-racks mesh has 8 hosts but 2 slices (racks); the
  pipeline mesh has 4 stages; the legend names each key once.
- A host name longer than a square is abbreviated there, and the full name
  is in the square's tooltip and the legend's.
- 1,048,576 devices (65,536 DGX-2 hosts x 16 GPUs; issue 12 measured the
  same count as 131,072 hosts x 8) draw as at most 64 x 64 blocks, not
  devices: a picture under 1 MB (it was 237 MB).
- TPU meshes (configs/ v5p-128 and the v5e multislice, a v5e 8x16 slice and
  a TPU7x slice with two cores a chip) draw each slice chip by chip below
  the grid: one plane per z, X x Y chips a plane, each labelled with the
  mesh coordinates of its devices as resolve places them, and wraparound
  links exactly along the full-size dimensions (docs/tpu.md §1); a v5p
  16x16x24 slice (6,144 chips) in at most 4096 blocks.
- Pictures of other meshes are byte for byte tests/data/svg/ (the grid
  as it was before the TPU view; MESHGEN_UPDATE_GOLDEN=1 rewrites them).
- The palette (20 hosts: every colour drawn): no two colours closer than
  CIEDE2000 18, none closer than 20 to the white background or the grey
  of an unused chip, black text on each at a WCAG contrast of 4.5:1 or
  more (Tableau 20, before, held two colours 2.6 apart).
- Legends are ordered by name as people sort them (node1, node2, node10),
  whatever order the mesh meets the hosts in; so is the text's list of
  host names.
- Past 256 hosts: 1,000 hosts are coloured in 16 runs of consecutive
  hosts, the legend naming each run's first and last host and its count;
  hosts in three slices (granule: slice) are coloured by slice instead.
  Both say so in the subtitle.
- `show --svg F | head -1`: the picture is written whole, and the reader
  going away is an I/O error (exit 2, "Broken pipe"), not a death by
  SIGPIPE.
- Text `show` of 1,048,576 devices prints 1,000 rows and a note (it
  printed 13.6 MB), a 100,000-wide axis 64 columns; the host indices of
  the cells are named below the grid.

    svg_check.py ROOT MESHGEN
"""
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import mgtest

NS = "{http://www.w3.org/2000/svg}"
T = mgtest.Checks("svg")
check = T.check


def show(meshgen, spec, svg, *options):
    r = mgtest.meshgen(meshgen, "show", "--color=never", "--svg", svg, *options,
                       *([spec] if spec else []), text=True)
    if r.returncode != 0:
        mgtest.die(f"svg: meshgen show {spec} {' '.join(options)} failed: {r.stderr}")
    return ET.parse(svg).getroot()


def legend(root):
    """The names of the legend's entries (their tooltips: the full names)."""
    g = next((e for e in root.iter(NS + "g") if e.get("class") == "legend"), None)
    if g is None:
        return None
    return [e.find(NS + "title").text for e in g.findall(NS + "g")]


def cells(root):
    """(tooltip, host label) of each device's square."""
    out = []
    for g in root.iter(NS + "g"):
        rect = g.find(NS + "rect")
        if rect is not None and rect.get("class") == "cell":
            host = next(t.text for t in g.findall(NS + "text") if t.get("class") == "host")
            out.append((g.find(NS + "title").text, host))
    return out


def check_picture(label, root, n_devices, axes):
    box = (root.get("viewBox") or "").split()
    check(len(box) == 4 and box[:2] == ["0", "0"] and box[2:] == [root.get("width"),
                                                                  root.get("height")],
          f"{label}: viewBox {box} against {root.get('width')} x {root.get('height')}")
    title = root.find(NS + "title")
    check(title is not None and all(a in title.text for a in axes),
          f"{label}: <title> {title.text if title is not None else None} names the axes")
    texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
    check(f"{axes[-1]} (columns)" in texts, f"{label}: no column axis label")
    if len(axes) > 1:
        check(",".join(axes[:-1]) in texts, f"{label}: no row axis label")
    check(bool(legend(root)), f"{label}: no legend")
    squares = cells(root)
    check(len(squares) == n_devices, f"{label}: {len(squares)} squares for {n_devices} devices")
    check(all(t.startswith("device ") and " on host " in t for t, _ in squares),
          f"{label}: squares without a device tooltip")


def test_configs(root, meshgen, tmp):
    rsvg = shutil.which("rsvg-convert")
    meshes = sorted(glob.glob(os.path.join(root, "configs/meshes/*.yaml"))
                    + glob.glob(os.path.join(root, "configs/examples/*.yaml")))
    for spec in meshes:
        name = os.path.basename(spec)
        # configs/examples/ describe "this machine": drawn on a fixed
        # synthetic one, so the picture does not depend on the machine and
        # no live discovery runs (hwloc's PCI plugin leaks under ASan).
        live = ["--inventory", "synthetic:pack:2 core:4 pu:1"] \
            if os.sep + "examples" + os.sep in spec else []
        r = mgtest.meshgen(meshgen, "resolve", spec, *live, text=True)
        resolved = json.loads(r.stdout)
        svg = os.path.join(tmp, name + ".svg")
        pic = show(meshgen, spec, svg, *live)
        hosts = {resolved["hosts"][d["host"]]["name"] for d in resolved["devices"]
                 if d["id"] in set(flatten(resolved["mesh"]))}
        check_picture(name, pic, len(flatten(resolved["mesh"])),
                      [a["name"] for a in resolved["axes"]])
        names = legend(pic)
        check(len(set(names)) == len(names) == min(32, len(hosts)) and set(names) <= hosts,
              f"{name}: legend {names}, hosts {sorted(hosts)}")
        if rsvg:
            p = mgtest.run([rsvg, svg, "-o", svg + ".png"], text=True)
            check(p.returncode == 0, f"{name}: rsvg-convert: {p.stderr}")
    print(f"svg: {len(meshes)} configs drawn" + ("" if rsvg else
                                                  " (no rsvg-convert: not rendered)"))


def flatten(x):
    return [y for e in x for y in flatten(e)] if isinstance(x, list) else [x]


def test_color_by(root, meshgen, tmp):
    racks = os.path.join(root, "configs/meshes/nvlink-racks.yaml")
    by_host = legend(show(meshgen, racks, os.path.join(tmp, "h.svg")))
    by_slice = legend(show(meshgen, racks, os.path.join(tmp, "s.svg"), "--color-by", "slice"))
    check(len(by_host) == 8 and by_slice == ["rack-a", "rack-b"],
          f"color-by: racks by host {by_host}, by slice {by_slice}")
    pipe = os.path.join(root, "configs/meshes/pipeline-16.yaml")
    stages = legend(show(meshgen, pipe, os.path.join(tmp, "p.svg"), "--color-by", "stage"))
    check(stages == [f"stage {i}" for i in range(4)], f"color-by: stages {stages}")


def test_long_names(meshgen, tmp):
    long = "gpu-node-in-rack-seventeen-of-the-west-hall"
    inv = os.path.join(tmp, "long.yaml")
    mgtest.write(inv, f"meshgen-inventory: 1\nhosts:\n  - names: {long}[1-2]\n"
                      "    synthetic: 'pack:1 core:2 pu:1'\n")
    pic = show(meshgen, None, os.path.join(tmp, "long.svg"), "--inventory", inv,
               "--mesh", "dp:2,tp:2")
    squares = cells(pic)
    check([h for _, h in squares] == ["gpu…hall1"] * 2 + ["gpu…hall2"] * 2
          and all(f"host {long}" in t for t, _ in squares),
          f"long names: labels and tooltips {squares}")
    check(legend(pic) == [f"{long}1", f"{long}2"], f"long names: legend {legend(pic)}")


def test_million(root, meshgen, tmp):
    spec, svg = big_mesh(root, tmp), os.path.join(tmp, "big.svg")
    pic = show(meshgen, spec, svg)
    size = os.path.getsize(svg)
    blocks = [r for r in pic.iter(NS + "rect") if r.get("class") == "block"]
    check(size < 1 << 20, f"1M devices: the SVG is {size} bytes")
    check(0 < len(blocks) <= 64 * 64 and not cells(pic),
          f"1M devices: {len(blocks)} blocks, {len(cells(pic))} squares")
    check(legend(pic) is not None and len(legend(pic)) == 16
          and legend(pic)[0] == "n00001 \u2026 n04096 (4096 hosts)",
          f"1M devices: the legend holds {legend(pic)} (16 runs of 4096 hosts)")
    check(pic.find(NS + "title").text.startswith("mesh big: pp=4 x dp=256 x fsdp=64 x tp=16"),
          f"1M devices: title {pic.find(NS + 'title').text}")
    print(f"svg: 1,048,576 devices in {len(blocks)} blocks, {size} bytes")


def mesh_coords(resolved):
    """device id -> its mesh coordinates, from resolve's flat mesh
    (row-major over the axes)."""
    sizes = [a["size"] for a in resolved["axes"]]
    out = {}
    for flat, dev in enumerate(resolved["mesh"]):
        c, rest = [], flat
        for n in reversed(sizes):
            c.append(rest % n)
            rest //= n
        out[dev] = tuple(reversed(c))
    return out


def expected_slices(resolved):
    """slice name -> (dims, {(x, y, z): [label of core 0, core 1, ...]})."""
    coords = mesh_coords(resolved)
    slices = {}
    for d in resolved["devices"]:
        name = resolved["hosts"][d["host"]]["slice"]
        chips = slices.setdefault(name, {})
        label = ",".join(map(str, coords[d["id"]])) if d["id"] in coords else "-"
        chips.setdefault(tuple(d["coords"]), {})[d["core_on_chip"]] = label
    out = {}
    for name, chips in slices.items():
        dims = tuple(max(c[k] for c in chips) + 1 for k in range(3))
        out[name] = (dims, {c: [v[k] for k in sorted(v)] for c, v in chips.items()})
    return out


def check_torus(label, pic, resolved, wraps):
    """The physical view of pic against resolve's devices; wraps: the set
    of dimensions ("x", "y", "z") that must wrap around in every slice."""
    want = expected_slices(resolved)
    torus = next((g for g in pic.iter(NS + "g") if g.get("class") == "torus"), None)
    check(torus is not None, f"{label}: no torus view")
    if torus is None:
        return
    slices = [g for g in torus.findall(NS + "g") if g.get("class") == "slice"]
    check(len(slices) == len(want), f"{label}: {len(slices)} slices drawn, {len(want)} used")
    for sg, (name, (dims, chips)) in zip(slices, sorted(want.items())):
        head = next(t.text for t in sg.iter(NS + "text") if t.get("class") == "slice")
        check(head.startswith(name + ":"), f"{label}: slice heading {head!r}, expected {name}")
        planes = [g for g in sg.findall(NS + "g") if g.get("class") == "plane"]
        check(len(planes) == dims[2], f"{label} {name}: {len(planes)} planes for z={dims[2]}")
        for z, plane in enumerate(planes):
            drawn = [g for g in plane.findall(NS + "g") if g.get("class") == "chip"]
            check(len(drawn) == dims[0] * dims[1],
                  f"{label} {name} z={z}: {len(drawn)} chips, expected {dims[0] * dims[1]}")
            for chip in drawn:
                title = chip.find(NS + "title").text
                xyz = tuple(int(v) for v in title[title.index("(") + 1:
                                                  title.index(")")].split(", "))
                got = [t.text for t in chip.findall(NS + "text") if t.get("class") == "coords"]
                check(xyz[2] == z and got == chips.get(xyz),
                      f"{label} {name}: chip {xyz} on plane {z} shows {got}, "
                      f"resolve places {chips.get(xyz)}")
        paths = [p.get("class").split()[1] for p in sg.iter(NS + "path")
                 if "wrap" in (p.get("class") or "").split()]
        got = {p[-1] for p in paths}
        check(got == wraps, f"{label} {name}: wraparound along {sorted(got)}, "
                            f"expected {sorted(wraps)}")
        # One link a row (x), a column (y) of each plane, one for z.
        want_n = {"x": dims[1] * dims[2], "y": dims[0] * dims[2], "z": 1}
        check(all(paths.count("wrap-" + k) == want_n[k] for k in wraps),
              f"{label} {name}: wraparound links {sorted(paths)}")


def tpu_inventory(tmp, name, family, topology, hosts, shape, slice_name=None):
    inv, spec = (os.path.join(tmp, name + e) for e in (".inv.yaml", ".yaml"))
    quoted = "'" + (slice_name or name).replace("'", "''") + "'"
    mgtest.write(inv, f"meshgen-inventory: 1\nhosts:\n  - names: {name}-w[0-{hosts - 1}]\n"
                      f"    tpu: {family}\n    topology: {topology}\n    slice: {quoted}\n")
    mgtest.write(spec, f"meshgen: 1\nname: {name}\ninventory: {name}.inv.yaml\nmesh:\n"
                       f"  axes: [dp, tp]\n  shape: {shape}\n")
    return spec


def test_torus(root, meshgen, tmp):
    cases = [(os.path.join(root, "configs/meshes/v5p-128.yaml"), {"x", "y", "z"}),
             (os.path.join(root, "configs/meshes/v5e-multislice.yaml"), set()),
             (tpu_inventory(tmp, "v5e_8x16", "v5e", "8x16", 32, "[-1, 16]"), {"y"}),
             (tpu_inventory(tmp, "tpu7x", "tpu7x", "4x4x4", 16, "[-1, 4]"), {"x", "y", "z"}),
             # A slice name that XML must escape: the headings and tooltips
             # escape it, so the document still parses and reads it back.
             (tpu_inventory(tmp, "v5e_16x16", "v5e", "16x16", 64, "[-1, 16]",
                            "pod <a> & \"b\" 'c'"), {"x", "y"})]
    for spec, wraps in cases:
        name = os.path.basename(spec)
        r = mgtest.meshgen(meshgen, "resolve", spec, text=True)
        pic = show(meshgen, spec, os.path.join(tmp, name + ".torus.svg"))
        check_torus(name, pic, json.loads(r.stdout), wraps)
    big = tpu_inventory(tmp, "v5p_6144", "v5p", "16x16x24", 1536, "[-1, 16]")
    svg = os.path.join(tmp, "v5p_6144.svg")
    pic = show(meshgen, big, svg)
    blocks = [r for r in pic.iter(NS + "rect") if r.get("class") == "chips"]
    chips = [g for g in pic.iter(NS + "g") if g.get("class") == "chip"]
    heads = [t.text for t in pic.iter(NS + "text") if t.get("class") == "slice"]
    check(0 < len(blocks) <= 4096 and not chips and "in blocks of" in heads[0],
          f"v5p 16x16x24: {len(blocks)} blocks, {len(chips)} chips, heading {heads}")
    print(f"svg: {len(cases)} TPU meshes drawn chip by chip; 6,144 chips in {len(blocks)} "
          f"blocks, {os.path.getsize(svg)} bytes")


def test_noncharacters(meshgen, tmp):
    """YAML's escapes can make U+FFFE and U+FFFF, which XML 1.0 cannot hold
    even escaped: a slice named with them (host names are letters, digits
    and '-._' only) still gives a document that parses, the characters
    shown as '?'."""
    inv, spec = (os.path.join(tmp, "nonchar" + e) for e in (".inv.yaml", ".yaml"))
    mgtest.write(inv, 'meshgen-inventory: 1\nhosts:\n  - names: h-w[0-1]\n'
                      '    tpu: v5e\n    topology: 2x4\n    slice: "s\\uFFFEx\\uFFFF"\n')
    mgtest.write(spec, "meshgen: 1\nname: nonchar\ninventory: nonchar.inv.yaml\nmesh:\n"
                       "  axes: [dp, tp]\n  shape: [-1, 4]\n")
    svg = os.path.join(tmp, "nonchar.svg")
    try:
        pic = show(meshgen, spec, svg)
    except ET.ParseError as e:
        check(False, f"U+FFFE and U+FFFF in names: not well-formed XML: {e}")
        return
    heads = [t.text for t in pic.iter(NS + "text") if t.get("class") == "slice"]
    check(heads and heads[0].startswith("s?x?:"), f"U+FFFE and U+FFFF: slice heading {heads}")


# Meshes of other devices: their pictures are the grid's alone, unchanged by
# the TPU view (tests/data/svg/<name>.svg).
GOLDEN = [("nvlink-racks", ["--color-by", "slice"]), ("pipeline-16", ["--color-by", "stage"]),
          ("two-host-dp-tp", [])]


# ---- colours: CIEDE2000 (Sharma, Wu and Dalal's formulation) over sRGB (D65) --


def srgb_lab(hexcolour):
    rgb = [int(hexcolour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    xyz = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
           0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
           0.0193339 * r + 0.1191920 * g + 0.9503041 * b)
    f = [t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
         for t in (xyz[0] / 0.95047, xyz[1], xyz[2] / 1.08883)]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])), xyz[1]


def ciede2000(lab1, lab2):
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0
    dh = 0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    else:
        hbar = (h1p + h2p + (360 if h1p + h2p < 360 else -360)) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar))
         + 0.32 * math.cos(math.radians(3 * hbar + 6)) - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    rc = 2 * math.sqrt(cbarp ** 7 / (cbarp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    rt = -math.sin(math.radians(60 * math.exp(-((hbar - 275) / 25) ** 2))) * rc
    dl, dc = (l2 - l1) / sl, (c2p - c1p) / sc
    return math.sqrt(dl ** 2 + dc ** 2 + (d_h / sh) ** 2 + rt * dc * (d_h / sh))


def synthetic_inventory(tmp, name, hostlist, extra=""):
    path = os.path.join(tmp, name)
    mgtest.write(path, f"meshgen-inventory: 1\nhosts:\n{hostlist}{extra}")
    return path


def test_palette(meshgen, tmp):
    # The formula against Sharma et al.'s published test data (pairs 1, 17, 34).
    for lab1, lab2, want in [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
                             ((50, 2.5, 0), (73, 25, -18), 27.1492),
                             ((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373)]:
        check(abs(ciede2000(lab1, lab2) - want) < 1e-4, f"CIEDE2000 {lab1} {lab2}: "
                                                        f"{ciede2000(lab1, lab2)}, not {want}")
    inv = synthetic_inventory(tmp, "pal.yaml", "  - names: h[01-20]\n"
                              "    synthetic: 'pack:1 core:1 pu:1'\n")
    pic = show(meshgen, None, os.path.join(tmp, "pal.svg"), "--inventory", inv,
               "--mesh", "dp:20")
    fills = []
    for r in pic.iter(NS + "rect"):
        if r.get("class") == "cell" and r.get("fill") not in fills:
            fills.append(r.get("fill"))
    check(len(fills) == 16, f"palette: {len(fills)} colours for 20 hosts, expected 16")
    labs = {c: srgb_lab(c) for c in fills + ["#ffffff", "#e0e0e0"]}
    pairs = sorted((ciede2000(labs[a][0], labs[b][0]), a, b)
                   for i, a in enumerate(fills) for b in fills[i + 1:])
    check(pairs and pairs[0][0] >= 18, f"palette: the closest colours {pairs[:2]}, under 18")
    ground = min((ciede2000(labs[a][0], labs[g][0]), a, g)
                 for a in fills for g in ("#ffffff", "#e0e0e0"))
    check(ground[0] >= 20, f"palette: {ground} too close to the background or unused grey")
    contrast = min(((labs[c][1] + 0.05) / 0.05, c) for c in fills)
    check(contrast[0] >= 4.5, f"palette: black text on {contrast[1]} has contrast {contrast[0]}")
    print(f"svg: palette of {len(fills)}, closest CIEDE2000 {pairs[0][0]:.1f} "
          f"({pairs[0][1]}, {pairs[0][2]}); background {ground[0]:.1f}; contrast "
          f"{contrast[0]:.1f}")


def test_legend_order(meshgen, tmp):
    # Process order node10, node2, node1: the legend and the names under
    # the text grid go by name, numbers by their value.
    inv = synthetic_inventory(tmp, "order.yaml", "  - names: node[10,2,1]\n"
                              "    synthetic: 'pack:1 core:2 pu:1'\n")
    pic = show(meshgen, None, os.path.join(tmp, "order.svg"), "--inventory", inv,
               "--mesh", "dp:3,tp:2")
    check(legend(pic) == ["node1", "node2", "node10"], f"legend order: {legend(pic)}")
    r = mgtest.meshgen(meshgen, "show", "--color=never", "--inventory", inv, "--mesh", "dp:3,tp:2",
                       text=True)
    check("hosts:  @0 node10  @1 node2  @2 node1\n" in r.stdout,
          f"text show: the host indices are not named: {r.stdout!r}")


def test_many_hosts(meshgen, tmp):
    inv = synthetic_inventory(tmp, "k1.yaml", "  - names: n[0001-1000]\n"
                              "    synthetic: 'pack:1 core:8 pu:1'\n")
    pic = show(meshgen, None, os.path.join(tmp, "k1.svg"), "--inventory", inv,
               "--mesh", "dp:100,fsdp:10,tp:8")
    names = legend(pic)
    head = next((t.text for t in pic.iter(NS + "text") if t.get("class") == "axis"
                 and t.text and t.text.startswith("host")), None)
    counts = [int(n.rsplit("(", 1)[1].split()[0]) for n in names
              if "(" in n and n.rsplit("(", 1)[1].split()[0].isdigit()]
    check(len(names) == 16 and names[0] == "n0001 \u2026 n0063 (63 hosts)"
          and names[-1].endswith("\u2026 n1000 (62 hosts)") and sum(counts) == 1000,
          f"1000 hosts: the legend's runs {names}")
    check(head == "host runs", f"1000 hosts: the legend's heading {head!r}")
    sub = [t.text for t in pic.iter(NS + "text")][1]
    check("coloured by host, in 16 runs of consecutive hosts" in sub,
          f"1000 hosts: the subtitle {sub!r}")
    fills = {r.get("fill") for r in pic.iter(NS + "rect") if r.get("class") == "block"}
    check(len(fills) == 16, f"1000 hosts: {len(fills)} colours in the blocks")
    # Hosts in slices: coloured by slice, the granule.
    inv = synthetic_inventory(tmp, "k2.yaml", "".join(
        f"  - names: r{k}n[001-100]\n    synthetic: 'pack:1 core:8 pu:1'\n    slice: rack-{k}\n"
        for k in (3, 1, 2)))
    spec = os.path.join(tmp, "k2spec.yaml")
    mgtest.write(spec, "meshgen: 1\nname: k2\ninventory: k2.yaml\nmesh:\n  axes: [dp, fsdp, tp]\n"
                       "  shape: [3, 100, 8]\n  granule: slice\n")
    pic = show(meshgen, spec, os.path.join(tmp, "k2.svg"))
    sub = [t.text for t in pic.iter(NS + "text")][1]
    check(legend(pic) == ["rack-1", "rack-2", "rack-3"]
          and "coloured by slice (too many hosts for a colour each)" in sub,
          f"300 hosts in slices: legend {legend(pic)}, subtitle {sub!r}")


def big_mesh(root, tmp):
    """1,048,576 devices: 65,536 DGX-2 hosts of 16 GPUs; written once."""
    spec = os.path.join(tmp, "big.yaml")
    if not os.path.exists(spec):
        topo = os.path.join(root, "configs/inventories/hwloc/nvidiaDGX2.xml")
        mgtest.write(os.path.join(tmp, "inv1m.yaml"), "meshgen-inventory: 1\nhosts:\n"
                     f"  - names: n[00001-65536]\n    topology: {topo}\n")
        mgtest.write(spec, "meshgen: 1\nname: big\ninventory: inv1m.yaml\nmesh:\n"
                           "  axes: [pp, dp, fsdp, tp]\n  shape: [4, -1, 64, 16]\n")
    return spec


def test_reader_goes_away(root, meshgen, tmp):
    spec, svg, whole = big_mesh(root, tmp), os.path.join(tmp, "pipe.svg"), os.path.join(tmp, "w.svg")
    show(meshgen, spec, whole)
    # As a shell gives it: SIGPIPE at its default, as `| head` meets it.
    p = subprocess.Popen([meshgen, "show", "--color=never", "--svg", svg, spec],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=True)
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    rc = p.wait()
    check(rc == 2 and "error: cannot write the output: Broken pipe [io]" in err,
          f"show | head: exit {rc}, stderr {err[-300:]!r}")
    check(os.path.exists(svg) and mgtest.read(svg) == mgtest.read(whole),
          "show | head: the SVG is missing or not whole")


def test_text_cap(root, meshgen, tmp):
    r = mgtest.meshgen(meshgen, "show", "--color=never", big_mesh(root, tmp), text=True)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and len(lines) < 1200 and len(r.stdout) < 400000
          and "(shown: rows 0-999 of 65536, columns 0-15 of 16; meshgen resolve lists every "
              "device, --svg draws the whole mesh)" in lines
          and lines[-1] == "        ... and 488 more (meshgen resolve lists every host)"
          and any(ln.startswith("hosts:  @0 n00001  @1 n00002") for ln in lines),
          f"text show of 1M devices: {len(lines)} lines, {len(r.stdout)} bytes, "
          f"ends {lines[-3:]}")
    inv = synthetic_inventory(tmp, "wide.yaml", "  - names: w[001-100]\n"
                              "    synthetic: 'pack:1 core:1000 pu:1'\n")
    r = mgtest.meshgen(meshgen, "show", "--color=never", "--inventory", inv, "--mesh", "x:100000",
                       text=True)
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("      0@0 ")]
    check(len(rows) == 1 and rows[0].count("@") == 64 and rows[0].endswith(" ...")
          and "(shown: rows 0-0 of 1, columns 0-63 of 100000;" in r.stdout,
          f"text show of a 100,000-wide axis: {r.stdout[-400:]!r} {r.stderr[-300:]}")
    print(f"svg: text show of 1M devices: {len(lines)} lines, {len(r.stdout)} bytes")


def test_golden(root, meshgen, tmp):
    update = os.environ.get("MESHGEN_UPDATE_GOLDEN") == "1"
    for name, options in GOLDEN:
        svg = os.path.join(tmp, name + ".golden.svg")
        show(meshgen, os.path.join(root, "configs/meshes", name + ".yaml"), svg, *options)
        diff = mgtest.golden(os.path.join(root, "tests/data/svg", name + ".svg"), mgtest.read(svg),
                             update)
        check(diff is None, f"{name}: the picture differs from tests/data/svg/{name}.svg "
              f"(MESHGEN_UPDATE_GOLDEN=1 rewrites it):\n{diff}")


def main():
    root, meshgen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with mgtest.tempdir("svg") as tmp:
        test_configs(root, meshgen, tmp)
        test_color_by(root, meshgen, tmp)
        test_long_names(meshgen, tmp)
        test_million(root, meshgen, tmp)
        test_torus(root, meshgen, tmp)
        test_noncharacters(meshgen, tmp)
        test_palette(meshgen, tmp)
        test_legend_order(meshgen, tmp)
        test_many_hosts(meshgen, tmp)
        test_reader_goes_away(root, meshgen, tmp)
        test_text_cap(root, meshgen, tmp)
        test_golden(root, meshgen, tmp)
    T.exit()


if __name__ == "__main__":
    main()
