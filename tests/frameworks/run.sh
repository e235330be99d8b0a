#!/bin/sh
# The meshgen Python module against the real JAX and PyTorch
# (tests/frameworks/README.md). Installs nothing and builds nothing.
#
#   tests/frameworks/run.sh prepare DIR [MESHGEN]
#       resolve every case with meshgen (default build/gen/meshgen) into
#       DIR/cases.json; needs no framework. Run it where meshgen is built.
#   tests/frameworks/run.sh [DIR]
#       run every part against the frameworks of $PYTHON (default python3):
#       JAX on 8, 16, 32 and 64 forced CPU devices, two JAX processes on
#       localhost, JAX on the GPUs, PyTorch's fake process group over world
#       sizes 1 to 64, one CUDA rank, and meshes against jax mesh_utils.
#       DIR holds a prepared cases.json; without DIR the cases are prepared
#       first into a temporary directory (which needs meshgen here).
#
# Prints each part's tallies and failures and, last, one line
# "frameworks: N passed, N failed, N skipped"; exits 1 when a part failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${PYTHON:-python3}
check="$here/check.py"

if [ "${1:-}" = prepare ]; then
    [ $# -ge 2 ] || { echo "usage: $0 prepare DIR [MESHGEN]" >&2; exit 2; }
    exec "$python" "$check" prepare "$2" "${3:-$root/build/gen/meshgen}"
fi

if [ $# -ge 1 ]; then
    dir=$1
    [ -f "$dir/cases.json" ] || { echo "$0: no $dir/cases.json (run.sh prepare $dir)" >&2; exit 2; }
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    "$python" "$check" prepare "$dir" "$root/build/gen/meshgen" || exit 2
fi

"$python" -c 'import jax, torch, numpy; print("jax", jax.__version__, "torch", torch.__version__, "numpy", numpy.__version__)' ||
    { echo "$0: $python has no jax, torch or numpy" >&2; exit 2; }

passed=0 failed=0 skipped=0
part() {
    # One part in its own process: XLA reads XLA_FLAGS once, and a process
    # that has initialized CUDA or jax.distributed cannot start over.
    name=$1
    shift
    echo "== $name"
    out=$("$@" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -E '^(TALLY|FAIL|SKIP|DEVICE IDS|Traceback)' || printf '%s\n' "$out" | tail -n 30
    if [ $rc -ne 0 ]; then
        [ -z "$(printf '%s\n' "$out" | grep -E '^(TALLY|FAIL)')" ] && printf '%s\n' "$out" | tail -n 30
        failed=$((failed + 1))
    elif printf '%s\n' "$out" | grep -q '^SKIP'; then
        skipped=$((skipped + 1))
    else
        passed=$((passed + 1))
    fi
}

for n in 8 16 32 64; do
    part "jax-cpu-$n" env JAX_PLATFORMS=cpu XLA_FLAGS="--xla_force_host_platform_device_count=$n" \
        "$python" "$check" jax-cpu "$dir" "$n"
done
part jax-procs "$python" "$check" jax-procs "$dir"
part jax-gpu "$python" "$check" jax-gpu "$dir"
part torch env CUDA_VISIBLE_DEVICES= "$python" "$check" torch "$dir" 1 2 4 8 16 32 64
part torch-gpu "$python" "$check" torch-gpu "$dir"
part mesh-utils env JAX_PLATFORMS=cpu "$python" "$check" mesh-utils "$dir"

echo "frameworks: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
