#!/usr/bin/env python3
"""The tree's C formatting (test `format`).

Usage: format_check.py CLANG_FORMAT SOURCE_DIR

Runs `clang-format --dry-run --Werror` with the tree's .clang-format over
every C source and header of gen/, runtime/, tests/ (the unit, end-to-end
and install programs; not the generated golden files), fuzz/, bench/ and
examples/. clang-format's output differs between major versions, so the
check wants version 14, the one Debian 12 ships and
scripts/setup-deps.sh installs. `clang-format -i FILE` fixes a file.
"""
import glob
import os
import re
import sys

import mgtest

PATTERNS = ["gen/*.[ch]", "gen/include/meshgen/*.h", "runtime/*.[ch]",
            "runtime/include/meshgen/*.h", "tests/unit/*.[ch]", "tests/e2e/*.[ch]",
            "tests/python/*.[ch]", "tests/install/*.[ch]",
            "tests/install/*/*.[ch]", "fuzz/*.[ch]", "bench/*.[ch]", "examples/*/*.[ch]"]
VERSION = 14


def main():
    clang_format, source = sys.argv[1], sys.argv[2]
    try:
        r = mgtest.run([clang_format, "--version"], text=True)
    except OSError as e:
        mgtest.die(f"cannot run clang-format ({clang_format}): {e}; "
                   "scripts/setup-deps.sh installs it")
    m = re.search(r"version (\d+)\.", r.stdout)
    if r.returncode != 0 or not m or int(m.group(1)) != VERSION:
        mgtest.die(f"clang-format {VERSION} is needed, found: {r.stdout.strip()}{r.stderr}")
    files = sorted({f for p in PATTERNS for f in glob.glob(os.path.join(source, p))})
    if not files:
        mgtest.die(f"no C files under {source}")
    p = mgtest.run([clang_format, "--dry-run", "--Werror"] + files, text=True)
    bad = sorted({os.path.relpath(f, source) for f in re.findall(r"^(\S+?):\d+:\d+: error",
                                                                 p.stderr, re.M)})
    checks = mgtest.Checks("format")
    for f in bad:
        checks.fail(f"{f} is not formatted as .clang-format says (clang-format -i {f})")
    if p.returncode != 0 and not bad:
        checks.fail(f"clang-format exit {p.returncode}: {p.stderr}")
    return checks.done(f"{len(files)} files")


if __name__ == "__main__":
    sys.exit(main())
