#!/usr/bin/env bash
# Runs every bundled test executable with the GPU required: a test that finds
# no CUDA device fails instead of skipping. Logs go to $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")"
export BFS_REQUIRE_GPU=1
log="${OUT:-/tmp}/tests.log"
: >"$log"
failed=0
for test in tests/*; do
    name=$(basename "$test")
    echo "== $name"
    if ! "$test" --test-threads=1 2>&1 | tee -a "$log"; then
        failed=$((failed + 1))
    fi
done
echo "run-tests: $failed of $(ls tests | wc -l) test executables failed"
[ "$failed" -eq 0 ]
