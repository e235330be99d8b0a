#!/usr/bin/env python3
"""Output that can be trusted: atomic generation and the version guards.

- A run whose .c target is a directory leaves the previous .h and .c byte
  for byte as they were, and no lock file.
- A run whose write fails midway (a file-size limit smaller than the
  output: EFBIG, SIGXFSZ being ignored) exits 2 and leaves the previous
  files as they were, and no lock file.
- A failed check writes nothing at all.
- A result that cannot be written to standard output (a file-size limit
  with SIGXFSZ ignored makes the write fail with EFBIG) is an I/O error,
  exit 2 with a message, never a silent success.
- Outputs whose bytes would not change are not written: their mtimes stay,
  and a changed mesh replaces exactly the files that differ.
- Generated code refuses to compile against runtime headers older than
  MESHGEN_MIN_RUNTIME_VERSION (and compiles against that version), that
  no longer accept its generator version, or that have another table ABI:
  each #error names the problem.
"""
import os
import re
import resource
import shutil
import signal
import sys

import mgtest
from mgtest import snapshot

MESH_A = "dp:2,tp:4"
MESH_B = "dp:4,tp:2"
INV = mgtest.INV


def gen(meshgen, out, mesh, extra=(), preexec=None):
    return mgtest.meshgen(meshgen, "generate", "--mesh", mesh, "--inventory", INV, "--name",
                          "trust", "-o", out, *extra, preexec=preexec)


def compiles(cc, inc, out, c_path):
    """Whether the tables compile against the runtime headers under inc."""
    return mgtest.run([cc, "-std=c11", "-fsyntax-only", "-I", inc, "-I", out, c_path], text=True)


def main():
    meshgen, include, cc = sys.argv[1], sys.argv[2], sys.argv[3]
    checks = mgtest.Checks("output trust")
    fail = checks.fail
    with mgtest.tempdir("output-trust") as t:
        out = os.path.join(t, "out")
        os.mkdir(out)
        if gen(meshgen, out, MESH_A).returncode != 0:
            mgtest.die("the first generate failed")
        before = snapshot(out)

        # 1. The .c cannot be replaced: neither is.
        c_path = os.path.join(out, "trust_mesh.c")
        os.rename(c_path, c_path + ".saved")
        os.mkdir(c_path)
        os.mkdir(os.path.join(c_path, "keep"))  # a non-empty dir: rename onto it fails
        p = gen(meshgen, out, MESH_B)
        if p.returncode != 2:
            fail(f"failed write: exit {p.returncode}, expected 2")
        if mgtest.read(os.path.join(out, "trust_mesh.h")) != before["trust_mesh.h"]:
            fail("failed write: the .h changed although the .c could not be written")
        if mgtest.locks(out):
            fail(f"failed write: lock files left behind: {mgtest.locks(out)}")
        shutil.rmtree(c_path)
        os.rename(c_path + ".saved", c_path)

        # 2. A write that fails midway, under a file-size limit.
        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))
        p = gen(meshgen, out, MESH_B, preexec=limit)
        if p.returncode != 2 or b"File too large" not in p.stderr:
            fail(f"write over the size limit: exit {p.returncode}, expected 2 {p.stderr!r}")
        if snapshot(out) != before:
            fail("write over the size limit: the outputs changed or a lock file stayed")

        # 3. A failed check writes nothing.
        p = gen(meshgen, out, "dp:3,tp:4")
        if p.returncode != 1 or snapshot(out) != before:
            fail("failed check: outputs changed or wrong exit code")

        # 4. A result larger than stdout may take: exit 2, said on stderr.
        def small_stdout():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256))
        with open(os.path.join(t, "resolve.json"), "wb") as sink:
            p = mgtest.meshgen(meshgen, "resolve", "--mesh", MESH_A, "--inventory", INV,
                               stdout=sink, preexec=small_stdout)
        if p.returncode != 2 or b"cannot write the output" not in p.stderr:
            fail(f"unwritable stdout: exit {p.returncode}, stderr {p.stderr!r}")

        # 5. Version guards, both directions, and the ABI.
        hdr = mgtest.read_text(os.path.join(include, "meshgen", "meshgen.h"))
        cases = [
            ("runtime too old", re.sub(r"#define MESHGEN_VERSION_MINOR \d+",
                                       "#define MESHGEN_VERSION_MINOR 0", hdr),
             "needs meshgen runtime headers"),
            ("generator too old", re.sub(r"#define MESHGEN_MIN_GENERATOR_VERSION \d+",
                                         "#define MESHGEN_MIN_GENERATOR_VERSION 999999", hdr),
             "older than this runtime accepts"),
            ("other ABI", re.sub(r"#define MESHGEN_ABI \d+", "#define MESHGEN_ABI 999", hdr),
             "table ABI"),
        ]
        for name, text, message in cases:
            inc = os.path.join(t, "inc-" + name.replace(" ", "-"))
            os.makedirs(os.path.join(inc, "meshgen"))
            mgtest.write(os.path.join(inc, "meshgen", "meshgen.h"), text)
            p = compiles(cc, inc, out, c_path)
            if p.returncode == 0 or message not in p.stderr:
                fail(f"version guard '{name}': compiled={p.returncode == 0}, "
                             f"stderr lacks {message!r}")
        p = compiles(cc, include, out, c_path)
        if p.returncode != 0:
            fail(f"the matching headers do not compile the tables: {p.stderr}")

        # 5b. The gate is the minimum runtime version, not the generator's:
        # runtime headers of exactly that version compile the tables, one
        # patch older do not.
        min_rt = int(re.search(r"#define MESHGEN_MIN_RUNTIME_VERSION (\d+)", hdr).group(1))
        gate = mgtest.read_text(os.path.join(out, "trust_mesh.h"))
        if f"MESHGEN_VERSION_NUMBER < {min_rt}\n" not in gate:
            fail(f"the header's gate is not MESHGEN_MIN_RUNTIME_VERSION ({min_rt})")
        for version, ok in ((min_rt, True), (min_rt - 1, False)):
            text = re.sub(r"(#define MESHGEN_VERSION_NUMBER)\s*\\?\n?[^\n]*\n",
                          rf"\1 {version}\n", hdr, count=1)
            inc = os.path.join(t, f"inc-runtime-{version}")
            os.makedirs(os.path.join(inc, "meshgen"))
            mgtest.write(os.path.join(inc, "meshgen", "meshgen.h"), text)
            p = compiles(cc, inc, out, c_path)
            if (p.returncode == 0) != ok:
                fail(f"runtime headers of version {version}: compiled="
                             f"{p.returncode == 0}, expected {ok}: {p.stderr[:300]}")
        # 6. Write only on change: the same outputs again keep their files
        # and mtimes (generate with --depfile, show --svg, inventory
        # --export); a changed mesh replaces exactly the files that differ.
        kept = os.path.join(t, "kept")
        os.mkdir(kept)
        dep = os.path.join(kept, "trust.d")
        svg = os.path.join(kept, "trust.svg")
        xml = os.path.join(kept, "snap.xml")

        def write_all(mesh, name="trust"):
            for cmd in (["generate", "--mesh", mesh, "--name", name, "-o", kept,
                         "--depfile", dep],
                        ["show", "--mesh", mesh, "--svg", svg, "--color", "never"],
                        ["inventory", "--export", xml]):
                p = mgtest.meshgen(meshgen, *cmd, "--inventory", INV)
                if p.returncode != 0:
                    fail(f"write only on change: {cmd[0]} exit {p.returncode}")

        def stamps():
            return {f: os.stat(os.path.join(kept, f)).st_mtime_ns for f in os.listdir(kept)}
        write_all(MESH_A)
        first = stamps()
        past = {f: m - 10**9 * 1000 for f, m in first.items()}
        for f, m in past.items():
            os.utime(os.path.join(kept, f), ns=(m, m))
        write_all(MESH_A)
        if stamps() != past:
            fail(f"write only on change: identical outputs were rewritten: "
                         f"{past} became {stamps()}")
        write_all(MESH_B)
        moved = sorted(f for f, m in stamps().items() if m != past.get(f))
        if moved != ["trust.svg", "trust_mesh.c", "trust_mesh.h"]:
            fail(f"write only on change: a new mesh replaced {moved}, expected the "
                         f".h, the .c and the SVG (the depfile and the snapshot are the same)")
        if sorted(os.listdir(kept)) != sorted(first):
            fail(f"write only on change: files left behind: {sorted(os.listdir(kept))}")
    checks.exit()


if __name__ == "__main__":
    main()
