"""The module's version, which is the project's: MESHGEN_VERSION_STRING in
runtime/include/meshgen/meshgen.h, the one place it is written. An
installed copy carries it in _installed.py, written by setup.py when the
package is built; a copy imported from a source tree reads the header
beside it. setup.py loads this file by path, so it imports nothing from
the package."""

import os
import re

_DEFINE = re.compile(rb'^#define MESHGEN_VERSION_STRING "([0-9]+\.[0-9]+\.[0-9]+)"\s*$', re.M)


def header_path(package_dir):
    """Where a source tree keeps the header, seen from python/meshgen/."""
    return os.path.join(package_dir, os.pardir, os.pardir, "runtime", "include", "meshgen",
                        "meshgen.h")


def from_header(path):
    """The version string the header defines; OSError when the file cannot
    be read, ValueError when it defines none."""
    with open(path, "rb") as f:
        found = _DEFINE.findall(f.read())
    if len(found) != 1:
        raise ValueError(f"{path}: expected one #define MESHGEN_VERSION_STRING \"X.Y.Z\", "
                         f"found {len(found)}")
    return found[0].decode("ascii")


def version():
    """This copy's version: the installed one's, else its source tree's."""
    try:
        from ._installed import VERSION  # written by setup.py into a built package

        return VERSION
    except ImportError:
        pass
    here = os.path.dirname(os.path.realpath(__file__))
    try:
        return from_header(header_path(here))
    except (OSError, ValueError):
        # A copy of python/meshgen taken out of its tree knows no version;
        # it still works, it just cannot say which release it is.
        return "0+unknown"
