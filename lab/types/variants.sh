#!/usr/bin/env bash
# variants.sh OUTDIR: step 12 beside two schedule variants, in alternating
# rounds (cold L2, the harness's median), then step 12 over grids and blocks
# at 2^24. Each variant is step 12's own source changed by an edit here;
# each row is checked by the harness against the exact reference (status OK).
# Needs a GPU; lab/types/README.md ("The gaps to CUB") says what each found.
#
#   bounds      __launch_bounds__(1024, 2): at most 32 registers a thread, so
#               argmax (35 and 39 without) keeps four blocks of 512 per SM
#   lastround   the loads of the last, short round guarded and issued
#               together, instead of one vector at a time
#   grid3       at most 1536 threads a SM (three blocks of 512, not four) at
#               every n; step 12 caps only from 2 to 16 rounds a thread
#   grid4       every block that fits, at every n (step 12 before the cap)
#   argvec      argmax keeps the largest key and its vector, as max keeps
#               the key, and looks for the index in that vector once, at
#               the end (a second load of 16 bytes a thread)
#   argstrict   argmax's search entered on a larger key, or an equal one
#               with a smaller index: ptxas predicates the search for bf16
#               too (31 registers, 9.81 instructions an element, not 7.66)
#   argcombine  argmax's search entered on a key at least as large, its pair
#               then combined (the step before: 35, 39 and 35 registers)
#   firstphase  (WRONG results, times only) the kernel up to each block's
#               partial: no grid.sync() and no last fold. The step's time
#               less this one's is what the combine costs (VARIANTS only)
#   argshuffle  argmax's tile tree as five rounds of shuffles of the whole
#               pair and a combine, as every other operator's (the step before:
#               the step folds it by three 4-byte cg::reduce calls, REDUX)
#
# VARIANTS="grid3 argvec" times only those, each after step 12, and skips the
# grid sweep (default: all eight and the sweep); PAIRS (TYPE:OP ...) and SIZES
# (as --n) choose the rows, ROUNDS how many rounds (3).
#
# Writes OUTDIR/variants.csv (program, round, the harness's columns) and
# OUTDIR/grid.csv (step 12 at 2^24, block 256, 512, 1024 by grid).
# BUILD_ONLY=1 builds the variants and stops (no GPU needed).
set -eu
out=${1:?usage: variants.sh OUTDIR}
cd "$(dirname "$0")/../.."
make -s step12
B=build/lab/types
mkdir -p "$B" "$out"
objs="build/float/types/*.o build/float/libharness.a"
nv() { nvcc -O3 -lineinfo -std=c++20 $(cat build/gencode) "$@" $objs -lgomp; }
# edit OUT 'old' 'new' ...: OUT is step 12 with each old text replaced once (each must be there)
edit() {
    python3 - "$@" <<'PY'
import sys
dst, *pairs = sys.argv[1:]
s = open("steps/12_types.cu").read().replace('"../common/', '"../../../common/')
for old, new in zip(pairs[::2], pairs[1::2]):
    if s.count(old) != 1:
        sys.exit(f"variants: {dst}: '{old[:40]}' found {s.count(old)} times in steps/12_types.cu")
    s = s.replace(old, new)
open(dst, "w").write(s)
PY
}
edit $B/bounds.cu '__global__ void reduce_kernel' '__global__ void __launch_bounds__(1024, 2) reduce_kernel'
edit $B/lastround.cu \
'    for (; i + (LOADS_IN_FLIGHT - 1) * stride < count; i += LOADS_IN_FLIGHT * stride) {
        vec16<In> v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = vecs[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            fold_vector<In, Op>(acc, v[k], head + (i + k * stride) * W);
    }
    for (; i < count; i += stride)                        // fewer than a round left
        fold_vector<In, Op>(acc, vecs[i], head + i * W);' \
'    auto round = [&](bool full) {
        vec16<In> v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            if (full || i + k * stride < count) v[k] = vecs[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            if (full || i + k * stride < count)
                fold_vector<In, Op>(acc, v[k], head + (i + k * stride) * W);
    };
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < count; i += LOADS_IN_FLIGHT * stride)
        round(true);
    round(false);'
cap='    if (resident < needed && needed < 16 * resident)
        resident = (size_t)min(per_sm, max(1, 1536 / L->block)) * L->sm_count;'
edit $B/grid3.cu "$cap" '    resident = (size_t)min(per_sm, max(1, 1536 / L->block)) * L->sm_count;'
edit $B/grid4.cu "$cap"$'\n' ''
edit $B/argvec.cu \
'        int keys[W], best = INT_MIN, at = 0;
        #pragma unroll
        for (int j = 0; j < W; j++)
            best = max(best, keys[j] = Op::element(v.x[j], 0).key);
        if (best > acc.key || acc.index == LLONG_MAX) {   // rare, after the first rounds
            #pragma unroll
            for (int j = W - 1; j >= 0; j--)
                at = keys[j] == best ? j : at;
            acc = { best, (long long)(first + at) };
        }' \
'        int best = INT_MIN;
        #pragma unroll
        for (int j = 0; j < W; j++)
            best = max(best, Op::element(v.x[j], 0).key);
        if (best > acc.key || (best == acc.key && (long long)first < acc.index))
            acc = { best, (long long)first };             // the vector: its index found at the end' \
'    if (tail + rank < n)
        acc = Op::combine(acc, Op::element(in[tail + rank], tail + rank));
    return acc;' \
'    if (tail + rank < n)
        acc = Op::combine(acc, Op::element(in[tail + rank], tail + rank));
    if constexpr (std::is_same_v<Op, ArgMax<In>>)
        if ((long long)head <= acc.index && acc.index < (long long)tail) {   // a vector: which element
            vec16<In> v = vecs[(acc.index - head) / W];
            int at = 0;
            #pragma unroll
            for (int j = W - 1; j >= 0; j--)
                at = Op::element(v.x[j], 0).key == acc.key ? j : at;
            acc.index += at;
        }
    return acc;'
edit $B/argstrict.cu \
'        if (best > acc.key || acc.index == LLONG_MAX) {   // rare, after the first rounds' \
'        if (__builtin_expect(best > acc.key || (best == acc.key && (long long)first < acc.index), 0)) {'
edit $B/argcombine.cu \
'        if (best > acc.key || acc.index == LLONG_MAX) {   // rare, after the first rounds' \
'        if (best >= acc.key) {                            // rare, after the first rounds' \
'            acc = { best, (long long)(first + at) };' \
'            acc = Op::combine(acc, { best, (long long)(first + at) });'
edit $B/argshuffle.cu \
'    if constexpr (std::is_same_v<typename Op::acc_t, keyed_t>) {' \
'    if constexpr (false) {'
edit $B/firstphase.cu \
'    grid.sync();                           // every partial is written and visible
    if (grid.block_rank() != 0)
        return;' \
'    return;                                // firstphase: each block its partial, no result'
variants=${VARIANTS:-bounds lastround grid3 grid4 argvec argstrict argcombine argshuffle}
pids=()
for v in $variants; do nv -o $B/$v $B/$v.cu & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || { echo "variants: a build failed" >&2; exit 1; }; done
[ -n "${BUILD_ONLY:-}" ] && exit 0

pairs=${PAIRS:-float:argmax int32:argmax bf16:argmax bf16:max float:max float:sum}
# one program's rows for every pair, prefixed with its name and the round
rows() {
    local to
    for to in $pairs; do
        "$1" --csv --type ${to%%:*} --op ${to##*:} --n ${SIZES:-2^16,2^20,2^22,2^24,2^28} > $B/one.csv ||
            echo "$1 $to: exit $?" >&2
        [ -s "$out/variants.csv" ] || sed -n '1s/^/program,round,/p' $B/one.csv > "$out/variants.csv"
        sed -n "2,\$s|^|$(basename "$1"),$2,|p" $B/one.csv >> "$out/variants.csv"
    done
}
: > "$out/variants.csv"
for r in $(seq ${ROUNDS:-3}); do
    for v in $variants; do rows ./step12 "$r"; rows $B/$v "$r"; done
    echo "round $r done" >&2
done

[ -n "${VARIANTS:-}" ] && exit 0                       # the grid sweep only with every variant
: > "$out/grid.csv"
for to in bf16:max float:sum float:max; do
    for block in 256 512 1024; do
        for grid in 132 264 396 528 660 792 1056; do   # those that do not fit are refused: left out
            ./step12 --csv --type ${to%%:*} --op ${to##*:} --n 2^24 --block $block --grid $grid \
                > $B/one.csv 2>/dev/null || continue
            [ -s "$out/grid.csv" ] || sed -n '1p' $B/one.csv > "$out/grid.csv"
            sed -n '2p' $B/one.csv >> "$out/grid.csv"
        done
    done
done
