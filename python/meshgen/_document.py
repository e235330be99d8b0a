"""Reading a resolve document (the JSON that `meshgen resolve` prints) into
plain immutable records, after checking every rule docs/reference.md §7
states for it: the stable keys and their types (what
schemas/resolve.schema.json says) and the rules between them that no JSON
Schema can say (ids equal to positions, references that exist, the mesh's
length, one process per device, shard counts).

A document is checked in full before any Mesh is built from it, so that a
careless or hostile file gives one DocumentError naming the key and the
numbers, never an IndexError deep inside a framework call. Nothing here
imports numpy, JAX or PyTorch."""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from ._errors import DocumentError

# The only format this module reads (docs/reference.md §7: a change to a
# stable key gives a new number).
FORMAT = 1

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,30}\Z")
_AXIS_TYPES = ("auto", "explicit", "manual")
_KINDS = ("gpu", "core", "numa", "package", "pu", "tpu")
_REQUIRED = ("name", "axes", "mpmd", "hosts", "devices", "mesh", "processes", "shardings")
# A document larger than this is not something meshgen writes (its
# diagnostics cap a mesh at far fewer devices); refusing it early keeps a
# stray file from costing minutes of checking.
_MAX_BYTES = 1 << 30


@dataclass(frozen=True)
class Axis:
    """One mesh axis: size = ici * dcn; type is auto, explicit or manual."""

    name: str
    size: int
    ici: int
    dcn: int
    type: str


@dataclass(frozen=True)
class Host:
    """One host of the inventory, in inventory (process) order."""

    name: str
    slice: Optional[str]
    granule: Optional[int]


@dataclass(frozen=True)
class Device:
    """One device of the inventory; its id is its position in Mesh.devices.
    coords and core_on_chip are set on TPU devices only."""

    id: int
    host: int
    local: int
    kind: str
    pci: Optional[str]
    vendor: Optional[str]
    model: Optional[str]
    uuid: Optional[str]
    numa: Optional[int]
    cpuset: Optional[str]
    coords: Optional[Tuple[int, int, int]] = None
    core_on_chip: Optional[int] = None


@dataclass(frozen=True)
class Process:
    """One process (a host, or a device with `processes: device`) and the
    ids of its devices in the mesh; stage is set with an MPMD axis."""

    id: int
    host: int
    devices: Tuple[int, ...]
    stage: Optional[int] = None


@dataclass(frozen=True)
class Sharding:
    """A named sharding: per array dimension None or the axes it is split
    over (most significant first), the shard count of each dimension, and
    the global and per-shard shapes when the spec gives a shape."""

    name: str
    spec: Tuple[Optional[Tuple[str, ...]], ...]
    shards: Tuple[int, ...]
    shape: Optional[Tuple[int, ...]] = None
    local_shape: Optional[Tuple[int, ...]] = None


class _Reader:
    """Typed access to a JSON value with the path that led to it, so every
    complaint names its key (e.g. `devices[3].host`)."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, what: str) -> DocumentError:
        prefix = f"{self.source}: " if self.source else ""
        return DocumentError(f"{prefix}{where}: {what}" if where else f"{prefix}{what}")

    def obj(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, found {_kind(value)}")
        return value

    def key(self, obj: dict, key: str, where: str) -> Any:
        if key not in obj:
            raise self.fail(where, f'the required key "{key}" is missing')
        return obj[key]

    def array(self, value: Any, where: str, minimum: int = 0) -> list:
        if not isinstance(value, list):
            raise self.fail(where, f"expected an array, found {_kind(value)}")
        if len(value) < minimum:
            raise self.fail(where, f"expected at least {minimum} entries, found {len(value)}")
        return value

    def int(self, value: Any, where: str, minimum: int = 0) -> int:
        # bool is an int in Python, but true is not 1 in a JSON document.
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, f"expected an integer, found {_kind(value)}")
        if value < minimum:
            raise self.fail(where, f"expected an integer of at least {minimum}, found {value}")
        return value

    def str(self, value: Any, where: str, nullable: bool = False) -> Optional[str]:
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string{' or null' if nullable else ''}, "
                            f"found {_kind(value)}")
        return value

    def identifier(self, value: Any, where: str) -> str:
        text = self.str(value, where)
        if not _IDENTIFIER.match(text):
            raise self.fail(where, f"{json.dumps(text)} is not an identifier "
                            "(a letter or _, then letters, digits or _, at most 31)")
        return text

    def enum(self, value: Any, where: str, choices: Tuple[str, ...]) -> str:
        if value not in choices or not isinstance(value, str):
            raise self.fail(where, f"{json.dumps(value)} is not one of {', '.join(choices)}")
        return value


def _kind(value: Any) -> str:
    """A JSON value's type as a reader would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {json.dumps(value[:40])}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def check_format(doc: Any, r: _Reader, module_version: str) -> None:
    """The "meshgen-resolve" key: present, the integer 1. Anything else is
    refused with what was found, before any other key is read, since a
    document of another format may mean something else by the same keys."""
    r.obj(doc, "")
    if "meshgen-resolve" not in doc:
        keys = ", ".join(sorted(doc)[:8]) or "none"
        raise r.fail("", 'not a meshgen resolve document: it has no "meshgen-resolve" key '
                     f"(its keys: {keys})")
    version = doc["meshgen-resolve"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise r.fail('"meshgen-resolve"', f"expected the format number {FORMAT}, found "
                     f"{_kind(version)}")
    if version != FORMAT:
        if version > FORMAT:
            why = (f"it was written by a newer meshgen; this meshgen module ({module_version}) "
                   f"reads format {FORMAT} only: use the module of the meshgen release that "
                   "wrote it")
        else:
            why = f"no meshgen writes format {version}; this module reads format {FORMAT}"
        raise r.fail('"meshgen-resolve"', f"the document is format {version}: {why}")


def _axes(doc: dict, r: _Reader) -> Tuple[Axis, ...]:
    raw = r.array(r.key(doc, "axes", ""), "axes", 1)
    if len(raw) > 16:
        raise r.fail("axes", f"{len(raw)} axes; a mesh has at most 16")
    axes, seen = [], {}
    for i, a in enumerate(raw):
        w = f"axes[{i}]"
        r.obj(a, w)
        name = r.identifier(r.key(a, "name", w), f"{w}.name")
        if name in seen:
            raise r.fail(f"{w}.name", f'axis "{name}" appears twice (first at axes[{seen[name]}])')
        seen[name] = i
        size, ici, dcn = (r.int(r.key(a, k, w), f"{w}.{k}", 1) for k in ("size", "ici", "dcn"))
        if size != ici * dcn:
            raise r.fail(w, f"size {size} is not ici x dcn = {ici} x {dcn} = {ici * dcn}")
        axes.append(Axis(name, size, ici, dcn, r.enum(r.key(a, "type", w), f"{w}.type",
                                                      _AXIS_TYPES)))
    return tuple(axes)


def _hosts(doc: dict, r: _Reader) -> Tuple[Host, ...]:
    hosts = []
    for i, h in enumerate(r.array(r.key(doc, "hosts", ""), "hosts", 1)):
        w = f"hosts[{i}]"
        r.obj(h, w)
        name = r.str(r.key(h, "name", w), f"{w}.name")
        if not name:
            raise r.fail(f"{w}.name", "a host name is never empty")
        granule = h.get("granule")
        hosts.append(Host(name, r.str(r.key(h, "slice", w), f"{w}.slice", nullable=True),
                          None if granule is None else r.int(granule, f"{w}.granule")))
    return tuple(hosts)


def _device(d: Any, i: int, n_hosts: int, r: _Reader) -> Device:
    w = f"devices[{i}]"
    r.obj(d, w)
    did = r.int(r.key(d, "id", w), f"{w}.id")
    if did != i:
        raise r.fail(f"{w}.id", f"{did}, but a device's id is its position ({i})")
    host = r.int(r.key(d, "host", w), f"{w}.host")
    if host >= n_hosts:
        raise r.fail(f"{w}.host", f"{host} is not a host (the document has {n_hosts})")
    numa = r.key(d, "numa", w)
    coords = d.get("coords")
    if coords is not None:
        coords = tuple(r.int(c, f"{w}.coords[{k}]")
                       for k, c in enumerate(r.array(coords, f"{w}.coords", 3)))
        if len(coords) != 3:
            raise r.fail(f"{w}.coords", f"{len(coords)} coordinates; a chip has x, y and z")
    core = d.get("core_on_chip")
    return Device(
        id=did, host=host, local=r.int(r.key(d, "local", w), f"{w}.local"),
        kind=r.enum(r.key(d, "kind", w), f"{w}.kind", _KINDS),
        pci=r.str(r.key(d, "pci", w), f"{w}.pci", nullable=True),
        vendor=r.str(d.get("vendor"), f"{w}.vendor", nullable=True),
        model=r.str(r.key(d, "model", w), f"{w}.model", nullable=True),
        uuid=r.str(d.get("uuid"), f"{w}.uuid", nullable=True),
        numa=None if numa is None else r.int(numa, f"{w}.numa"),
        cpuset=r.str(r.key(d, "cpuset", w), f"{w}.cpuset", nullable=True),
        coords=coords, core_on_chip=None if core is None else r.int(core, f"{w}.core_on_chip"))


def _mesh(doc: dict, r: _Reader, axes: Tuple[Axis, ...], n_devices: int) -> Tuple[int, ...]:
    raw = r.array(r.key(doc, "mesh", ""), "mesh", 1)
    want = math.prod(a.size for a in axes)
    if len(raw) != want:
        shape = " x ".join(str(a.size) for a in axes)
        raise r.fail("mesh", f"{len(raw)} positions, but the axes ({shape}) make {want}")
    where = {}
    for i, dev in enumerate(raw):
        r.int(dev, f"mesh[{i}]")
        if dev >= n_devices:
            raise r.fail(f"mesh[{i}]", f"device {dev} does not exist (the document has "
                         f"{n_devices} devices)")
        if dev in where:
            raise r.fail(f"mesh[{i}]", f"device {dev} is already at mesh[{where[dev]}]")
        where[dev] = i
    return tuple(raw)


def _processes(doc: dict, r: _Reader, n_hosts: int, mesh: Tuple[int, ...],
               n_devices: int) -> Tuple[Process, ...]:
    owner, processes = {}, []
    for i, p in enumerate(r.array(r.key(doc, "processes", ""), "processes", 1)):
        w = f"processes[{i}]"
        r.obj(p, w)
        pid = r.int(r.key(p, "id", w), f"{w}.id")
        if pid != i:
            raise r.fail(f"{w}.id", f"{pid}, but a process's id is its position ({i})")
        host = r.int(r.key(p, "host", w), f"{w}.host")
        if host >= n_hosts:
            raise r.fail(f"{w}.host", f"{host} is not a host (the document has {n_hosts})")
        devices = r.array(r.key(p, "devices", w), f"{w}.devices", 1)
        for k, dev in enumerate(devices):
            r.int(dev, f"{w}.devices[{k}]")
            if dev >= n_devices:
                raise r.fail(f"{w}.devices[{k}]", f"device {dev} does not exist (the document "
                             f"has {n_devices} devices)")
            if dev in owner:
                raise r.fail(f"{w}.devices[{k}]", f"device {dev} already belongs to process "
                             f"{owner[dev]}")
            owner[dev] = i
        stage = p.get("stage")
        processes.append(Process(pid, host, tuple(devices),
                                 None if stage is None else r.int(stage, f"{w}.stage")))
    for i, dev in enumerate(mesh):
        if dev not in owner:
            raise r.fail(f"mesh[{i}]", f"device {dev} belongs to no process")
    return tuple(processes)


def _sharding(name: Any, s: Any, r: _Reader, sizes: dict) -> Sharding:
    w = f"shardings.{name}"
    r.identifier(name, w)
    r.obj(s, w)
    spec, shards, used = [], [], {}
    raw_spec = r.array(r.key(s, "spec", w), f"{w}.spec")
    raw_shards = r.array(r.key(s, "shards", w), f"{w}.shards")
    if len(raw_spec) != len(raw_shards):
        raise r.fail(w, f"spec has {len(raw_spec)} dimensions and shards {len(raw_shards)}")
    for d, (dim, count) in enumerate(zip(raw_spec, raw_shards)):
        product = 1
        if dim is not None:
            for k, axis in enumerate(r.array(dim, f"{w}.spec[{d}]", 1)):
                if r.str(axis, f"{w}.spec[{d}][{k}]") not in sizes:
                    raise r.fail(f"{w}.spec[{d}][{k}]", f"{json.dumps(axis)} is not an axis of "
                                 "the mesh")
                if axis in used:
                    raise r.fail(f"{w}.spec[{d}][{k}]", f'axis "{axis}" already splits '
                                 f"dimension {used[axis]}")
                used[axis] = d
                product *= sizes[axis]
            dim = tuple(dim)
        if r.int(count, f"{w}.shards[{d}]", 1) != product:
            raise r.fail(f"{w}.shards[{d}]", f"{count}, but the axes of spec[{d}] make "
                         f"{product} shards")
        spec.append(dim)
        shards.append(count)
    shape = s.get("shape")
    if shape is not None:
        shape = tuple(r.int(x, f"{w}.shape[{d}]", 1)
                      for d, x in enumerate(r.array(shape, f"{w}.shape")))
        if len(shape) != len(shards):
            raise r.fail(f"{w}.shape", f"{len(shape)} dimensions, the spec {len(shards)}")
        for d, (x, n) in enumerate(zip(shape, shards)):
            if x % n:
                raise r.fail(f"{w}.shape[{d}]", f"{x} does not divide into {n} shards")
    local = s.get("local_shape")
    if local is not None:
        local = tuple(r.int(x, f"{w}.local_shape[{d}]", 1)
                      for d, x in enumerate(r.array(local, f"{w}.local_shape")))
    return Sharding(name, tuple(spec), tuple(shards), shape, local)


def read(doc: Any, source: str, module_version: str) -> dict:
    """The checked fields of a resolve document, as records; raises
    DocumentError naming the first key that breaks a rule."""
    r = _Reader(source)
    check_format(doc, r, module_version)
    for key in _REQUIRED:
        r.key(doc, key, "")
    axes = _axes(doc, r)
    mpmd = doc["mpmd"]
    if mpmd is not None and mpmd not in [a.name for a in axes]:
        raise r.fail("mpmd", f"{json.dumps(mpmd)} is not an axis of the mesh")
    hosts = _hosts(doc, r)
    devices = tuple(_device(d, i, len(hosts), r)
                    for i, d in enumerate(r.array(doc["devices"], "devices", 1)))
    mesh = _mesh(doc, r, axes, len(devices))
    processes = _processes(doc, r, len(hosts), mesh, len(devices))
    sizes = {a.name: a.size for a in axes}
    shardings = {name: _sharding(name, s, r, sizes)
                 for name, s in r.obj(doc["shardings"], "shardings").items()}
    return {"name": r.identifier(doc["name"], "name"), "axes": axes, "mpmd": mpmd,
            "device_kind": doc.get("device_kind"), "order": doc.get("order"), "hosts": hosts,
            "devices": devices, "mesh": mesh, "processes": processes, "shardings": shardings}


def parse(path: "os.PathLike[str] | str") -> Any:
    """A file's JSON, or a DocumentError that says where it stops being
    JSON (file:line:col) or why it could not be read."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except OSError as e:
        raise DocumentError(f"{name}: cannot read it: {e.strerror or e}") from None
    if len(data) > _MAX_BYTES:
        raise DocumentError(f"{name}: larger than {_MAX_BYTES} bytes; not a resolve document")
    return loads(data, name)


def loads(data: bytes, name: str) -> Any:
    """JSON text as a value, or a DocumentError located at file:line:col."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DocumentError(f"{name}: not UTF-8 (byte {e.start}): not a resolve document") \
            from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DocumentError(f"{name}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
    except RecursionError:
        raise DocumentError(f"{name}: nested too deeply; not a resolve document") from None
