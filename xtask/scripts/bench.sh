#!/usr/bin/env bash
# The bundle's `cargo xtask bench`: times every variant on the default
# generated graphs plus the graph files given as arguments, and writes
# BENCHMARKS.md to $OUT (or here). Options of `bfs bench` go after `--`
# (`-- --device cpu --threads 2,16 --gapbs DIR` for the CPU section).
# Usage: bench.sh [GRAPH.mtx...] [-- BENCH OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")"
graphs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do graphs+=(--graph "$1"); shift; done
[ $# -gt 0 ] && shift
./bfs bench --sources 64 \
    --markdown "${OUT:-.}/BENCHMARKS.md" "${graphs[@]}" "$@"
