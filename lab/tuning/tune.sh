#!/usr/bin/env bash
# tune.sh: the tuning experiments behind results/NOTES.md (needs a GPU).
#
#     make all bench tune && bash lab/tuning/tune.sh
#
# Writes results/<gpu>/tuning/rerun.csv with the harness's CSV columns: the
# steps, CUB and the variants of lab/tuning/tune.cu at 2^20 (cold and warm L2,
# three repeats), and block sizes 256, 512 and 1024 at 2^20, 2^24 and 2^28.
# The committed round1.csv and round2.csv were measured when the steps'
# default block was 256; here every block size is spelled out.
set -eu
cd "$(dirname "$0")/../.."
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')
out=results/$gpu/tuning/rerun.csv
mkdir -p "$(dirname "$out")"
./step03 --csv --n 1 2>/dev/null | head -1 > "$out"
run() { echo "  $*" >&2; "$@" --csv | tail -n +2 >> "$out"; }

T=build/tune/tune_
variants="${T}L4_K0_M0_T0 ${T}L4_K0_M0_T1 ${T}L4_K0_M0_T2 ${T}L4_K0_M1_T0 ${T}L4_K0_M1_T2 \
          ${T}L8_K1_M1_T0 ${T}L4_K0_M0_T8 ${T}L4_K0_M0_T9 ${T}L2_K0_M0_T0 ${T}L8_K0_M0_T0 \
          ${T}L4_K1_M0_T0 ${T}L4_K2_M0_T0"
for rep in 1 2 3; do
    for p in ./step03 ./step05 ./step06 ./step07 $variants; do
        run $p --n 2^20 --reps 200 --block 256
        run $p --n 2^20 --reps 200 --block 256 --warm
    done
    run ./build/bench/cub_sum --n 2^20 --reps 200
    run ./build/bench/cub_sum --n 2^20 --reps 200 --warm
done
for b in 256 512 1024; do
    for p in ./step02 ./step03 ./step06 ./step07 ${T}L4_K0_M0_T2 ${T}L4_K0_M1_T2 ${T}L4_K0_M0_T9; do
        run $p --n 2^28 --reps 30 --block $b
        run $p --n 2^24 --reps 50 --block $b
        run $p --n 2^20 --reps 100 --block $b
    done
    run ./build/bench/cub_sum --n 2^28 --reps 30
    run ./build/bench/cub_sum --n 2^24 --reps 50
done
echo "wrote $out" >&2
