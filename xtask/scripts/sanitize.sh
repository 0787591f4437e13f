#!/usr/bin/env bash
# Runs compute-sanitizer's memcheck, racecheck, synccheck and initcheck over
# every GPU variant on a small graph and two medium ones (scale-free, and
# high-diameter), each run with --verify; `partitioned` also with small
# partitions, staged anew at each search; `chain-contracted` and
# `hierarchy-sweep` also on a graph that is mostly chains, its search in
# shared memory (the 256² grid keeps too many vertices for that), and
# `hierarchy-sweep` on a grid missing nearly half its streets, whose
# hierarchy has wide vertices below the core (a warp each).
# `direction-optimizing` and `persistent-direction-optimizing` also on a
# star, whose hub is expanded in chunks.
# `nccl` (in the default list) is the search over GPUs through NCCL, on one
# GPU (`--gpus 1`), also on the star; memcheck leaves out API errors there,
# NCCL's own probes of its kernels' attributes, and racecheck leaves out
# NCCL's kernels. With one rank no claim goes
# to another, so `nccl` also runs the multi-GPU test of small claim regions
# on one GPU, whose 2, 3 and 5 ranks share it: every exchange kernel, and
# the rounds of claims past a region's room. Where there are two GPUs or
# more, `nccl` also runs over two (`--gpus 2`): the ranks' meeting on the
# GPU before they read each other's claims, which ranks sharing a GPU hold
# on the host instead.
# `symmetry` (in the default list) is the device's check of a graph's
# symmetry, which graphs of unknown symmetry take before their first
# search: the GPU test that compares it with the host's on every test graph.
# Fails on any sanitizer error. Usage:
# [SANITIZE_TOOLS="memcheck ..."] sanitize.sh [VARIANT...|nccl|symmetry]
set -uo pipefail
cd "$(dirname "$0")"
mkdir -p "${OUT:-/tmp}"
log="${OUT:-/tmp}/sanitize.log"
: >"$log"
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
    mapfile -t variants < <(./bfs --list-variants | cut -d' ' -f1)
    variants+=(nccl symmetry)
fi
graphs=("gen:grid:32x32:0.1" "gen:kron:14:8" "gen:grid:256x256:0.05")
failed=0
table=""
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    for variant in "${variants[@]}"; do
        runs=("${graphs[@]}")
        search=(--device gpu --variant "$variant")
        checks=()
        [ "$variant" = partitioned ] && runs+=("gen:grid:256x256:0.05 --partition-size 64")
        case "$variant" in
            chain-contracted) runs+=("gen:uniform:3000:3000") ;;
            # road:64000 keeps more junctions than shared memory holds: the grid sweeps.
            hierarchy-sweep) runs+=("gen:uniform:3000:3000" "gen:grid:100x100:0.45" "gen:road:64000") ;;
            direction-optimizing | persistent-direction-optimizing) runs+=("gen:star:10000") ;;
            nccl)
                runs+=("gen:star:10000")
                search=(--gpus 1)
                [ "$tool" = memcheck ] && checks=(--report-api-errors no)
                # NCCL's own kernels share memory racecheck cannot follow
                # (it reported hazards inside ncclDevKernel_SendRecv); ours
                # are checked, NCCL's left to NCCL.
                [ "$tool" = racecheck ] && checks=(--kernel-name-exclude kns=nccl)
                ;;
        esac
        [ "$variant" = symmetry ] && runs=("graphs of unknown symmetry")
        [ "$variant" = nccl ] && runs+=("ranks sharing a GPU")
        [ "$variant" = nccl ] && [ "$(nvidia-smi -L | wc -l)" -ge 2 ] && runs+=("gen:kron:14:8 over two GPUs")
        for graph in "${runs[@]}"; do
            run_log=$(mktemp)
            command=(./bfs "${search[@]}" --graph $graph --source 1 --verify)
            if [ "$graph" = "gen:kron:14:8 over two GPUs" ]; then
                # NCCL's setup under the tools takes longer than the default.
                command=(./bfs --gpus 2 --join-timeout 600 --graph gen:kron:14:8 --source 1 --verify)
            fi
            if [ "$graph" = "graphs of unknown symmetry" ]; then
                command=(env BFS_REQUIRE_GPU=1 tests/gpu
                    the_device_finds_the_symmetry_the_host_finds --test-threads=1)
            fi
            if [ "$graph" = "ranks sharing a GPU" ]; then
                command=(env CUDA_VISIBLE_DEVICES=0 BFS_REQUIRE_GPU=1 tests/multi_gpu
                    claims_past_a_regions_room_go_in_further_rounds --test-threads=1)
            fi
            if compute-sanitizer --tool "$tool" "${checks[@]}" --error-exitcode 99 \
                "${command[@]}" >"$run_log" 2>&1; then
                result="ok"
            else
                result="FAIL"
                failed=$((failed + 1))
            fi
            summary=$(grep -m1 -E "(ERROR|RACECHECK) SUMMARY" "$run_log" || echo "no summary")
            { echo "### $tool $variant $graph: $result"; cat "$run_log"; } >>"$log"
            rm -f "$run_log"
            table+=$(printf '%-10s %-16s %-42s %-5s %s' "$tool" "$variant" "$graph" "$result" "$summary")$'\n'
        done
    done
done
printf '%s' "$table"
echo "sanitize: $failed failed"
[ "$failed" -eq 0 ]
