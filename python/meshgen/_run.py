"""Running `meshgen resolve`: finding the executable and turning its exit
status and diagnostics into a ResolveError. The document it prints is
read by _document.py like any other."""

from __future__ import annotations

import os
import shutil
import subprocess

from ._errors import ResolveError


def checkout_root():
    """The source tree this copy of the package sits in (python/meshgen
    under a directory holding CMakeLists.txt and gen/), or None for an
    installed copy. The real path, so that a link to the package (the
    checkout's top-level `meshgen`) leads back to the tree."""
    here = os.path.dirname(os.path.realpath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    if (os.path.basename(os.path.dirname(here)) == "python"
            and os.path.isfile(os.path.join(root, "CMakeLists.txt"))
            and os.path.isdir(os.path.join(root, "gen"))):
        return root
    return None


def find_executable(explicit=None):
    """The meshgen to run: the one given, else $MESHGEN_EXECUTABLE, else the
    checkout's own build (build/gen/meshgen, what `make demo` builds) when
    this copy lives in a checkout, else `meshgen` on PATH. The checkout's
    build comes before PATH so that a checkout uses the generator of its
    own version, as its package does."""
    if explicit:
        return os.fspath(explicit)
    env = os.environ.get("MESHGEN_EXECUTABLE")
    if env:
        return env
    root = checkout_root()
    if root:
        built = os.path.join(root, "build", "gen", "meshgen")
        if os.path.isfile(built) and os.access(built, os.X_OK):
            return built
    found = shutil.which("meshgen")
    if found:
        return found
    where = f", or build the checkout {root} (make demo)" if root else ""
    raise ResolveError("cannot find the meshgen executable: pass executable=, set "
                       f"MESHGEN_EXECUTABLE, put meshgen on PATH{where}")


def run_resolve(spec, inventory, executable, mesh, name):
    """`meshgen resolve`'s stdout (bytes) and the lines of its stderr."""
    exe = find_executable(executable)
    cmd = [exe, "resolve"]
    if inventory is not None:
        cmd += ["--inventory", os.fspath(inventory)]
    if mesh is not None:
        cmd += ["--mesh", mesh]
    if name is not None:
        cmd += ["--name", name]
    if spec is not None:
        # After "--" a spec named like an option is still a file.
        cmd += ["--", os.fspath(spec)]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    except OSError as e:
        raise ResolveError(f"cannot run {exe}: {e.strerror or e}") from None
    stderr = p.stderr.decode("utf-8", "replace")
    if p.returncode != 0:
        what = "refused the inputs" if p.returncode == 1 else f"failed (exit {p.returncode})"
        detail = stderr.strip() or "(no message)"
        raise ResolveError(f"meshgen resolve {what}:\n{detail}", stderr, p.returncode)
    return p.stdout, [line for line in stderr.splitlines() if line]
