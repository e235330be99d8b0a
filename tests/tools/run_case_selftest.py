#!/usr/bin/env python3
"""Tests run_case.py itself: the pinned stderr of a case catches a changed
word with a readable diff, a missing pin fails, update mode rewrites the
pin to what meshgen prints, and no pin in the cases directory is orphaned.

    run_case_selftest.py MESHGEN CASES_DIR
"""
import os
import shutil
import sys

import mgtest

CASE = "axis_twice"  # self-contained: a synthetic inventory, two lines of stderr


def runner(meshgen, case, update=False):
    env = mgtest.env_with(MESHGEN_UPDATE_CASES="1" if update else None, MESHGEN_WRAPPER=None)
    p = mgtest.run([sys.executable, os.path.join(mgtest.HERE, "run_case.py"), meshgen, case],
                   text=True, env=env, timeout=120)
    return p.returncode, p.stdout + p.stderr


def expect(cond, what, output):
    """Each step needs the one before it: the first failure ends the test."""
    if not cond:
        mgtest.die(f"{what}\n{output}")


def main():
    meshgen, cases = os.path.abspath(sys.argv[1]), sys.argv[2]
    orphans = [f for f in sorted(os.listdir(cases))
               if f.endswith(".stderr") and not os.path.exists(os.path.join(cases, f[:-7] + ".yaml"))]
    expect(not orphans, f"pins without a case: {orphans}", "")
    with mgtest.tempdir("case-runner") as t:
        case, pin = os.path.join(t, CASE + ".yaml"), os.path.join(t, CASE + ".stderr")
        shutil.copy(os.path.join(cases, CASE + ".yaml"), case)
        shutil.copy(os.path.join(cases, CASE + ".stderr"), pin)
        original = mgtest.read_text(pin)
        expect("appears twice" in original and "note: first defined here" in original,
               "the pin holds the error and its note", original)

        rc, out = runner(meshgen, case)
        expect(rc == 0, "the case passes with its pin", out)

        mgtest.write(pin, original.replace("appears twice", "is given twice"))
        rc, out = runner(meshgen, case)
        expect(rc != 0, "a changed word fails the case", out)
        for line in (f"--- {CASE}.yaml (pinned)", f"+++ {CASE}.yaml (meshgen now)",
                     "-axis_twice.yaml:8:18: error: axis 'tp' is given twice",
                     "+axis_twice.yaml:8:18: error: axis 'tp' appears twice",
                     " axis_twice.yaml:8:10: note: first defined here"):
            expect(line in out, f"the failure shows a unified diff with {line!r}", out)

        mgtest.write(pin, original + "extra.yaml:1:1: warning: a warning that is no more [x]\n")
        rc, out = runner(meshgen, case)
        expect(rc != 0 and "-extra.yaml:1:1: warning" in out, "a lost warning fails", out)

        os.remove(pin)
        rc, out = runner(meshgen, case)
        expect(rc != 0 and "no pinned stderr" in out, "a missing pin fails", out)

        rc, out = runner(meshgen, case, update=True)
        expect(rc == 0 and mgtest.read_text(pin) == original, "update mode rewrites the pin", out)
        rc, out = runner(meshgen, case)
        expect(rc == 0, "the rewritten pin passes", out)
    print("ok")


if __name__ == "__main__":
    main()
