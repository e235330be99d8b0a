"""The exceptions of the meshgen module: one base class, and one class per
way things go wrong, so that a caller can tell a bad file from a job that
was launched differently from what the inventory says."""


class Error(Exception):
    """Base class of every error this module raises on purpose."""


class DocumentError(Error, ValueError):
    """A resolve document that is not JSON, is of another format version, or
    breaks a rule of docs/reference.md §7; the message names the key."""


class ResolveError(Error):
    """`meshgen resolve` could not be run or refused the spec. `diagnostics`
    holds what meshgen printed on stderr (file:line:col: error: ... [check]),
    `returncode` its exit status (1: the inputs are wrong, 2: usage or I/O),
    None when it could not be started."""

    def __init__(self, message, diagnostics="", returncode=None):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.returncode = returncode


class MismatchError(Error, RuntimeError):
    """The running job is not the one the mesh describes: another number of
    devices or processes, a device in another process, another platform or
    TPU chip. The message gives both sides' numbers and the likely cause."""
