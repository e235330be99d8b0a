"""Stand-in torch.distributed: a world of `world` ranks seen from `rank`,
set by the test with init(); is_initialized() is False until then."""

_state = {"initialized": False, "world": 0, "rank": 0}


def init(world, rank):
    """Test helper: as init_process_group(world_size=world, rank=rank)."""
    _state.update(initialized=True, world=world, rank=rank)


def destroy():
    _state.update(initialized=False, world=0, rank=0)


def is_initialized():
    return _state["initialized"]


def get_world_size():
    if not _state["initialized"]:
        raise RuntimeError("Default process group has not been initialized")
    return _state["world"]


def get_rank():
    if not _state["initialized"]:
        raise RuntimeError("Default process group has not been initialized")
    return _state["rank"]
