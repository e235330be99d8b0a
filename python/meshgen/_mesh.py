"""The Mesh: a resolved mesh as Python values, with the semantics of
docs/reference.md §9 (row-major coordinates, groups along axes, shards and
replica ids) computed from the document alone, and the calls that hand the
mesh to JAX and PyTorch (in _jax.py and _torch.py, imported only when
called, so that reading a mesh needs neither framework nor numpy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, Optional, Sequence, Tuple, Union

from ._document import Axis, Device, Host, Process, Sharding

Axes = Union[str, Iterable[str]]


@dataclass(frozen=True)
class Shard:
    """What one device holds of an array: `index` is a tuple of slices over
    the global shape, as JAX's Shard.index and devices_indices_map give it
    (slice(None) for a dimension that is not split), and `replica_id` the
    number of earlier devices, in mesh order, that hold the same slice."""

    device: int
    index: Tuple[slice, ...]
    replica_id: int


class Mesh:
    """A mesh that `meshgen resolve` resolved (meshgen.resolve, meshgen.load).

    The names follow JAX's Mesh where they can: `axis_names`, `axis_sizes`,
    `shape` (a dict, axis name -> size), `axis_types`; and PyTorch's
    DeviceMesh for `mesh` (the device ids in the mesh's shape, a numpy
    array). `devices` is every device of the inventory in inventory order (a
    device's id is its position), `processes` the processes in order,
    `shardings` the spec's named shardings."""

    def __init__(self, fields: dict, document: dict, notes: Sequence[str] = ()):
        self.name: str = fields["name"]
        self.axes: Tuple[Axis, ...] = fields["axes"]
        self.mpmd: Optional[str] = fields["mpmd"]
        self.device_kind: Optional[str] = fields["device_kind"]
        self.order: Optional[str] = fields["order"]
        self.hosts: Tuple[Host, ...] = fields["hosts"]
        self.devices: Tuple[Device, ...] = fields["devices"]
        self.device_ids: Tuple[int, ...] = fields["mesh"]
        self.processes: Tuple[Process, ...] = fields["processes"]
        self.shardings: Dict[str, Sharding] = fields["shardings"]
        self.document = document
        self.notes = tuple(notes)
        self.axis_names: Tuple[str, ...] = tuple(a.name for a in self.axes)
        self.axis_sizes: Tuple[int, ...] = tuple(a.size for a in self.axes)
        self.axis_types: Tuple[str, ...] = tuple(a.type for a in self.axes)
        self._position = {d: i for i, d in enumerate(self.device_ids)}
        self._process = {d: p.id for p in self.processes for d in p.devices}

    def __repr__(self) -> str:
        shape = ", ".join(f"{n}={s}" for n, s in zip(self.axis_names, self.axis_sizes))
        n, p = len(self.device_ids), len(self.processes)
        kind = self.device_kind or "device"
        return (f"meshgen.Mesh({self.name!r}: {shape}; {n} {kind}{'s' if n != 1 else ''} in "
                f"{p} process{'es' if p != 1 else ''})")

    @property
    def shape(self) -> Dict[str, int]:
        """Axis name -> size, outermost first (as JAX's Mesh.shape)."""
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        """The number of devices in the mesh."""
        return len(self.device_ids)

    @property
    def mesh(self):
        """The device id at each position, as a numpy array of the mesh's
        shape (PyTorch's DeviceMesh.mesh, JAX's Mesh.device_ids)."""
        import numpy as np

        return np.array(self.device_ids, dtype=np.int64).reshape(self.axis_sizes)

    # ---- coordinates, processes, groups ---------------------------------------------

    def _axis_indices(self, axes: Axes) -> Tuple[int, ...]:
        """Axis names (one name or several) as indices, in mesh order."""
        names = (axes,) if isinstance(axes, str) else tuple(axes)
        out = set()
        for n in names:
            if n not in self.axis_names:
                raise KeyError(f"mesh {self.name!r} has no axis {n!r} (its axes: "
                               f"{', '.join(self.axis_names)})")
            out.add(self.axis_names.index(n))
        return tuple(sorted(out))

    def _flat(self, device: int) -> int:
        if device not in self._position:
            raise KeyError(f"device {device} is not in mesh {self.name!r} (it holds "
                           f"{self.size} of the inventory's {len(self.devices)} devices)")
        return self._position[device]

    def coords(self, device: int) -> Tuple[int, ...]:
        """The device's coordinates: the mixed radix of its position over
        the axis sizes, the last axis varying fastest."""
        rest, out = self._flat(device), []
        for size in reversed(self.axis_sizes):
            out.append(rest % size)
            rest //= size
        return tuple(reversed(out))

    def device_at(self, coords: Sequence[int]) -> int:
        """The device id at the given coordinates."""
        if len(coords) != len(self.axis_sizes):
            raise ValueError(f"{len(coords)} coordinates for a mesh of {len(self.axes)} axes")
        flat = 0
        for c, size, name in zip(coords, self.axis_sizes, self.axis_names):
            if not 0 <= c < size:
                raise IndexError(f"coordinate {c} is outside axis {name!r} (size {size})")
            flat = flat * size + c
        return self.device_ids[flat]

    def process_of(self, device: int) -> int:
        """The process that holds the device (the torch rank with
        `processes: device`)."""
        self._flat(device)
        return self._process[device]

    def stage_of(self, device: int) -> int:
        """The device's MPMD stage (its coordinate on the mpmd axis), 0
        without an MPMD axis."""
        if self.mpmd is None:
            self._flat(device)
            return 0
        return self.coords(device)[self.axis_names.index(self.mpmd)]

    def group(self, device: int, axes: Axes) -> Tuple[int, ...]:
        """The device's group along the named axes: the devices whose
        coordinates equal its own on every other axis, in mesh order (as
        DeviceMesh's sub-mesh over those axes lists them, row-major)."""
        chosen = self._axis_indices(axes)
        base = list(self.coords(device))
        out = []
        for k in range(_count(self.axis_sizes, chosen)):
            rest = k
            for a in reversed(chosen):
                base[a] = rest % self.axis_sizes[a]
                rest //= self.axis_sizes[a]
            out.append(self.device_at(base))
        return tuple(out)

    def group_index(self, device: int, axes: Axes) -> Tuple[int, int]:
        """(group number, rank in the group) of the device along the named
        axes: groups are numbered row-major over the other axes (an
        MPI_Comm_split colour), the rank is row-major over the named ones."""
        chosen = self._axis_indices(axes)
        c = self.coords(device)
        number = rank = 0
        for a, size in enumerate(self.axis_sizes):
            if a in chosen:
                rank = rank * size + c[a]
            else:
                number = number * size + c[a]
        return number, rank

    def groups(self, axes: Axes) -> Tuple[Tuple[int, ...], ...]:
        """Every group along the named axes, in group-number order."""
        names = [self.axis_names[a] for a in self._axis_indices(axes)]
        found: Dict[int, Tuple[int, ...]] = {}
        for d in self.device_ids:
            number, rank = self.group_index(d, names)
            if rank == 0:
                found[number] = self.group(d, names)
        return tuple(found[k] for k in sorted(found))

    # ---- shardings ------------------------------------------------------------------

    def _sharding(self, name: str) -> Sharding:
        if name not in self.shardings:
            have = ", ".join(self.shardings) or "none"
            raise KeyError(f"mesh {self.name!r} has no sharding {name!r} (its shardings: "
                           f"{have})")
        return self.shardings[name]

    def _global_shape(self, s: Sharding, shape: Optional[Sequence[int]]) -> Tuple[int, ...]:
        if shape is None:
            if s.shape is None:
                raise ValueError(f"sharding {s.name!r} gives no shape: pass the array's "
                                 "shape")
            return s.shape
        shape = tuple(int(x) for x in shape)
        if len(shape) < len(s.spec):
            raise ValueError(f"sharding {s.name!r} splits {len(s.spec)} dimensions; the shape "
                             f"{shape} has {len(shape)}")
        for d, (x, n) in enumerate(zip(shape, s.shards)):
            if x < 0 or x % n:
                raise ValueError(f"sharding {s.name!r} splits dimension {d} into {n} shards; "
                                 f"{x} does not divide by {n} (JAX raises IndivisibleError)")
        return shape

    def shard(self, name: str, device: int, shape: Optional[Sequence[int]] = None) -> Shard:
        """What the device holds of an array of the given global shape (the
        sharding's own shape when None) under the named sharding: dimension
        d over axes (a1..ak) is split by the mixed radix of the device's
        coordinates on them, a1 most significant; dimensions past the spec
        are whole."""
        s = self._sharding(name)
        glob = self._global_shape(s, shape)
        c = self.coords(device)
        index = []
        for d, size in enumerate(glob):
            axes = s.spec[d] if d < len(s.spec) else None
            n = s.shards[d] if d < len(s.spec) else 1
            if not axes or n == 1:
                index.append(slice(None))
                continue
            k = 0
            for axis in axes:
                a = self.axis_names.index(axis)
                k = k * self.axis_sizes[a] + c[a]
            step = size // n
            index.append(slice(k * step, (k + 1) * step))
        # The devices holding the same slice differ only on the axes the
        # spec leaves out; in mesh order the earlier ones are exactly those
        # below this device in the mixed radix over those axes.
        used = {a for dim in s.spec if dim for a in dim}
        replica = 0
        for a, size in enumerate(self.axis_sizes):
            if self.axis_names[a] not in used:
                replica = replica * size + c[a]
        return Shard(device, tuple(index), replica)

    def devices_indices_map(self, name: str, shape: Optional[Sequence[int]] = None
                            ) -> Dict[int, Tuple[slice, ...]]:
        """Device id -> index, for every device of the mesh in mesh order
        (NamedSharding.devices_indices_map, keyed by meshgen's ids)."""
        return {d: self.shard(name, d, shape).index for d in self.device_ids}

    # ---- the frameworks -------------------------------------------------------------

    def partition_spec(self, name: str):
        """The named sharding as a jax.sharding.PartitionSpec."""
        from . import _jax

        return _jax.partition_spec(self, self._sharding(name))

    def named_sharding(self, name: str, jax_mesh):
        """The named sharding as a jax.sharding.NamedSharding over jax_mesh
        (which must have this mesh's axes, e.g. from jax_mesh())."""
        from . import _jax

        return _jax.named_sharding(self, self._sharding(name), jax_mesh)

    def jax_mesh(self, devices=None):
        """A jax.sharding.Mesh with this mesh's axes, axis types and device
        order, from jax.devices() (or the given list) indexed by position,
        after checking that the job is the one the inventory describes;
        raises MismatchError with both sides' numbers otherwise."""
        from . import _jax

        return _jax.jax_mesh(self, devices)

    def torch_device(self, rank: int) -> int:
        """The local device index of a rank (process), for
        torch.cuda.set_device; one device per process is required."""
        from . import _torch

        return _torch.local_device(self, rank)

    def torch_device_mesh(self, device_type: str = "cuda"):
        """A torch DeviceMesh holding each rank at meshgen's coordinates,
        after checking the world size and the calling rank's device;
        raises MismatchError with both sides' numbers otherwise."""
        from . import _torch

        return _torch.device_mesh(self, device_type)


def _count(sizes: Tuple[int, ...], chosen: Tuple[int, ...]) -> int:
    n = 1
    for a in chosen:
        n *= sizes[a]
    return n
