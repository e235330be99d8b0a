"""A stand-in for PyTorch, for the meshgen module's tests: torch.tensor
with reshape and tolist, torch.int, torch.cuda (its device count and
current device set by the test, set_device recorded), and
torch.distributed with a world the test sets."""

import numpy as np

from . import distributed  # noqa: F401

int = "int32"  # noqa: A001  (torch.int is a dtype named int)


class Tensor:
    def __init__(self, array):
        self._a = array

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return Tensor(self._a.reshape(shape))

    def tolist(self):
        return self._a.tolist()

    @property
    def shape(self):
        return self._a.shape

    @property
    def dtype(self):
        return str(self._a.dtype)


def tensor(data, dtype=None):
    return Tensor(np.array(data, dtype=dtype or "int64"))


class _Cuda:
    """torch.cuda: `count` devices visible, `current` None until a device
    is chosen; every set_device call is kept in `calls`."""

    def __init__(self):
        self.reset(0)

    def reset(self, count, current=None):
        self.count, self.current, self.calls = count, current, []

    def device_count(self):
        return self.count

    def is_initialized(self):
        return self.current is not None

    def current_device(self):
        return 0 if self.current is None else self.current

    def set_device(self, index):
        if not 0 <= index < self.count:
            raise RuntimeError(f"invalid device ordinal {index}")
        self.calls.append(index)
        self.current = index


cuda = _Cuda()
