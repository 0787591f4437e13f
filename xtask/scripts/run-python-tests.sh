#!/usr/bin/env bash
# Installs the bundle's wheel (offline, nothing else: numpy, scipy, networkx
# and pytest must be there) into a folder of its own, then runs the Python
# tests with the GPU required (a missing GPU fails), and networkx's own test
# modules with every call dispatched to the bfs_gpu backend. The Python is
# $BFS_PYTHON, else python3. Logs and the backend's declines go to $OUT
# when it is set.
set -uo pipefail
cd "$(dirname "$0")"
python=${BFS_PYTHON:-python3}
out=${OUT:-/tmp}
mkdir -p "$out"
packages=$(mktemp -d)
trap 'rm -rf "$packages"' EXIT
"$python" -m pip install --quiet --no-index --no-deps --target "$packages" wheels/*.whl || exit 1
export PYTHONPATH="$packages${PYTHONPATH:+:$PYTHONPATH}" BFS_REQUIRE_GPU=1 BFS_BINARY="$PWD/bfs"
echo "== tests/python (the package, its backend, bfs centrality)"
"$python" -m pytest -q -rs -p no:cacheprovider python/tests 2>&1 | tee "$out/python-tests.log"
package=${PIPESTATUS[0]}
echo "== networkx's own tests with the bfs_gpu backend"
declines="$out/networkx-declines.tsv"
rm -f "$declines"
(cd "$packages" && NETWORKX_TEST_BACKEND=bfs_gpu NETWORKX_FALLBACK_TO_NX=1 BFS_GPU_DECLINES="$declines" \
    "$python" -m pytest -q -p no:cacheprovider --pyargs $(cat "$OLDPWD/python/tests/networkx-modules.txt")) \
    2>&1 | tee "$out/networkx-tests.log"
networkx=${PIPESTATUS[0]}
if [ ! -s "$declines" ]; then
    echo "error: networkx's tests never asked the bfs_gpu backend"
    networkx=1
else
    echo "networkx's tests: the backend left $(cut -f1 "$declines" | sort -u | wc -l) tests' calls to networkx; reasons in $declines"
fi
echo "run-python-tests: package tests exit $package, networkx's tests exit $networkx"
[ "$package" -eq 0 ] && [ "$networkx" -eq 0 ]
