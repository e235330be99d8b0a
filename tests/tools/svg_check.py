#!/usr/bin/env python3
"""The pictures of `meshgen show --svg`.

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

    svg_check.py ROOT MESHGEN
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print("FAIL:", what)


def show(meshgen, spec, svg, *options):
    r = subprocess.run([meshgen, "show", "--color=never", "--svg", svg] + list(options)
                       + ([spec] if spec else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"svg: meshgen show {spec} {' '.join(options)} failed: {r.stderr}")
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
        r = subprocess.run([meshgen, "resolve", spec] + live, capture_output=True, text=True)
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
            p = subprocess.run([rsvg, svg, "-o", svg + ".png"], capture_output=True, text=True)
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
    with open(inv, "w", encoding="utf-8") as f:
        f.write(f"meshgen-inventory: 1\nhosts:\n  - names: {long}[1-2]\n"
                "    synthetic: 'pack:1 core:2 pu:1'\n")
    pic = show(meshgen, None, os.path.join(tmp, "long.svg"), "--inventory", inv,
               "--mesh", "dp:2,tp:2")
    squares = cells(pic)
    check([h for _, h in squares] == ["gpu…hall1"] * 2 + ["gpu…hall2"] * 2
          and all(f"host {long}" in t for t, _ in squares),
          f"long names: labels and tooltips {squares}")
    check(legend(pic) == [f"{long}1", f"{long}2"], f"long names: legend {legend(pic)}")


def test_million(root, meshgen, tmp):
    topo = os.path.join(root, "configs/inventories/hwloc/nvidiaDGX2.xml")
    inv, spec, svg = (os.path.join(tmp, n) for n in ("inv1m.yaml", "big.yaml", "big.svg"))
    with open(inv, "w", encoding="utf-8") as f:
        f.write(f"meshgen-inventory: 1\nhosts:\n  - names: n[00001-65536]\n"
                f"    topology: {topo}\n")
    with open(spec, "w", encoding="utf-8") as f:
        f.write("meshgen: 1\nname: big\ninventory: inv1m.yaml\nmesh:\n"
                "  axes: [pp, dp, fsdp, tp]\n  shape: [4, -1, 64, 16]\n")
    pic = show(meshgen, spec, svg)
    size = os.path.getsize(svg)
    blocks = [r for r in pic.iter(NS + "rect") if r.get("class") == "block"]
    check(size < 1 << 20, f"1M devices: the SVG is {size} bytes")
    check(0 < len(blocks) <= 64 * 64 and not cells(pic),
          f"1M devices: {len(blocks)} blocks, {len(cells(pic))} squares")
    check(legend(pic) is not None and len(legend(pic)) == 32,
          f"1M devices: the legend holds {len(legend(pic) or [])} entries (at most 32 shown)")
    check(pic.find(NS + "title").text.startswith("mesh big: pp=4 x dp=256 x fsdp=64 x tp=16"),
          f"1M devices: title {pic.find(NS + 'title').text}")
    print(f"svg: 1,048,576 devices in {len(blocks)} blocks, {size} bytes")


def main():
    root, meshgen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        test_configs(root, meshgen, tmp)
        test_color_by(root, meshgen, tmp)
        test_long_names(meshgen, tmp)
        test_million(root, meshgen, tmp)
    print(f"svg: {len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
