"""meshgen from Python: a mesh that `meshgen resolve` resolved, as a JAX
Mesh or a PyTorch DeviceMesh, with the checks that tell a job launched
differently from its inventory.

    import meshgen
    m = meshgen.resolve("mesh.yaml")          # runs `meshgen resolve`
    jax_mesh = m.jax_mesh()                   # or m.torch_device_mesh("cuda")

The standard library is all it needs to read a mesh; numpy, JAX and
PyTorch are imported only by the calls that return their objects. See
python/README.md and docs/reference.md ("From Python")."""

from __future__ import annotations

import os
from typing import Any, Optional, Union

from . import _document, _run
from ._document import Axis, Device, Host, Process, Sharding
from ._errors import DocumentError, Error, MismatchError, ResolveError
from ._mesh import Mesh, Shard
from ._version import version as _version

__version__ = _version()
FORMAT = _document.FORMAT

__all__ = ["resolve", "load", "Mesh", "Axis", "Device", "Host", "Process", "Sharding",
           "Shard", "Error", "DocumentError", "ResolveError", "MismatchError", "FORMAT",
           "__version__"]

PathLike = Union[str, "os.PathLike[str]"]


def resolve(spec: Optional[PathLike] = None, inventory: Optional[PathLike] = None,
            executable: Optional[PathLike] = None, *, mesh: Optional[str] = None,
            name: Optional[str] = None) -> Mesh:
    """Runs `meshgen resolve` on a spec file and returns its Mesh.

    inventory overrides the spec's `inventory:` (a path, `live` or
    `synthetic:...`); mesh gives a mesh string ("dp:2,tp:4") instead of a
    spec; executable is the meshgen to run (default: $MESHGEN_EXECUTABLE,
    the checkout's build/gen/meshgen, then PATH). Raises ResolveError with
    meshgen's diagnostics when it refuses the inputs; its notes are kept
    in Mesh.notes."""
    if spec is None and mesh is None:
        raise TypeError("resolve() needs a spec file or mesh=")
    out, notes = _run.run_resolve(spec, inventory, executable, mesh, name)
    label = f"meshgen resolve {os.fspath(spec) if spec is not None else mesh}"
    doc = _document.loads(out, label)
    return Mesh(_document.read(doc, label, __version__), doc, notes)


def load(path_or_dict: Union[PathLike, dict]) -> Mesh:
    """A Mesh from a saved resolve document: a file's path, or the document
    already parsed (a dict). Raises DocumentError, naming the key, for a
    file that is not JSON, of another format version, or not consistent."""
    if isinstance(path_or_dict, dict):
        doc: Any = path_or_dict
        label = ""
    elif isinstance(path_or_dict, (str, os.PathLike)):
        label = os.fspath(path_or_dict)
        doc = _document.parse(label)
    else:
        raise TypeError(f"load() takes a path or a dict, not {type(path_or_dict).__name__}")
    return Mesh(_document.read(doc, label, __version__), doc)
