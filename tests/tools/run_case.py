#!/usr/bin/env python3
"""Runs one command-line test case and checks what meshgen printed.

A case is a YAML spec whose leading comments carry the test:
    # meshgen: validate --inventory "synthetic:pack:1 core:8"
    # exit: 1
    # error: shape-infer 9:17
    # error: hostlist 3:24 ../data/inventory/errors/bad-hostlist.yaml
    # stdout: "mesh": [0, 1]          (a substring the output must hold)
    # stderr: some text               (a substring stderr must hold)
Several case files may be given; with MESHGEN_WRAPPER set (e.g. to a
valgrind command line) meshgen runs under it.
The spec file itself is appended to the command line unless the command
holds the word {file} (then it is put there) or the case says
`# no-file`. Every `error:` line must match one diagnostic
`FILE:LINE:COL: error: ... [CHECK]` (FILE is the case itself unless the
line names another), and there must be no other errors.
"""
import os
import re
import shlex
import subprocess
import sys


def main():
    meshgen, cases = sys.argv[1], sys.argv[2:]
    wrapper = shlex.split(os.environ.get("MESHGEN_WRAPPER", ""))
    failed = [c for c in cases if not run(wrapper + [meshgen], c)]
    if failed:
        sys.exit(f"{len(failed)} of {len(cases)} cases failed: {' '.join(failed)}")


def run(meshgen, case):
    name = case.rsplit("/", 1)[-1]
    command, exit_code, errors, stdout_has, stderr_has, no_file = None, 0, [], [], [], False
    with open(case, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                continue
            m = re.match(r"#\s*(meshgen|exit|error|stdout|stderr|no-file):?\s?(.*)$", line.rstrip("\n"))
            if not m:
                continue
            key, val = m.group(1), m.group(2)
            if key == "meshgen":
                command = val
            elif key == "exit":
                exit_code = int(val)
            elif key == "error":
                parts = val.split()
                errors.append((parts[0], parts[1], parts[2] if len(parts) > 2 else name))
            elif key == "stdout":
                stdout_has.append(val)
            elif key == "stderr":
                stderr_has.append(val)
            elif key == "no-file":
                no_file = True
    if command is None:
        print(f"{name}: no '# meshgen:' line")
        return False
    args = shlex.split(command)
    if "{file}" in args:
        args = [name if a == "{file}" else a for a in args]
    elif not no_file:
        args.append(name)
    proc = subprocess.run(meshgen + args, capture_output=True, timeout=300)
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    failures = []
    if proc.returncode != exit_code:
        failures.append(f"exit code {proc.returncode}, expected {exit_code}")
    found = re.findall(r"^(.*?):(\d+):(\d+): error: .*\[([a-z0-9-]+)\]$", err, re.M)
    # An error in the --mesh string is located in "--mesh"; the case's
    # expectation then names no file.
    seen = [(c, f"{l}:{col}", name if f == "--mesh" else f) for (f, l, col, c) in found]
    for e in errors:
        if e not in seen:
            failures.append(f"expected error [{e[0]}] at {e[2]}:{e[1]}")
    for s in seen:
        if s not in errors:
            failures.append(f"unexpected error [{s[0]}] at {s[2]}:{s[1]}")
    for s in stdout_has:
        if s not in out:
            failures.append(f"stdout lacks {s!r}")
    for s in stderr_has:
        if s not in err:
            failures.append(f"stderr lacks {s!r}")
    if failures:
        print(f"{name}: {' '.join(meshgen + args)}")
        print("--- stdout\n" + out + "--- stderr\n" + err + "---")
        for f in failures:
            print(f"FAIL: {f}")
        return False
    print(f"{name}: ok ({len(errors)} errors as expected, exit {exit_code})")
    return True


if __name__ == "__main__":
    main()
