#!/usr/bin/env python3
"""Hostile strings never break out of the generated C.

Names that become C symbols (mesh, axes, shardings) are refused unless they
are plain identifiers (tests/cases/ pins those errors). Strings that only
become C string literals or comments — a host name, a GPU model or vendor
from an hwloc export — are escaped. This test writes a topology whose
PCI vendor/device strings hold quotes, backslashes, comment terminators,
newlines, #define lines, trigraphs and non-ASCII bytes, in a directory whose
name holds a trigraph and a comment opener, then generates, compiles with
-Werror (as C11 and as C99), and checks that the output is still only
tables: the preprocessor lines are the expected ones, the object defines
just the mesh symbols, and the strings read back through the runtime come
out byte for byte as hwloc gave them (after meshgen's own control-byte
replacement), and `show --svg` draws them as well-formed XML. A HostName
is a host name (letters, digits, '-', '_', '.'), or the file is refused:
one with quotes, one that starts with a dot and one of 5000 bytes are each
an inventory-load error, and nothing is written.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

import mgtest

HOSTILE = [
    'evil"; int pwned = 1; char *x = "',
    "back\\slash\\",
    "*/ int pwned; /*",
    "#define pwned 1",
    "??/ trigraph ??=",
    "caf\u00e9 \u00fcber \u2603",
    # C1 controls, which hwloc's strings keep: U+009B is a terminal's CSI.
    "csi \u009b31m nel \u0085 end",
]
# What a terminal must never be sent raw: C0 controls but the line break,
# DEL, and C1 controls (as UTF-8, or a byte 0x80-0x9F of its own).
RAW_CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
HOST = "Hostile-Host_01.rack-7"
# A HostName is a host name or refused (docs/reference.md §2, "Host names"):
# these never reach the generated C. The 5000-byte one once did, as a string
# literal that gcc -std=c99 -Wpedantic -Werror rejects (overlength-strings).
REFUSED_HOSTS = ['h"<o&>*/st\\', ".a", "a" * 5000]


def inventory_text(meshgen, t, xml, fail):
    """`meshgen inventory` escapes what hwloc and the file system gave it:
    the GPU models (C1 controls among them) and a topology path holding an
    escape sequence and a newline reach the terminal as \\xNN and \\n."""
    path = mgtest.write(os.path.join(t, "e\x1b[31m\nx.xml"), xml)
    p = mgtest.meshgen(meshgen, "inventory", "--inventory", path)
    out = p.stdout
    if p.returncode != 0 or RAW_CONTROL.search(out):
        fail(f"inventory: exit {p.returncode}, raw control bytes in {out[:600]!r}")
    if b"e\\x1b[31m\\nx.xml, digest" not in out:
        fail(f"inventory: the topology's path is not escaped: {out[:300]!r}")
    if b"csi \\xc2\\x9b31m nel \\xc2\\x85 end" not in out:
        fail(f"inventory: the C1 model is not escaped: {out[:900]!r}")


def main():
    meshgen, include, cc, src_xml = sys.argv[1:5]
    runtime_srcs = sys.argv[5:]
    xml = mgtest.read_text(src_xml)
    models = iter(HOSTILE * 4)
    xml = re.sub(r'<info name="PCIDevice" value="[^"]*"/>',
                 lambda m: f'<info name="PCIDevice" value={quoteattr(next(models))}/>', xml)
    xml = re.sub(r'<info name="PCIVendor" value="[^"]*"/>',
                 lambda m: '<info name="PCIVendor" value="vendor&#10;#define x 1&#10;"/>', xml)
    host_line = '<info name="Backend" value="Synthetic"/>\n    <info name="HostName" value=%s/>'
    base = xml
    xml = xml.replace('<info name="Backend" value="Synthetic"/>', host_line % quoteattr(HOST), 1)
    checks = mgtest.Checks("hostile strings")
    fail = checks.fail
    with mgtest.tempdir("hostile") as t:
        # "q??/" is a trigraph that would splice lines, "/*" a comment
        # opener that -Wcomment rejects.
        os.makedirs(os.path.join(t, "q??", "*x"))
        mgtest.write(os.path.join(t, "q??", "*x", "hostile.xml"), xml)
        out = os.path.join(t, "out")
        os.mkdir(out)
        # The spec names the inventory by its relative path, which the
        # banner comments quote.
        spec = mgtest.write(os.path.join(t, "hostile.yaml"),
                            'meshgen: 1\nname: hostile\ninventory: "q??/*x/hostile.xml"\n'
                            "mesh:\n  axes: [dp, tp]\n  shape: [2, 4]\n")
        p = mgtest.meshgen(meshgen, "generate", spec, "-o", out, text=True)
        if p.returncode != 0:
            mgtest.die(f"generate: {p.stderr}")
        c_file = os.path.join(out, "hostile_mesh.c")
        text = mgtest.read(c_file).decode("ascii")  # non-ASCII must be escaped
        directives = [l for l in text.splitlines() if l.lstrip().startswith("#")]
        # The includes, and the choice between the group tables' two forms
        # (docs/reference.md, "Group tables").
        allowed = ['#include "hostile_mesh.h"', "#include <stddef.h>", "#include <stdint.h>",
                   "#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \\",
                   "#else", "#endif"]
        if directives != allowed:
            fail(f"unexpected preprocessor lines: {directives}")
        obj = os.path.join(t, "hostile.o")
        p = mgtest.run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                        "-I", include, "-I", out, "-c", c_file, "-o", obj], text=True)
        if p.returncode != 0:
            mgtest.die(f"the generated C does not compile: {p.stderr}")
        syms = mgtest.run(["nm", "-g", "--defined-only", obj], text=True).stdout.split()
        defined = sorted(s for s in syms if s.startswith("hostile") or "pwned" in s)
        if any("pwned" in s for s in syms) or "hostile_mesh" not in defined:
            fail(f"unexpected symbols: {syms}")
        # Read the strings back through the runtime.
        prog = mgtest.write(
            os.path.join(t, "dump.c"),
            '#include <stdio.h>\n#include "hostile_mesh.h"\n'
            "int main(void){int d;printf(\"%s\\n\", hostile_mesh.hosts[0].name);"
            "for(d=0;d<hostile_mesh.n_inventory_devices;d++)"
            "printf(\"%s|%s\\n\", meshgen_device_info(&hostile_mesh,d)->model,"
            "meshgen_device_info(&hostile_mesh,d)->vendor);return 0;}\n")
        exe = os.path.join(t, "dump")
        p = mgtest.run([cc, "-std=c11", "-I", include, "-I", out, prog, c_file] + runtime_srcs
                       + ["-o", exe], text=True)
        if p.returncode != 0:
            mgtest.die(f"the dump program does not build: {p.stderr}")
        lines = mgtest.run([exe]).stdout.decode("utf-8").split("\n")
        if lines[0] != HOST:
            fail(f"host name read back as {lines[0]!r}")
        models_back = [l.split("|")[0] for l in lines[1:9]]
        if sorted(set(models_back)) != sorted(set(HOSTILE)):
            fail(f"models read back as {models_back}")
        if any(l.split("|")[1] != "vendor?#define x 1?" for l in lines[1:9]):
            fail(f"vendor read back as {lines[1].split('|')[1]!r} (newlines become '?')")
        # The same names in the SVG picture of `show --svg`: well-formed XML,
        # one square and one host label per device, the name as hwloc gave it
        # in each square's tooltip (the label abbreviates it: head...tail).
        svg = os.path.join(t, "hostile.svg")
        p = mgtest.meshgen(meshgen, "show", spec, "--svg", svg, text=True)
        if p.returncode != 0:
            mgtest.die(f"show --svg: {p.stderr}")
        root = ET.parse(svg).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        squares = [g for g in root.iter(ns + "g")
                   if g.find(ns + "rect") is not None and g.find(ns + "rect").get("class") == "cell"]
        labels = [t.text for g in squares for t in g.findall(ns + "text") if t.get("class") == "host"]
        tips = [g.find(ns + "title").text for g in squares]
        abbrev = HOST[:3] + "\u2026" + HOST[-5:]
        if len(squares) != 8 or labels != [abbrev] * 8 or not all(f"host {HOST};" in t for t in tips):
            fail(f"svg holds {len(squares)} squares, labels {labels}, tooltips {tips}")
        # An SVG that cannot be written is an error, and the grid is still printed.
        p = mgtest.meshgen(meshgen, "show", spec, "--svg", os.path.join(t, "none", "x.svg"),
                           text=True)
        if p.returncode != 2 or "cannot write" not in p.stderr or "rows: dp" not in p.stdout:
            fail(f"show --svg into a missing directory: exit {p.returncode}, {p.stderr!r}")
        # The generated C compiles as C99 too, pedantically.
        p = mgtest.run([cc, "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                        "-I", include, "-I", out, "-c", c_file, "-o", obj], text=True)
        if p.returncode != 0:
            fail(f"the generated C does not compile as C99: {p.stderr[-500:]}")
        # HostNames that are no host names are refused at load, named, and
        # nothing is generated.
        inventory_text(meshgen, t, xml, fail)
        for bad in REFUSED_HOSTS:
            refused = mgtest.write(os.path.join(t, "refused.xml"),
                                   base.replace('<info name="Backend" value="Synthetic"/>',
                                                host_line % quoteattr(bad), 1))
            out2 = os.path.join(t, "out-refused")
            os.makedirs(out2, exist_ok=True)
            p = mgtest.meshgen(meshgen, "generate", "--inventory", refused, "--mesh", "x:-1",
                               "--name", "refused", "-o", out2, text=True)
            if (p.returncode != 1 or "is not a host name" not in p.stderr
                    or "[inventory-load]" not in p.stderr or os.listdir(out2)
                    or len(p.stderr) > 2000):
                fail(f"HostName {bad[:20]!r}... ({len(bad)} bytes): exit "
                             f"{p.returncode}, {p.stderr[-300:]!r}, wrote {os.listdir(out2)}")
    checks.exit()


if __name__ == "__main__":
    main()
