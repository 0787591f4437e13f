#!/usr/bin/env bash
# Two H200s: the scaling benchmark (kron:28 first, then 26 and 27 for weak scaling).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 BFS_HOST_MEMORY=250G
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nvidia-smi topo -m; nproc; free -g; } > $OUT/machine.txt 2>&1
cp BENCHMARKS.md $OUT/BENCHMARKS.md
SECONDS=0
timeout 580 bundle/bfs bench --gpus 1,2 --sources 64 --graph gen:kron:28 --graph gen:kron:26 --graph gen:kron:27 \
    --markdown $OUT/BENCHMARKS.md > $OUT/bench.out 2> $OUT/bench.err
echo "bench rc $? after $SECONDS s"
grep -E "bench:|built|error" $OUT/bench.err | tail -20
sed -n '/## Scaling over GPUs/,$p' $OUT/BENCHMARKS.md | grep -E "^\| (gen|[0-9])" | cut -c1-220
