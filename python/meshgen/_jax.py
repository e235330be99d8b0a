"""A meshgen Mesh as JAX objects: jax.sharding.Mesh, PartitionSpec and
NamedSharding. Imported only when one of them is asked for; it imports
JAX (and numpy) itself.

JAX's devices are taken from jax.devices() by position, never by
Device.id: meshgen's device ids are inventory order, which is process
order (docs/reference.md §9, "Process order"), and jax.devices() lists the
devices in the same order, while Device.id need not count 0, 1, 2, ...
(two CPU processes of four devices list ids 0-3 and 2048-2051). What can be
checked is checked first: the numbers of devices and processes, each
device's process_index, the platform, and on TPU each chip's coords and
core_on_chip."""

from __future__ import annotations

from ._errors import Error, MismatchError

# meshgen's device kinds -> the platforms JAX gives such devices.
_PLATFORMS = {"gpu": ("gpu", "cuda", "rocm"), "tpu": ("tpu",), "core": ("cpu",),
              "pu": ("cpu",), "numa": ("cpu",), "package": ("cpu",)}
_SHOWN = 3  # mismatched devices quoted in one message


def partition_spec(mesh, s):
    """PartitionSpec(...) with one entry per dimension: None, the axis, or
    a tuple of axes (most significant first)."""
    from jax.sharding import PartitionSpec

    entries = []
    for dim in s.spec:
        if dim is None:
            entries.append(None)
        else:
            entries.append(dim[0] if len(dim) == 1 else tuple(dim))
    return PartitionSpec(*entries)


def named_sharding(mesh, s, jax_mesh):
    """NamedSharding over jax_mesh, which must have this mesh's axis names
    and sizes (a mesh built for another spec would shard another way)."""
    from jax.sharding import NamedSharding

    names = tuple(jax_mesh.axis_names)
    sizes = tuple(dict(jax_mesh.shape)[n] for n in names) if names == mesh.axis_names else None
    if names != mesh.axis_names or sizes != mesh.axis_sizes:
        have = ", ".join(f"{n}={dict(jax_mesh.shape).get(n)}" for n in names)
        want = ", ".join(f"{n}={v}" for n, v in mesh.shape.items())
        raise Error(f"sharding {s.name!r} is for mesh {mesh.name!r} ({want}); the JAX mesh "
                    f"given has {have or 'no axes'}: build it with Mesh.jax_mesh()")
    return NamedSharding(jax_mesh, partition_spec(mesh, s))


def jax_mesh(mesh, devices=None):
    """jax.sharding.Mesh over the devices at meshgen's positions, with the
    axis types; raises MismatchError when the job is not the mesh's."""
    import jax
    import numpy as np

    devices = list(jax.devices() if devices is None else devices)
    check_devices(mesh, devices)
    grid = np.empty(len(mesh.device_ids), dtype=object)
    for i, d in enumerate(mesh.device_ids):
        grid[i] = devices[d]
    grid = grid.reshape(mesh.axis_sizes)
    axis_type = getattr(jax.sharding, "AxisType", None)
    if axis_type is None:
        # JAX before AxisType treats every axis as what is now Auto; giving
        # it an explicit mesh silently would change what the spec means.
        if any(t != "auto" for t in mesh.axis_types):
            typed = ", ".join(f"{n}: {t}" for n, t in zip(mesh.axis_names, mesh.axis_types)
                              if t != "auto")
            raise Error(f"this JAX ({getattr(jax, '__version__', 'unknown version')}) has no "
                        f"jax.sharding.AxisType, and mesh {mesh.name!r} has typed axes "
                        f"({typed}): use a newer JAX, or types: auto in the spec")
        return jax.sharding.Mesh(grid, mesh.axis_names)
    types = tuple(getattr(axis_type, t.capitalize()) for t in mesh.axis_types)
    return jax.sharding.Mesh(grid, mesh.axis_names, axis_types=types)


def check_devices(mesh, devices):
    """The devices against the mesh: counts, then each device the mesh
    uses (process, platform, TPU chip). `devices: N` lets the job have more
    devices and processes than the mesh uses, never fewer."""
    n_proc = len({_process_index(d) for d in devices})
    want_dev, want_proc = len(mesh.device_ids), len(mesh.processes)
    whole = want_dev == len(mesh.devices)
    needed = max(mesh.device_ids) + 1
    if whole:
        bad = len(devices) != want_dev or n_proc != want_proc
    else:
        bad = len(devices) < needed or n_proc < want_proc or len(devices) > len(mesh.devices)
    if bad:
        raise MismatchError(_count_message(mesh, len(devices), n_proc, whole))
    wrong = [(d, _process_index(devices[d])) for d in mesh.device_ids
             if _process_index(devices[d]) != mesh.process_of(d)]
    if wrong:
        raise MismatchError(_process_message(mesh, wrong))
    platforms = _PLATFORMS.get(mesh.device_kind or "", ())
    for d in mesh.device_ids:
        platform = getattr(devices[d], "platform", None)
        if platforms and platform not in platforms:
            raise MismatchError(
                f"jax.devices()[{d}] is a {platform} device; mesh {mesh.name!r} places "
                f"{mesh.device_kind} devices ({_where(mesh, d)}): "
                + ("is this JAX built for GPUs (jax[cuda12] or jax[rocm])?"
                   if mesh.device_kind == "gpu" else
                   "was the mesh resolved for this machine's kind of device?"))
    if mesh.device_kind == "tpu":
        _check_tpu(mesh, devices)


def _process_index(device):
    return getattr(device, "process_index", 0)


def _where(mesh, d):
    dev = mesh.devices[d]
    return f"device {d}: host {mesh.hosts[dev.host].name}, local {dev.local}"


def _count_message(mesh, n_dev, n_proc, whole):
    want_dev, want_proc = len(mesh.device_ids), len(mesh.processes)
    at_least = "" if whole else "at least "
    head = (f"jax.devices() has {_n(n_dev, 'device')} in {_n(n_proc, 'process')}; the mesh "
            f"wants {at_least}{want_dev} in {want_proc}")
    if n_proc != want_proc:
        return (f"{head}: was jax.distributed.initialize called with "
                f"{_n(want_proc, 'process')} (process k on the k-th {_process_unit(mesh)} of "
                "the inventory)?")
    per = sorted({len(p.devices) for p in mesh.processes})
    per_text = " or ".join(str(x) for x in per)
    return (f"{head}: does each process see its {per_text} devices (all of its host's, "
            "CUDA_VISIBLE_DEVICES unset, or local_device_ids in jax.distributed.initialize)?")


def _n(count, noun):
    """'1 device', '2 devices', '1 process', '4 processes'."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun}es" if noun.endswith("s") else f"{count} {noun}s"


def _process_unit(mesh):
    """What one process is: a host, or a device of a host."""
    hosts = {p.host for p in mesh.processes}
    return "host" if len(hosts) == len(mesh.processes) else "device"


def _process_message(mesh, wrong):
    shown = "; ".join(f"jax.devices()[{d}] is in process {got}, the mesh puts it in process "
                      f"{mesh.process_of(d)} ({_where(mesh, d)})" for d, got in wrong[:_SHOWN])
    more = f" (and {len(wrong) - _SHOWN} more)" if len(wrong) > _SHOWN else ""
    return (f"{len(wrong)} of the mesh's {len(mesh.device_ids)} devices are in another "
            f"process than the inventory says: {shown}{more}: process k must run on the "
            f"k-th {_process_unit(mesh)} of the inventory "
            "(jax.distributed.initialize(process_id=k)), seeing its devices in PCI bus order "
            "(CUDA_DEVICE_ORDER=PCI_BUS_ID)")


def _check_tpu(mesh, devices):
    wrong = []
    for d in mesh.device_ids:
        want = mesh.devices[d]
        got_coords = getattr(devices[d], "coords", None)
        got_core = getattr(devices[d], "core_on_chip", None)
        got_coords = None if got_coords is None else tuple(got_coords)
        if got_coords != want.coords or got_core != want.core_on_chip:
            wrong.append((d, got_coords, got_core))
    if wrong:
        shown = "; ".join(
            f"jax.devices()[{d}] is chip {_xyz(c)} core {k}, the inventory's device {d} is "
            f"chip {_xyz(mesh.devices[d].coords)} core {mesh.devices[d].core_on_chip}"
            for d, c, k in wrong[:_SHOWN])
        more = f" (and {len(wrong) - _SHOWN} more)" if len(wrong) > _SHOWN else ""
        raise MismatchError(
            f"{len(wrong)} of the mesh's {len(mesh.device_ids)} TPU devices are other chips "
            f"than the inventory says: {shown}{more}: is the inventory's topology this "
            "slice's (docs/tpu.md), with its hosts in worker order?")


def _xyz(coords):
    return "none" if coords is None else "(" + ",".join(str(c) for c in coords) + ")"
