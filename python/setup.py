"""setuptools glue for pyproject.toml: the version, read from the project's
runtime header (meshgen/_version.py), and an installed copy that carries
it in meshgen/_installed.py, since an installed copy has no header beside
it. Building needs the source tree: python/ beside runtime/."""

import importlib.util
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _version_module():
    # By path: importing the package here would run its __init__ too.
    spec = importlib.util.spec_from_file_location(
        "_meshgen_version", os.path.join(HERE, "meshgen", "_version.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project_version():
    v = _version_module()
    path = v.header_path(os.path.join(HERE, "meshgen"))
    try:
        return v.from_header(path)
    except OSError as e:
        raise SystemExit(f"meshgen: cannot read the project's version from {path}: "
                         f"{e.strerror}; build the package from a meshgen source tree "
                         "(python/ beside runtime/)") from None
    except ValueError as e:
        raise SystemExit(f"meshgen: {e}") from None


VERSION = project_version()


class BuildPy(build_py):
    """build_py that writes the version into the built package."""

    def run(self):
        super().run()
        path = os.path.join(self.build_lib, "meshgen", "_installed.py")
        with open(path, "w", encoding="ascii") as f:
            f.write('"""Written by setup.py: the version this copy was built as."""\n\n'
                    f'VERSION = "{VERSION}"\n')


setup(version=VERSION, cmdclass={"build_py": BuildPy})
