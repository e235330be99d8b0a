"""A meshgen Mesh as a PyTorch DeviceMesh. Imported only when one is
asked for; it imports torch itself.

A DeviceMesh holds ranks, not devices: with `processes: device` rank k is
meshgen's process k, which owns one device, so the DeviceMesh is the mesh's
device ids replaced by their processes. torch's own init_device_mesh always
lays ranks out 0, 1, 2, ... row-major; passing meshgen's ranks instead
keeps every rank on its own device and puts it at the coordinates meshgen
chose (docs/reference.md §9)."""

from __future__ import annotations

import os
from collections import Counter

from ._errors import Error, MismatchError


def _one_device(mesh, p):
    if len(p.devices) != 1:
        raise Error(f"process {p.id} of mesh {mesh.name!r} holds {len(p.devices)} devices: "
                    "PyTorch runs one rank per device; resolve the spec with "
                    "processes: device")
    return p.devices[0]


def local_device(mesh, rank):
    """The rank's device index on its host (the index torch.cuda uses when
    the host's devices are all visible, in PCI bus order)."""
    if not isinstance(rank, int) or isinstance(rank, bool):
        raise TypeError(f"a rank is an int, not {type(rank).__name__}")
    n = len(mesh.processes)
    if not 0 <= rank < n:
        raise MismatchError(f"rank {rank} is not a process of mesh {mesh.name!r}, which has "
                            f"{n} (ranks 0 to {n - 1})")
    return mesh.devices[_one_device(mesh, mesh.processes[rank])].local


def _launch(mesh):
    """How torchrun would start the mesh's ranks, for messages."""
    per_host = Counter(p.host for p in mesh.processes)
    counts = set(per_host.values())
    if len(counts) == 1:
        return f"--nnodes={len(per_host)} --nproc-per-node={counts.pop()}"
    return f"{len(per_host)} nodes with {'/'.join(str(c) for c in sorted(counts))} ranks"


def device_mesh(mesh, device_type):
    """DeviceMesh(device_type, ranks at meshgen's coordinates); checks the
    world size, then the calling rank's device (see _use_device)."""
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import DeviceMesh

    for p in mesh.processes:
        _one_device(mesh, p)
    want = len(mesh.processes)
    if not dist.is_initialized():
        raise MismatchError(f"torch.distributed is not initialized: call "
                            f"torch.distributed.init_process_group() in each of mesh "
                            f"{mesh.name!r}'s {want} ranks first")
    world, rank = dist.get_world_size(), dist.get_rank()
    if world != want:
        raise MismatchError(f"torch.distributed has world size {world}; mesh {mesh.name!r} "
                            f"wants {want} ranks, one per device: was torchrun started with "
                            f"{_launch(mesh)}?")
    _use_device(mesh, device_type, torch, rank)
    ranks = [mesh.process_of(d) for d in mesh.device_ids]
    grid = torch.tensor(ranks, dtype=torch.int).reshape(mesh.axis_sizes)
    return DeviceMesh(device_type, grid, mesh_dim_names=mesh.axis_names)


def _use_device(mesh, device_type, torch, rank):
    """The calling rank's device: the launcher's LOCAL_RANK (when set) and
    the number of visible devices must agree with the inventory; the device
    is made current unless the process already chose one, which must then
    be the mesh's (DeviceMesh would otherwise pick rank % device_count)."""
    p = mesh.processes[rank]
    dev = mesh.devices[p.devices[0]]
    host = mesh.hosts[dev.host].name
    local_rank = os.environ.get("LOCAL_RANK")
    if local_rank is not None and local_rank.strip().isdigit():
        on_host = [q.id for q in mesh.processes if q.host == p.host]
        if int(local_rank) != on_host.index(rank):
            raise MismatchError(
                f"LOCAL_RANK is {local_rank} in rank {rank}; the mesh makes rank {rank} the "
                f"process {on_host.index(rank)} of host {host} (ranks {on_host[0]} to "
                f"{on_host[-1]}): was torchrun started with {_launch(mesh)}, hosts in the "
                "inventory's order?")
    handle = None if device_type == "cpu" else getattr(torch, device_type, None)
    if handle is None or not hasattr(handle, "device_count"):
        return
    n = handle.device_count()
    if dev.local >= n:
        on_host = sum(1 for d in mesh.devices if d.host == dev.host)
        raise MismatchError(
            f"torch.{device_type}.device_count() is {n} in rank {rank}; the mesh puts rank "
            f"{rank} on device {dev.local} of host {host}, which has {on_host}: let each "
            "process see all of its host's devices (CUDA_VISIBLE_DEVICES or "
            "ROCR_VISIBLE_DEVICES unset)")
    is_initialized = getattr(handle, "is_initialized", None)
    if is_initialized is not None and is_initialized():
        current = handle.current_device()
        if current != dev.local:
            raise MismatchError(
                f"rank {rank} already uses {device_type} device {current}; the mesh puts it "
                f"on device {dev.local} of host {host}: call torch.{device_type}.set_device("
                f"mesh.torch_device({rank})) before the first use of the device, or leave it "
                "to torch_device_mesh()")
        return
    handle.set_device(dev.local)
