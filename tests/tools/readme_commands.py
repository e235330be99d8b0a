#!/usr/bin/env python3
"""The README's two commands: what `make demo` builds and what `make test`
runs, read from the Makefile (`make -n`) and the build tree.

usage: readme_commands.py SOURCE_DIR BUILD_DIR

- `make demo` builds named targets only, and in BUILD_DIR (a Ninja tree
  configured as `make` configures it) those need at most 60 build steps
  (`ninja -t commands`), under half of what the whole tree needs: the
  generator, the runtime and the example, not the tests, benchmarks and
  MPI examples;
- `make test` runs every test of the suite once through ctest in
  BUILD_DIR, in parallel, leaving out only the re-runs under valgrind;
  CI (.ci/run) runs `make test` and then `make test-memory`, which runs
  the cases under valgrind, the suite built with ASan and UBSan, and the
  fuzz smoke runs, so CI still runs everything;
- the command-line cases run under valgrind as several ctest tests of at
  most 10 cases each (so that ctest runs them in parallel and reports each
  as it ends), together every case of tests/cases once; skipped where
  valgrind is not installed;
- the README says how many minutes `make test` takes.
Exits 77 (skipped) when BUILD_DIR was not made by Ninja.
"""
import glob
import os
import re
import subprocess
import sys

import mgtest

CHECKS = mgtest.Checks("readme commands")
check = CHECKS.check


def dry_run(source, build, target):
    """The commands `make TARGET` would run, one per line (recursive makes
    are followed, nothing else is run)."""
    p = subprocess.run(["make", "-n", "--no-print-directory", "-C", source, target,
                        f"BUILD={build}", "JOBS=2"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: make -n {target} exited {p.returncode}: {p.stderr}")
    return p.stdout.splitlines()


def steps(build, targets):
    p = subprocess.run(["ninja", "-C", build, "-t", "commands"] + targets, capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: ninja -t commands {targets}: {p.stderr}")
    return len(p.stdout.splitlines())


def demo(source, build):
    builds = [l for l in dry_run(source, build, "demo") if l.startswith("cmake --build")]
    check(len(builds) == 1 and "--target" in builds[0],
          f"make demo builds named targets only: {builds}")
    if len(builds) != 1 or "--target" not in builds[0]:
        return
    targets = builds[0].split("--target", 1)[1].split()
    n, everything = steps(build, targets), steps(build, [])
    print(f"make demo: {n} build steps ({' '.join(targets)}); the whole tree: {everything}")
    check(n <= 60 and 2 * n < everything,
          f"make demo needs at most 60 build steps, under half the tree's {everything}: {n}")


def test(source, build):
    text = "\n".join(dry_run(source, build, "test"))
    runs = re.findall(rf"^ctest --test-dir {re.escape(build)} (.*)$", text, re.M)
    # Any other selection (-L, -E, -LE, -R, -I) would leave tests out.
    others = [re.search(r"(^|\s)-(L|E|LE|R|I)\b", re.sub(r"-LE valgrind\b", "", r)) for r in runs]
    check(len(runs) == 1 and "-j" in runs[0] and others[0] is None,
          f"make test runs the whole suite through ctest in parallel, only the valgrind "
          f"re-runs left out: {runs}")
    memory = "\n".join(dry_run(source, build, "test-memory"))
    check(re.search(rf"^ctest --test-dir {re.escape(build)} .*-L valgrind", memory, re.M)
          is not None, "make test-memory runs the cases under valgrind")
    check("-DMESHGEN_SANITIZE=ON" in memory and
          re.search(r"^.*ctest --test-dir build-asan", memory, re.M) is not None,
          "make test-memory builds and runs the suite under ASan and UBSan")
    check("-DMESHGEN_FUZZ=ON" in memory and re.search(r"ctest .*-L fuzz", memory) is not None,
          "make test-memory runs the fuzz smoke tests")
    ci = [l.strip() for l in open(os.path.join(source, ".ci", "run"), encoding="utf-8")
          if l.strip() and not l.lstrip().startswith("#")]
    check("make test" in ci and "make test-memory" in ci and
          ci.index("make test") < ci.index("make test-memory"),
          f"CI runs make test, then make test-memory: {ci}")


def valgrind(source, build):
    p = subprocess.run(["ctest", "--test-dir", build, "-N", "-V", "-R", r"^valgrind\."],
                       capture_output=True, text=True)
    tests = re.findall(r"^\d+: Test command: (.*)$", p.stdout, re.M)
    if not tests:
        print("skip: no valgrind tests in this build (valgrind is not installed)")
        return
    cases = sorted(os.path.basename(c) for c in glob.glob(os.path.join(source, "tests", "cases",
                                                                       "*.yaml")))
    per_test = [re.findall(r'/cases/([^"/]+\.yaml)"', t) for t in tests]
    got = sorted(c for t in per_test for c in t)
    check(len(tests) >= 2 and max(len(t) for t in per_test) <= 10,
          f"the valgrind cases run as {len(tests)} ctest tests of at most "
          f"{max(len(t) for t in per_test)} cases")
    check(got == cases, f"the valgrind tests run each of the {len(cases)} cases once "
                        f"({len(got)} runs)")


def readme(source):
    text = open(os.path.join(source, "README.md"), encoding="utf-8").read()
    part = text[text.find("## Two commands"):text.find("\n## ", text.find("## Two commands") + 3)]
    m = re.search(r"`make test`\s+(?:takes|took)\s[^.]*?\d+(?:\.\d+)?\s+minutes", part)
    check(m is not None, "the README says how many minutes `make test` takes")


def main():
    source, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.path.exists(os.path.join(build, "build.ninja")):
        print(f"skip: {build} is not a Ninja build tree")
        sys.exit(77)
    demo(source, build)
    test(source, build)
    valgrind(source, build)
    readme(source)
    CHECKS.exit()


if __name__ == "__main__":
    main()
