#!/usr/bin/env bash
# exact_variants.sh: what each piece of step 10's tail costs, and step 10
# beside step 07 (lab/exact-tail/README.md). Needs a GPU, NCCL and MPI; a few
# minutes on an H100.
#
#   bash lab/exact-tail/exact_variants.sh [OUT.csv]   (default build/lab/exact-tail/times.csv)
#   EXACT_VARIANTS="bits1 bits2" bash lab/exact-tail/exact_variants.sh   (the base and these only)
#   ROUNDS=3 bash lab/exact-tail/exact_variants.sh     (the variants' rounds; default 2)
#   BUILD_ONLY=1 bash lab/exact-tail/exact_variants.sh (make every program, run nothing)
#
# Everything is built from step 10 as it was measured, commit 7b31581, not
# from steps/ as it is now: tree.sh puts that commit's Makefile, harness and
# steps in $TREE (build/lab/exact-tail/7b31581/), and its own make builds
# there, step 07 and step 10 included. Each variant is a copy of that
# 10_exact.cu and its accumulator (exact_*.cuh) in $TREE/build/variants/NAME/
# with one piece changed by sed, built by that tree's tests/exact.mk:
#   base          the copy unchanged: the control
#   before        the one-GPU step as it was before the tail was reworked
#                 (its words in shared memory, four __syncthreads_count)
#   thread0       the step as it was before warp 0 took over the tail:
#                 thread 0 carries, adds, fetches and rounds, with a fence on
#                 each side of the ticket
#   ticket        the step as it was before its grid words counted blocks
#                 (from git): the blocks meet by an acquire-release ticket
#                 after their word adds, and the last block exchanges the
#                 words back; the next three are pieces of it, each timed
#                 against it (a copy of it with one piece changed):
#   fences        a __threadfence() on each side of a plain atomicAdd ticket
#                 instead of the acquire-release ticket
#   no_round      the last block stores digit 0's bits instead of rounding
#   carry_always  every thread carries its digits before the block sum
#   no_flags      no flag reduction: no REDUX, no per-tile word; warp 0
#                 sets the flag words as the default input needs them
#   no_fetch      the last block does not take the grid's words back (the
#                 exchanges) and rounds its own: what fetching them costs
#   copies2       the grid's words in two copies, odd blocks adding to the
#                 second: half the blocks' adds queue at each address; the
#                 last block takes both back in one exchange (lanes 16 to 29)
#   carveout_max  the kernel asks for the largest shared-memory carveout
#   shuffle_sum   the block's digit sums by cg::reduce's five rounds of 64-bit
#                 shuffles instead of three 32-bit REDUX adds (tile_sum)
#   window_round  the rounding as it was before the conversion did it: the
#                 window's top bit found, 24 bits kept, the rest compared with
#                 half (from git)
#   group16       groups of 16 elements (4 vectors) instead of 32, at most
#                 40 registers and blocks of 512: 1536 threads a
#                 multiprocessor instead of 1024, 4 loads in flight each
#   group16_1024  groups of 16, the launch as the step's (1024 threads a
#                 multiprocessor): what the smaller group alone does
#   prefetch      each thread asks L2 for its next group's vectors (PTX
#                 prefetch.global.L2) before it adds the group it has
# The streaming (the gap's third round); the larger ones replace a block of
# the accumulator by lab/exact-tail/exact_variants/NAME.cuh:
#   loads_only    the group's arithmetic left out: its bits added as integers
#                 into digit 0 (wrong sums): the loads and the launch alone
#   no_convert    the group summed in a float instead of a double (wrong sums
#                 where a float cannot hold it): what the conversions cost
#   split         the group's sum in two float halves, no conversion (split.cuh)
#   skip_last     each thread's last group left out, its bits added as
#                 loads_only adds them (wrong sums): what is left after the
#                 last load
#   float_hi      the group's largest |x| by fmaxf, and a test of the sum for
#                 an infinity or a NaN, as the step had them (float_hi.cuh)
#   spread        the warps' ranks spread over the blocks, so that a last,
#                 partial round falls on every multiprocessor
#   chunks        each warp reading 4 KB chunks, its loads at constant
#                 offsets from one address (chunks.cuh)
#   pipe          the next group's loads issued before the group's add into
#                 the digits (pipe.cuh)
#   async         the next group copied into shared memory (cp.async) while
#                 the thread adds the one it has (async.cuh)
#   bits1, bits2, bits4  1, 2 or 4 of each vector's elements made doubles from
#                 their bits by integer instructions instead of a conversion
#                 (bits.cuh): conversions moved off the conversion unit
#   dynamic1, dynamic4  the warps take 4 KB chunks, 1 or 4 at a time, from a
#                 counter in the grid's state (dynamic.cuh)
#   tree          the group's two ends and its sum as trees over the vectors
#                 instead of one chain each (tree.cuh)
#   adds3         acc_add as three +=, as the step had it: each read of a
#                 digit waits for the write before it (adds3.cuh)
#   window        a fast group goes into three digits held in registers,
#                 which go to shared memory when a group needs other digits
#                 and at the end (window_add.cuh, window_acc.cuh)
#   compact       the two slow paths as one loop, not unrolled, over a copy of
#                 the group in local memory: 19 KB of code instead of 44 KB
#                 (compact.cuh); slower on wide
#   bulk          each warp's next 4 KB chunk copied by the copy engine
#                 (cp.async.bulk, sm_90) into the warp's buffer in shared
#                 memory while its lanes add the chunk before (bulk.cuh)
#   ahead1, ahead2  chunks as chunks.cuh, and lane 0 asks L2 for the warp's
#                 chunk 1 or 2 turns ahead with one bulk prefetch of 4 KB
#                 (cp.async.bulk.prefetch.L2, sm_90; ahead.cuh)
#   warm          the block runs its ending (block_words, the carries, the
#                 rounding) once on zero digits while its first loads are in
#                 flight: the ending's instructions cached (warm.cuh)
#   fit           the grid as every block that fits, as the step had it, instead
#                 of as few blocks as take the same number of rounds: a last,
#                 partial round on the first blocks while the others wait
#   roll          a thread's loads roll from group to group: vector k of the
#                 next group is loaded as soon as vector k of this one is
#                 added, so the next group flies while this one is added; a
#                 slow group is read again (roll.cuh)
# A variant that skips a piece may give wrong sums (WRONG rows): only the
# times count here. Each variant runs twice, alternating, at 2^20 to 2^26;
# then step 07 against step 10 (FP64 and not, and step 10 with --block 1024)
# at 2^14 to 2^28, on the default input and on --input wide (where most of
# step 10's groups take the slow path). Prints a table of medians last.
set -u
cd "$(dirname "$0")/../.." || exit 2
. lab/exact-tail/tree.sh
out=${1:-build/lab/exact-tail/times.csv}
V=$TREE/build/variants
JOBS=$(nproc 2>/dev/null || echo 2)
mkdir -p "$V" "$(dirname "$out")"

# ---- the sources -----------------------------------------------------------------
ACC="exact_acc.cuh exact_digits.cuh exact_group.cuh exact_meet.cuh"
variant() {    # variant NAME STEP_SED ACC_SED [FILE:BLOCK[:SRC] ...]: writes $V/NAME/ from the step
    mkdir -p "$V/$1"          # (or from FROM=DIR); FILE's block BLOCK becomes exact_variants/SRC.cuh (SRC: NAME)
    local same=1 h b from=${FROM:-$TREE/steps}
    sed -e "$2" "$from/10_exact.cu" > "$V/$1/10_exact.cu.new"
    cmp -s "$V/$1/10_exact.cu.new" "$from/10_exact.cu" || same=0
    for h in $ACC; do                          # the accumulator's headers
        sed -e "$3" "$from/$h" > "$V/$1/$h.new"
        for b in "${@:4}"; do
            [ "${b%%:*}" = "$h" ] || continue
            b=${b#*:}
            case $b in *:*) ;; *) b="$b:$1" ;; esac
            python3 - "$V/$1/$h.new" "${b%%:*}" "lab/exact-tail/exact_variants/${b#*:}.cuh" <<'PY' || exit 2
import sys
path, name, src = sys.argv[1:]
text = open(path).read()
begin, end = "// [begin %s]\n" % name, "// [end %s]" % name
if begin not in text or end not in text:
    sys.exit("exact_variants: no block %s in %s" % (name, path))
a, b = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:a] + open(src).read() + text[b:])
PY
        done
        cmp -s "$V/$1/$h.new" "$from/$h" || same=0
    done
    if [ "$1" != base ] && [ $same = 1 ]; then
        echo "exact_variants: the variant $1 changes nothing: its sed no longer matches the step" >&2
        exit 2
    fi
    for f in 10_exact.cu $ACC; do    # unchanged files keep their time: no rebuild
        cmp -s "$V/$1/$f.new" "$V/$1/$f" && rm "$V/$1/$f.new" || mv "$V/$1/$f.new" "$V/$1/$f"
    done
}
variant base '' ''
# The blocks' meeting as it was (a ticket), from git, and three of its pieces
# timed against it: FROM=$V/ticket.
mkdir -p "$V/ticket"
for f in 10_exact.cu $ACC; do
    git show "4da1e1c:steps/$f" > "$V/ticket/$f.new" 2>/dev/null || break
    cmp -s "$V/ticket/$f.new" "$V/ticket/$f" && rm "$V/ticket/$f.new" || mv "$V/ticket/$f.new" "$V/ticket/$f"
done
TICKET=
if [ -s "$V/ticket/exact_meet.cuh" ]; then
    TICKET="ticket fences no_fetch copies2"
    FROM=$V/ticket variant fences '' 's|return t.fetch_add(1u, cuda::memory_order_acq_rel);|__threadfence(); unsigned old = atomicAdd(blocks_done, 1u); __threadfence(); (void)t; return old;|'
    FROM=$V/ticket variant no_fetch '' 's|\*w = i < WORDS ? (long long)word_take(&state->words\[i\]\[0\]) : 0;|(void)state;|'
    FROM=$V/ticket variant copies2 '' 's|unsigned long long words\[WORDS\]\[LINE_WORDS\];   // words\[i\]\[0\]|unsigned long long words[WORDS][LINE_WORDS], words2[WORDS][LINE_WORDS];   // words[i][0]|
    s|word_add(&state->words\[i\]\[0\], (unsigned long long)\*w);|word_add(\&(blockIdx.x \& 1 ? state->words2 : state->words)[i][0], (unsigned long long)*w);|
    s|\*w = i < WORDS ? (long long)word_take(&state->words\[i\]\[0\]) : 0;|*w = i < WORDS ? (long long)word_take(\&state->words[i][0]) : i - 16 < WORDS ? (long long)word_take(\&state->words2[i - 16][0]) : 0; long long o = warp.shfl_down(*w, 16); *w = i < 16 ? *w + o : 0;|'
else
    echo "exact_variants: no git history here: the variants 'ticket', 'fences', 'no_fetch' and 'copies2' are left out" >&2
fi
variant no_round 's|unsigned bits = round_warp(tile, w);|unsigned bits = (unsigned)w;|' ''
variant carry_always 's|if (acc_must_carry(n, threads)) |if (n) |' ''
variant no_flags 's|flags = cg::reduce(tile, flags, cg::bit_or<unsigned>());|(void)flags;|
/if (tile.thread_rank() == 0)$/{N;/tile_flags/d}
s|i < WORDS ? words\[i\] : 0|i < DIGITS ? words[i] : i == NOT_NEG_ZERO_COUNT|' \
    's|if (tile.meta_group_rank() == tiles - 1) {|if (false) {|'
variant carveout_max 's|\(    CUDA_CHECK(cudaFuncSetAttribute(reduce_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));\)|\1\n    CUDA_CHECK(cudaFuncSetAttribute(reduce_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));|' ''
variant group16 's|__launch_bounds__(1024)|__maxnreg__(40)|
s|        return 1024;|        return 512;|' 's|#define GROUP_VECTORS 8|#define GROUP_VECTORS 4|'
variant group16_1024 '' 's|#define GROUP_VECTORS 8|#define GROUP_VECTORS 4|'
variant prefetch '' 's|^        acc_add_group(d, stride, v, &flags);|#ifdef __CUDA_ARCH__\n        UNROLL\n        for (int k = 0; k < GROUP_VECTORS; k++)\n            if (4 * (i + (GROUP_VECTORS + k) * threads) + 4 <= n)\n                asm volatile("prefetch.global.L2 [%0];" :: "l"(in4 + i + (GROUP_VECTORS + k) * threads));\n#endif\n        acc_add_group(d, stride, v, \&flags);|'
variant shuffle_sum '' 's|^#if __CUDA_ARCH__ >= 800$|#if 0|'
variant loads_only '' 's#^        acc_add_group(d, stride, v, &flags);#        unsigned x = 0;\n        UNROLL\n        for (int k = 0; k < GROUP_VECTORS; k++)\n            x ^= bits_of(v[k].x) + bits_of(v[k].y) + bits_of(v[k].z) + bits_of(v[k].w);\n        d[0] += x;\n        (void)stride;\n        flags |= SAW_NOT_NEG_ZERO;#'
variant no_convert '' 's#^    double sum = 0;$#    float sum = 0;#
s#sum += ((double)v\[k\].x + (double)v\[k\].y) + ((double)v\[k\].z + (double)v\[k\].w);#sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);#
s#\*s = (long long)(sum \* pow2(149 - \*p));#*s = (long long)((double)sum * pow2(149 - *p));#'
variant split '' '' exact_group.cuh:group_sum
variant skip_last '' 's#^        acc_add_group(d, stride, v, &flags);#        if (4 * (i + GROUP_VECTORS * threads) >= n) {   // the thread\x27s last group: its bits only\n            unsigned x = 0;\n            UNROLL\n            for (int k = 0; k < GROUP_VECTORS; k++)\n                x ^= bits_of(v[k].x) + bits_of(v[k].y) + bits_of(v[k].z) + bits_of(v[k].w);\n            d[0] += x;\n            flags |= SAW_NOT_NEG_ZERO;\n        } else\n            acc_add_group(d, stride, v, \&flags);#'
variant float_hi '' '' exact_group.cuh:group_sum
variant spread 's#size_t rank = (size_t)blockIdx.x \* blockDim.x + threadIdx.x, threads#size_t rank = ((size_t)tile.meta_group_rank() * gridDim.x + blockIdx.x) * 32 + tile.thread_rank(), threads#' ''
variant chunks '' '' exact_group.cuh:accumulate
variant pipe '' '' exact_group.cuh:accumulate
variant dynamic1 's#thread_accumulate(in, n, rank, threads, mine, 32)#thread_accumulate(in, n, rank, threads, mine, 32, \&state->next)#
s#^    block.sync();                                  // every thread.s digits and flags are in#&\n    if (gridDim.x == 1 \&\& threadIdx.x == 0) state->next = 0;#' \
    's#^    unsigned long long words\[WORDS\]\[LINE_WORDS\];   // words.*#&\n    unsigned next;#
s#^    \*w = i < WORDS ? word_take(&state->words\[i\]\[0\], x, blocks) : 0;#&\n    if (i == 0) state->next = 0;#' exact_group.cuh:accumulate:dynamic
variant dynamic4 's#thread_accumulate(in, n, rank, threads, mine, 32)#thread_accumulate(in, n, rank, threads, mine, 32, \&state->next)#
s#^    block.sync();                                  // every thread.s digits and flags are in#&\n    if (gridDim.x == 1 \&\& threadIdx.x == 0) state->next = 0;#' \
    's#^    unsigned long long words\[WORDS\]\[LINE_WORDS\];   // words.*#&\n    unsigned next;#
s#^    \*w = i < WORDS ? word_take(&state->words\[i\]\[0\], x, blocks) : 0;#&\n    if (i == 0) state->next = 0;#
s|^#define GROUP_VECTORS 8$|&\n#define CLAIM 4|' exact_group.cuh:accumulate:dynamic
variant tree '' '' exact_group.cuh:group_sum
variant adds3 '' '' exact_digits.cuh:acc_add
variant window '' '' exact_group.cuh:add_group:window_add exact_group.cuh:accumulate:window_acc
variant bits1 '' 's|^#define GROUP_VECTORS 8$|&\n#define BITS 1|' exact_group.cuh:group_sum:bits
variant bits2 '' 's|^#define GROUP_VECTORS 8$|&\n#define BITS 2|' exact_group.cuh:group_sum:bits
variant bits4 '' 's|^#define GROUP_VECTORS 8$|&\n#define BITS 4|' exact_group.cuh:group_sum:bits
variant async 's#return (size_t)block \* DIGITS \* sizeof(long long);#return (size_t)block * (DIGITS * sizeof(long long) + GROUP_VECTORS * 16);#' '' exact_group.cuh:accumulate
variant fit 's#^    return div_up(groups, rounds \* L->block);#    (void)rounds;\
    return min_size(resident, div_up(groups, L->block));#' ''
variant compact '' '' exact_group.cuh:add_group
variant roll '' '' exact_group.cuh:accumulate
variant bulk 's#return (size_t)block \* DIGITS \* sizeof(long long);#return (size_t)block * (DIGITS * sizeof(long long) + GROUP_VECTORS * 16);#' '' exact_group.cuh:accumulate
variant ahead1 '' 's|^#define GROUP_VECTORS 8$|&\n#define AHEAD 1|' exact_group.cuh:accumulate:ahead
variant ahead2 '' 's|^#define GROUP_VECTORS 8$|&\n#define AHEAD 2|' exact_group.cuh:accumulate:ahead
variant warm 's#    unsigned flags = thread_accumulate(in, n, rank, threads, mine, 32);#    unsigned flags = thread_accumulate_warm(in, n, rank, threads, mine, 32, [\&] {\
        block.sync();\
        block_words(block, digits, tile_flags, words);\
        block.sync();\
        if (tile.meta_group_rank() == 0) {\
            unsigned l = tile.thread_rank();\
            unsigned bits = round_warp(tile, carry_warp(tile, carry_round(tile, l < WORDS ? words[l] : 0)));\
            if (bits == 1u \&\& n == 3) words[0] = 1;     // never: keeps the code\
        }\
        block.sync();\
    });#' '' exact_group.cuh:accumulate
NAMES="base $TICKET thread0 no_round carry_always no_flags carveout_max shuffle_sum group16 group16_1024 prefetch"
NAMES="$NAMES loads_only skip_last no_convert float_hi split spread chunks pipe async bits1 bits2 bits4 dynamic1 dynamic4 tree adds3 window bulk ahead1 ahead2 warm compact fit roll"
mkdir -p "$V/thread0"
for f in 10_exact.cu $ACC; do                     # the thread-0 tail, from git
    git show "5bc0393:steps/$f" > "$V/thread0/$f.new" 2>/dev/null || break
    cmp -s "$V/thread0/$f.new" "$V/thread0/$f" && rm "$V/thread0/$f.new" || mv "$V/thread0/$f.new" "$V/thread0/$f"
done
if [ ! -s "$V/thread0/exact_meet.cuh" ]; then
    echo "exact_variants: no git history here: the variant 'thread0' is left out" >&2
    NAMES=${NAMES/thread0 /}
fi
mkdir -p "$V/window_round"
for f in 10_exact.cu $ACC; do                     # the bit-by-bit rounding, from git
    git show "b755ba6:steps/$f" > "$V/window_round/$f.new" 2>/dev/null || break
    cmp -s "$V/window_round/$f.new" "$V/window_round/$f" && rm "$V/window_round/$f.new" ||
        mv "$V/window_round/$f.new" "$V/window_round/$f"
done
if [ -s "$V/window_round/exact_meet.cuh" ]; then
    NAMES="$NAMES window_round"
else
    echo "exact_variants: no git history here: the variant 'window_round' is left out" >&2
fi
mkdir -p "$V/before"
for f in 10_exact.cu exact_acc.cuh; do            # (from git, where the copy has it)
    git show "2d2b01d:steps/$f" > "$V/before/$f.new" 2>/dev/null || break
    cmp -s "$V/before/$f.new" "$V/before/$f" && rm "$V/before/$f.new" || mv "$V/before/$f.new" "$V/before/$f"
done
if [ -s "$V/before/exact_acc.cuh" ]; then
    NAMES="base before ${NAMES#base }"
else
    echo "exact_variants: no git history here: the variant 'before' is left out" >&2
fi

if [ -n "${EXACT_VARIANTS:-}" ]; then    # only these (and the base), e.g. EXACT_VARIANTS="bits1 bits2"
    NAMES="base $EXACT_VARIANTS"
fi

# ---- the builds -------------------------------------------------------------------
echo "building step 07, step 10 (FP64 and not) and the variants, in $TREE ..." >&2
if ! make -C "$TREE" -j"$JOBS" --no-print-directory step07 step10 build/step10_no_fp64 \
        $(for v in $NAMES; do echo "build/variants/$v/step10"; done) >"$V/build.log" 2>&1; then
    grep -m5 -E 'error|Error' "$V/build.log" >&2
    exit 3
fi
if [ -n "${BUILD_ONLY:-}" ]; then
    echo "built: $TREE/step07, step10, build/step10_no_fp64 and $(echo $NAMES | wc -w) variants" >&2
    exit 0
fi

# ---- the runs ---------------------------------------------------------------------
: >"$out.raw"
rm -f "$V/header"
run() {     # run LABEL CMD...: CSV rows, labelled
    "${@:2}" --csv 2>>"$V/runs.err" | while IFS= read -r line; do
        case $line in
        step,*) [ -s "$V/header" ] || echo "label,$line" >"$V/header" ;;
        *) echo "$1,$line" ;;
        esac
    done >>"$out.raw"
}
for round in $(seq "${ROUNDS:-2}"); do
    echo "variants, round $round ..." >&2
    for v in $NAMES; do
        case $v in before) cmd=("$V/$v/step10") ;; *) cmd=("$V/$v/step10" --gpus 1) ;; esac
        run "$v" "${cmd[@]}" --n 2^20,2^22,2^24,2^25,2^26 --reps 50
    done
done
SIZES=2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28
for round in 1 2; do
    echo "step 07 against step 10, round $round ..." >&2
    run step07 $TREE/step07 --n $SIZES
    run step10 $TREE/step10 --gpus 1 --n $SIZES
    run step10_no_fp64 $TREE/build/step10_no_fp64 --gpus 1 --n $SIZES
    run step10_block1024 $TREE/step10 --gpus 1 --block 1024 --n 2^24,2^25,2^26,2^28
    run step10_block256 $TREE/step10 --gpus 1 --block 256 --n 2^24,2^25
    run step10_block512 $TREE/step10 --gpus 1 --block 512 --n 2^24,2^25
    run step07_25 $TREE/step07 --n 2^25
    run step10_25 $TREE/step10 --gpus 1 --n 2^25
    run step07_wide $TREE/step07 --input wide --n $SIZES
    run step10_wide $TREE/step10 --gpus 1 --input wide --n $SIZES
done
if [ ! -s "$V/header" ]; then
    echo "exact_variants: no run gave a row; see $V/runs.err:" >&2
    tail -3 "$V/runs.err" >&2
    exit 3
fi
cat "$V/header" "$out.raw" >"$out"
rm -f "$out.raw"

# ---- the table --------------------------------------------------------------------
python3 - "$out" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {}
for r in rows:
    t.setdefault((r["label"], int(r["n"])), []).append(float(r["median_us"]))
med = {k: statistics.median(v) for k, v in t.items()}
def cell(label, n):
    return "%9.2f" % med[(label, n)] if (label, n) in med else "%9s" % "-"
def table(title, labels, sizes):
    print(title)
    print("%-18s" % "n" + "".join("%9s" % ("2^%d" % (n.bit_length() - 1)) for n in sizes))
    for l in labels:
        print("%-18s" % l + "".join(cell(l, n) for n in sizes))
    print()
dev = rows[0]["device"] if rows else "?"
print("step 10's tail on %s: median us, medians of the rounds (cold L2)\n" % dev)
table("variants (time; lower than base = what the piece costs)",
      ["base", "ticket", "fences", "no_fetch", "copies2", "before", "thread0", "no_round", "carry_always", "no_flags",
       "carveout_max", "shuffle_sum", "window_round", "group16", "group16_1024", "prefetch"],
      [1 << 20, 1 << 22, 1 << 24, 1 << 26])
table("the streaming (time; a probe's or a reorganisation's beside the base)",
      ["base", "loads_only", "skip_last", "no_convert", "float_hi", "split", "spread", "chunks", "pipe", "async",
       "bits1", "bits2", "bits4", "dynamic1", "dynamic4",
       "tree", "adds3", "window", "compact", "bulk", "ahead1", "ahead2", "warm", "fit", "roll"],
      [1 << 20, 1 << 22, 1 << 24, 1 << 25, 1 << 26])
sizes = [1 << k for k in range(14, 29, 2)]
table("step 07 against step 10", ["step07", "step10", "step10_no_fp64", "step10_block1024",
                                  "step07_wide", "step10_wide"], sizes)
table("launch shapes at 2^24 and 2^25", ["step07", "step07_25", "step10", "step10_25", "step10_block256",
                                         "step10_block512", "step10_block1024"], [1 << 24, 1 << 25])
print("%-18s" % "10 / 07" + "".join("%9.3f" % (med[("step10", n)] / med[("step07", n)])
                                  if ("step10", n) in med and ("step07", n) in med else "%9s" % "-"
                                  for n in sizes))
print("%-18s" % "10 no FP64 / 07" + "".join("%9.3f" % (med[("step10_no_fp64", n)] / med[("step07", n)])
                                          if ("step10_no_fp64", n) in med and ("step07", n) in med
                                          else "%9s" % "-" for n in sizes))
print("%-18s" % "10 / 07, wide" + "".join("%9.3f" % (med[("step10_wide", n)] / med[("step07_wide", n)])
                                        if ("step10_wide", n) in med and ("step07_wide", n) in med
                                        else "%9s" % "-" for n in sizes))
EOF
# The lab page's tables (results/<gpu>/exact_tail.md, exact_tail_summary.csv, results/exact_rounds.md).
case $out in results/*/exact_tail.csv) python3 lab/exact-tail/exact_tables.py ;; esac
