#!/usr/bin/env bash
# Two H200s: the GPU suite (GPU required), then the exchange per level with two ranks.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 BFS_HOST_MEMORY=250G
SECONDS=0
bundle/run-tests.sh > $OUT/suite.out 2>&1; echo "suite rc $? after $SECONDS s"
grep -E "^test result|run-tests|FAILED|panicked" $OUT/suite.out | tail -20
for gpus in 1 2; do
  bundle/bfs --graph gen:kron:26 --gpus $gpus --source 3 --trace --verify > $OUT/trace-$gpus.txt 2>&1
  echo "trace $gpus rc $?"; tail -30 $OUT/trace-$gpus.txt
done
echo "done after $SECONDS s"
