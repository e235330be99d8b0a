#!/usr/bin/env python3
"""python.install: the meshgen Python package installed with pip, offline,
and the README's line from an installed copy and from a checkout's root.

Usage: install_check.py MESHGEN SOURCE_DIR PROJECT_VERSION

- `pip install --no-build-isolation` of a copy of python/ (beside a copy of
  runtime/'s header, as in the tree; the tree itself is left untouched)
  into a temporary --target, with no index: the installed version, the
  distribution's and meshgen.__version__, is the header's
  MESHGEN_VERSION_STRING, CMake's project version and `meshgen --version`'s;
- the README's line run with that copy from a directory outside any
  checkout, finding meshgen on PATH, and refusing with a message when
  there is none;
- the same line run in a checkout's root with nothing on PATH or in the
  environment: `import meshgen` finds the top-level link to python/meshgen
  and meshgen.resolve() the checkout's build/gen/meshgen.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = ("import meshgen; m = meshgen.resolve('configs/meshes/two-host-dp-tp.yaml'); "
        "print(m.shape)")
SHAPE = "{'dp': 2, 'tp': 8}"


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kw)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout


def header_version(source):
    path = os.path.join(source, "runtime", "include", "meshgen", "meshgen.h")
    found = re.findall(r'^#define MESHGEN_VERSION_STRING "([^"]*)"', open(path).read(), re.M)
    if len(found) != 1:
        fail(f"{path} defines MESHGEN_VERSION_STRING {len(found)} times")
    return found[0]


def copy_package(source, dest):
    """python/ and the header, laid out as in the tree."""
    shutil.copytree(os.path.join(source, "python"), os.path.join(dest, "python"),
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    inc = os.path.join(dest, "runtime", "include", "meshgen")
    os.makedirs(inc)
    shutil.copy(os.path.join(source, "runtime", "include", "meshgen", "meshgen.h"), inc)


def clean_env(**extra):
    """An environment with no meshgen in it: no MESHGEN_EXECUTABLE, no
    PYTHONPATH, PATH of the system's directories only."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MESHGEN_EXECUTABLE", "PYTHONPATH", "PYTHONHOME")}
    env.update(PATH="/usr/bin:/bin", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1",
               PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def check_installed(meshgen, source, tmp, want):
    src = os.path.join(tmp, "src")
    copy_package(source, src)
    target = os.path.join(tmp, "target")
    run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index",
         "--no-deps", "--target", target, os.path.join(src, "python")], env=clean_env())
    infos = [d for d in os.listdir(target) if d.endswith(".dist-info")]
    if infos != [f"meshgen-{want}.dist-info"]:
        fail(f"pip installed {infos}, expected meshgen-{want}.dist-info")
    away = os.path.join(tmp, "elsewhere")
    configs = os.path.join(away, "configs")
    os.makedirs(away)
    os.symlink(os.path.join(source, "configs"), configs)
    env = clean_env(PYTHONPATH=target, PATH=os.path.dirname(meshgen) + ":/usr/bin:/bin")
    probe = ("import importlib.metadata as md, meshgen; "
             "print(meshgen.__file__); print(meshgen.__version__); print(md.version('meshgen'))")
    where, version, dist = run([sys.executable, "-c", probe], cwd=away, env=env).split()
    if not where.startswith(target + os.sep):
        fail(f"the installed copy was not the one imported: {where}")
    if version != want or dist != want:
        fail(f"the installed package says version {version} (distribution {dist}), the "
             f"project {want}")
    out = run([sys.executable, "-c", LINE], cwd=away, env=env).strip()
    if out != SHAPE:
        fail(f"the README's line printed {out!r} from an installed copy, expected {SHAPE}")
    p = subprocess.run([sys.executable, "-c", LINE], cwd=away, capture_output=True, text=True,
                       env=clean_env(PYTHONPATH=target))
    if p.returncode == 0 or "cannot find the meshgen executable: pass executable=, set " \
            "MESHGEN_EXECUTABLE, put meshgen on PATH" not in p.stderr:
        fail(f"without meshgen on PATH the line did not say so: {p.stderr[-500:]}")
    if "build the checkout" in p.stderr:
        fail("an installed copy talks of a checkout")
    print(f"python.install: pip installed meshgen {want} offline; the README's line from it: "
          f"{out}")


def check_checkout(meshgen, source, tmp, want):
    """A checkout's root as `make demo` leaves it, with the real link."""
    link = os.path.join(source, "meshgen")
    if not os.path.islink(link) or os.readlink(link) != os.path.join("python", "meshgen"):
        fail(f"{link} is not the link python/meshgen")
    root = os.path.join(tmp, "checkout")
    copy_package(source, root)
    os.symlink(os.readlink(link), os.path.join(root, "meshgen"))
    shutil.copy(os.path.join(source, "CMakeLists.txt"), root)
    os.makedirs(os.path.join(root, "gen"))
    os.makedirs(os.path.join(root, "build", "gen"))
    os.symlink(meshgen, os.path.join(root, "build", "gen", "meshgen"))
    os.symlink(os.path.join(source, "configs"), os.path.join(root, "configs"))
    env = clean_env()
    out = run([sys.executable, "-c", LINE], cwd=root, env=env).strip()
    if out != SHAPE:
        fail(f"the README's line printed {out!r} in a checkout, expected {SHAPE}")
    probe = "import meshgen, meshgen._run as r; print(meshgen.__version__, r.find_executable())"
    version, exe = run([sys.executable, "-c", probe], cwd=root, env=env).split()
    if version != want or exe != os.path.join(root, "build", "gen", "meshgen"):
        fail(f"in a checkout: version {version}, executable {exe}")
    # Without the build, the same line says what to do.
    os.unlink(os.path.join(root, "build", "gen", "meshgen"))
    p = subprocess.run([sys.executable, "-c", LINE], cwd=root, capture_output=True, text=True,
                       env=env)
    if p.returncode == 0 or f"or build the checkout {root} (make demo)" not in p.stderr:
        fail(f"a checkout without its build did not say so: {p.stderr[-500:]}")
    print(f"python.install: from a checkout's root: {out}")


def main():
    meshgen, source, project_version = sys.argv[1:]
    meshgen = os.path.abspath(meshgen)
    want = header_version(source)
    if want != project_version:
        fail(f"the header says {want}, CMake's project {project_version}")
    cli = run([meshgen, "--version"]).split()
    if cli[:2] != ["meshgen", want]:
        fail(f"meshgen --version says {cli[:2]}, the header {want}")
    with tempfile.TemporaryDirectory() as tmp:
        check_installed(meshgen, source, tmp, want)
        check_checkout(meshgen, source, tmp, want)


if __name__ == "__main__":
    main()
