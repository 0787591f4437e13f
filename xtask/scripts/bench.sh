#!/usr/bin/env bash
# The bundle's `cargo xtask bench`: times every variant on the default
# generated graphs plus the graph files given as arguments, and writes
# BENCHMARKS.md to $OUT (or here). Usage: bench.sh [GRAPH.mtx...]
set -euo pipefail
cd "$(dirname "$0")"
graphs=()
for graph in "$@"; do graphs+=(--graph "$graph"); done
./bfs bench --sources 64 \
    --markdown "${OUT:-.}/BENCHMARKS.md" "${graphs[@]}"
