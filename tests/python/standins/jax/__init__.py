"""A stand-in for JAX, for the meshgen module's tests: only what the module
touches (jax.devices(), Device's process_index, platform, coords and
core_on_chip, jax.sharding), with the device list set by the test.

Device ids are deliberately never positions: as real JAX's CPU devices in
several processes count 0-3, then 2048-2051, the stand-in's ids of process
p start at 2048 * (p + 1), so a module that indexed jax.devices() by
Device.id would fail even on a one-process mesh."""

from . import sharding  # noqa: F401  (jax.sharding is an attribute of jax)

__version__ = "0.0-standin"

_devices = []


class Device:
    """A device as jax.devices() lists it."""

    def __init__(self, id, process_index=0, platform="cpu", coords=None, core_on_chip=None,
                 slice_index=None):
        self.id = id
        self.process_index = process_index
        self.platform = platform
        if coords is not None:
            self.coords = tuple(coords)
            self.core_on_chip = core_on_chip
        if slice_index is not None:
            self.slice_index = slice_index

    def __repr__(self):
        return f"StandinDevice(id={self.id}, process_index={self.process_index})"


def devices():
    return list(_devices)


def set_devices(devices_):
    """Test helper: what jax.devices() returns from now on."""
    _devices[:] = list(devices_)


def devices_for(doc, processes=None, platform=None):
    """Test helper: the devices a job that matches a resolve document would
    list, in process order: each device in its process (a device outside
    the mesh in its host's first process), TPU chips where the document
    has them. `processes` overrides the process of each device id."""
    owner = {d: p["id"] for p in doc["processes"] for d in p["devices"]}
    first = {}
    for p in doc["processes"]:
        first.setdefault(p["host"], p["id"])
    kind = doc.get("device_kind")
    plat = platform or {"gpu": "gpu", "tpu": "tpu"}.get(kind, "cpu")
    out, seen = [], {}
    for d in doc["devices"]:
        proc = owner.get(d["id"], first.get(d["host"], d["host"]))
        if processes is not None:
            proc = processes[d["id"]]
        local = seen.get(proc, 0)
        seen[proc] = local + 1
        out.append(Device(2048 * (proc + 1) + local, proc, plat, d.get("coords"),
                          d.get("core_on_chip")))
    return out
