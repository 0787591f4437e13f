#!/usr/bin/env bash
# Two H200s: strong scaling on Kronecker 26, weak scaling against Kronecker 27 on two.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 BFS_HOST_MEMORY=250G
cp BENCHMARKS.md $OUT/BENCHMARKS.md
SECONDS=0
timeout 420 bundle/bfs bench --gpus 1,2 --sources 64 --graph gen:kron:26 --graph gen:kron:27 \
    --markdown $OUT/BENCHMARKS.md > $OUT/bench.out 2> $OUT/bench.err
echo "bench rc $? after $SECONDS s"
grep -E "^bench:" $OUT/bench.err | tail -12
sed -n '/^## Scaling over GPUs/,/^## Issue/p' $OUT/BENCHMARKS.md | grep -E "^\| gen" | cut -c1-200
