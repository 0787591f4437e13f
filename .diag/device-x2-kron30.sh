#!/usr/bin/env bash
# Two H200s: Kronecker 30 (larger than one H200's memory), built, searched over both, validated.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 BFS_HOST_MEMORY=250G
SECONDS=0
( while sleep 10; do echo "$SECONDS s: $(free -g | awk '/Mem:/ {print $3" GiB used"}'), $(nvidia-smi --query-gpu=memory.used --format=csv,noheader | tr '\n' ' ')"; done ) > $OUT/memory.log 2>&1 &
timeout ${LIMIT:-500} bundle/bfs --graph gen:kron:${SCALE:-30} --gpus 2 --sources ${SOURCES:-3} --verify --join-timeout 300 > $OUT/kron${SCALE:-30}.out 2> $OUT/kron${SCALE:-30}.err
echo "kron${SCALE:-30} rc $? after $SECONDS s"
kill %1
grep -v "━\|█" $OUT/kron${SCALE:-30}.err | tail -5; cat $OUT/kron${SCALE:-30}.out | tail -30; tail -4 $OUT/memory.log
