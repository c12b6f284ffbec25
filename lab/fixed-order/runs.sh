#!/usr/bin/env bash
# runs.sh: runs.cu's bits against its CPU replica (runs_replica.c), at sizes
# odd and even, grids and blocks; one line each, PASS or FAIL. Needs a GPU
# (variants.sh builds runs; this builds the replica). Timing: variants.sh
# with PROGRAMS="step07 step08 cub_sum runs".
set -u
cd "$(dirname "$0")/../.."
B=build/lab/fixed-order
[ -x $B/runs ] || { echo "runs.sh: build $B/runs first (BUILD_ONLY=1 bash lab/fixed-order/variants.sh x.csv)" >&2; exit 2; }
gcc -O2 -std=c11 -Wall -Wextra -Werror -fopenmp -I"${CUDA_HOME:-/usr/local/cuda}/include" \
    -c lab/fixed-order/runs_replica.c -o $B/runs_replica.o &&
    nvcc -o $B/runs_replica $B/runs_replica.o build/float/libharness.a -lgomp || exit 1
fails=0
check() {           # check N SEED [OPTIONS...]: the GPU's bits are the replica's
    local n=$1 seed=$2; shift 2
    local want got
    want=$($B/runs_replica "$n" "$seed" | cut -d' ' -f1)
    got=$($B/runs --n "$n" --seed "$seed" --check-only --csv "$@" 2>&1 |
          python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print(r[-1]["sum_hex"][2:] if r else "none", r[-1]["status"] if r else "")')
    if [ "${got% *}" = "$want" ] && [ "${got#* }" = OK ]; then echo "PASS runs n=$n seed=$seed $*: $want"
    else echo "FAIL runs n=$n seed=$seed $*: GPU $got, replica $want"; fails=$((fails + 1)); fi
}
for n in 1000 131072 131073 262145 2^20+3 16777217 2^25 2^25+12345 2^26-3 2^28; do check "$n" 1; done
for seed in 2 3; do check 2^25+7 "$seed"; done
for g in 1 3 100 1000 5000; do check 2^25+7 1 --grid "$g"; done
for b in 32 256 1024; do check 2^26+5 1 --block "$b"; done
echo "runs.sh: $fails failed"
[ $fails = 0 ]
