#!/bin/sh
# Installs what meshgen needs to build and test, when it is missing: Debian
# packages first (run as root; as another user it only says what is
# missing), then ajv, the second JSON Schema validator of the tests (with
# its draft-04 class and formats), and the official SARIF 2.1.0 schema
# (in @microsoft/jest-sarif), with `npm ci` into tools/npm/node_modules (ignored by git) at the exact
# versions tools/npm/package-lock.json pins. Nothing else is downloaded.
set -eu
cd "$(dirname "$0")/.."

# python3-numpy for the Python module's arrays (python/), and pip, setuptools
# and wheel for its offline install (tests/python/install_check.py).
PACKAGES="gcc clang clang-format make cmake ninja-build pkg-config libyaml-dev libhwloc-dev hwloc
libcmocka-dev python3 python3-jsonschema python3-yaml python3-numpy python3-pip python3-setuptools
python3-wheel openmpi-bin libopenmpi-dev valgrind gcovr
meson"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
# node and npm are asked for as commands, not packages: a machine may have
# them from elsewhere (NodeSource's nodejs bundles npm and conflicts with
# Debian's npm package), and any node from 18 on runs the pinned ajv.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"

if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "meshgen: missing Debian packages:$missing" >&2
        echo "meshgen: install them as root: apt-get install$missing" >&2
        exit 1
    fi
    echo "meshgen: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# The copy of the lock file kept beside the installed packages says which
# lock they were installed from: a changed pin reinstalls, nothing else does.
lock=tools/npm/package-lock.json
stamp=tools/npm/node_modules/.meshgen-package-lock.json
if ! cmp -s "$lock" "$stamp"; then
    echo "meshgen: installing the pinned npm packages of tools/npm (npm ci)"
    (cd tools/npm && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$lock" "$stamp"
fi
