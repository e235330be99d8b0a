"""Stand-in DeviceMesh: keeps the device type, the rank tensor and the
dimension names it was built with, refusing what the real one refuses
(a rank twice, names that do not match the dimensions)."""


class DeviceMesh:
    def __init__(self, device_type, mesh, *, mesh_dim_names=None):
        ranks = mesh.tolist()
        flat = _flatten(ranks)
        if len(set(flat)) != len(flat):
            raise RuntimeError("DeviceMesh cannot have duplicate values")
        if mesh_dim_names is not None and len(mesh_dim_names) != len(mesh.shape):
            raise RuntimeError("mesh_dim_names must have the same length as the mesh's dims")
        self.device_type = device_type
        self.mesh = mesh
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names else None
        self.shape = tuple(mesh.shape)


def _flatten(x):
    return [v for item in x for v in _flatten(item)] if isinstance(x, list) else [x]
