"""Stand-in jax.sharding: Mesh, AxisType, PartitionSpec and NamedSharding
recording what they were built with, as JAX's constructors take it."""

import enum

import numpy as np


class AxisType(enum.Enum):
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()


# Kept apart from the attribute, which a test deletes to play an older JAX.
_AUTO = AxisType.Auto


class Mesh:
    def __init__(self, devices, axis_names, axis_types=None):
        self.devices = np.asarray(devices, dtype=object)
        self.axis_names = tuple(axis_names)
        if self.devices.ndim != len(self.axis_names):
            raise ValueError(f"mesh of {self.devices.ndim} dimensions given "
                             f"{len(self.axis_names)} names")
        # JAX's default when no types are given.
        self.axis_types = tuple(axis_types) if axis_types is not None else \
            (_AUTO,) * len(self.axis_names)
        self.shape = dict(zip(self.axis_names, self.devices.shape))

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)


class PartitionSpec(tuple):
    def __new__(cls, *entries):
        return super().__new__(cls, entries)

    def __repr__(self):
        return "PartitionSpec" + super().__repr__()


class NamedSharding:
    def __init__(self, mesh, spec):
        self.mesh = mesh
        self.spec = spec
