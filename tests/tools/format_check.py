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
import subprocess
import sys

PATTERNS = ["gen/*.[ch]", "gen/include/meshgen/*.h", "runtime/*.[ch]",
            "runtime/include/meshgen/*.h", "tests/unit/*.[ch]", "tests/e2e/*.[ch]",
            "tests/python/*.[ch]", "tests/install/*.[ch]",
            "tests/install/*/*.[ch]", "fuzz/*.[ch]", "bench/*.[ch]", "examples/*/*.[ch]"]
VERSION = 14


def main():
    clang_format, source = sys.argv[1], sys.argv[2]
    try:
        version = subprocess.run([clang_format, "--version"], capture_output=True, text=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"FAIL: cannot run clang-format ({clang_format}): {e}; "
                 "scripts/setup-deps.sh installs it")
    m = re.search(r"version (\d+)\.", version)
    if not m or int(m.group(1)) != VERSION:
        sys.exit(f"FAIL: clang-format {VERSION} is needed, found: {version.strip()}")
    files = sorted({f for p in PATTERNS for f in glob.glob(os.path.join(source, p))})
    if not files:
        sys.exit(f"FAIL: no C files under {source}")
    p = subprocess.run([clang_format, "--dry-run", "--Werror"] + files, capture_output=True,
                       text=True)
    bad = sorted({os.path.relpath(f, source) for f in re.findall(r"^(\S+?):\d+:\d+: error",
                                                                 p.stderr, re.M)})
    for f in bad:
        print(f"FAIL: {f} is not formatted as .clang-format says (clang-format -i {f})")
    if p.returncode != 0 and not bad:
        print(p.stderr)
    print(f"format: {len(files)} files, {len(bad)} not formatted")
    return 1 if p.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
