#!/usr/bin/env bash
# The bundle's `cargo xtask bench`: times every variant on the default
# generated graphs plus the graph files given as arguments, and writes
# BENCHMARKS.md to $OUT (or here). Options of `bfs bench` go after `--`
# (`-- --device cpu --threads 2,16 --gapbs DIR` for the CPU section,
# `-- --many --gapbs DIR --python python3` for the many-sources one).
# Usage: bench.sh [GRAPH.mtx...] [-- BENCH OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")"
graphs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do graphs+=(--graph "$1"); shift; done
[ $# -gt 0 ] && shift
# `--many` takes its own number of sources: a batch's.
sources=(--sources 64)
for option in "$@"; do [ "$option" = "--many" ] && sources=(); done
./bfs bench "${sources[@]}" \
    --markdown "${OUT:-.}/BENCHMARKS.md" "${graphs[@]}" "$@"
