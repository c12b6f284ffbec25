#!/usr/bin/env bash
# tests/answers.sh: the exercise answers on a GPU (tests/run calls it in the
# gpu tier, only when a GPU is usable). Prints one line per check, starting
# with PASS, FAIL or SKIP, for tests/run to count.
#
#   build         make answers
#   cli           --help exits 0, a bad size exits 2
#   sizes         every correct answer OK at edge and odd sizes, two seeds,
#                 float and exact builds
#   blocks        the same at every block size the answer allows
#   determinism   timed runs; the deterministic answers give identical bits,
#                 and every exact build does
#   racy          00_racy and 01_racy_shared are WRONG at n = 2^20;
#                 racecheck reports the shared-memory race, not the global one
#   plain-launch  07_plain_launch (grid.sync() after <<<>>>) stops with exit 3,
#                 cudaErrorLaunchFailure and no result line (the header line,
#                 printed before the run, stays), never a hang
#   stride-bug    07_stride_bug (every block sums the whole array) is WRONG
#                 wherever its grid has more than one block, float and exact,
#                 and right with --grid 1: the harness catches the bug
#   no-fence      06_no_fence runs; how many of its runs were wrong is reported,
#                 not judged (it may well pass)
#   chunk-2048    08_chunk_2048 (step 08 with chunks of 2048): one sum per input
#                 over blocks 32 to 1024 and grids 1 to 4096, each equal to its own
#                 CPU replica, float and exact; at n = 10^6+3 its float sum differs
#                 from ./step08's for at least one of seeds 1, 2, 3
#   compensated   07_compensated (every addition's rounding error kept): at
#                 n = 2^24 and 2^28, seeds 1, 2, 3, its error is below step 07's
#                 in every case; 07_compensated_front's is reported, not judged
#   fixed-point   08_fixed_point (exact integers, atomics in any order): one sum
#                 per input over blocks and grids, float and exact; every float
#                 sum is the float nearest the exact reference (correctly rounded:
#                 an error of at most half an ulp)
#   small-sizes   the answers of the appendix on small sizes (flag_block0,
#                 flag_no_clear, cluster_occupancy): tests/answers_small.sh
#   rows          step 11's answers, a softmax (with a mutant padded with 0)
#                 and bf16 rows: tests/answers_rows.sh
#   types         step 12's answers, argmin and an int8 dot product (each with
#                 versions wrong on purpose) and RMSNorm's statistic over bf16
#                 rows: tests/answers_types.sh
#   allreduce     09_allreduce (step 09 with ncclAllReduce of the shards'
#                 totals), where step 09 is built: on one GPU, step 08's bits
#                 (the replica's) at every size, float and exact; on two GPUs
#                 or more, not step 08's bits at some size (the harness says
#                 WRONG there: another order), and the exact build still right
#   group64       10_group64 (step 10 with groups of 64, exponents within 23
#                 for the fast path), where step 10 is built: the exact sum's
#                 bits on every input and size, one sum for any block and
#                 grid, float and exact; on an array built for it (a group of
#                 64 whose exponents span 24, summed in a double, loses its
#                 last unit) the answer and step 10 give the exact sum's bits
#                 and 10_group64_span24, which keeps step 10's 24, is WRONG
#   round-ranks   10_round_ranks (each rank's exact sum rounded, the floats
#                 added by NCCL): on one GPU step 10's bits on every input; on
#                 two virtual ranks (the tests' build, a stand-in NCCL that
#                 adds the floats) WRONG on cancel, ties and huge at every size
#                 tried, and the exact build right on 1, 2 and 3; on two real
#                 GPUs, WRONG somewhere on cancel
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/answers.err
: >"$ERR"
A=build/answers
JOBS=$(nproc 2>/dev/null || echo 2)

# ---- build ------------------------------------------------------------------
made answers/build "$LOGS/build_answers.log" answers || exit 0

# The correct answers; those with a deterministic claim; float-only ones.
CORRECT="04_warp_aggregated 01_interleaved 01_interleaved_strided 03_warp_xor 04_row_sums
         04_subwarp_tiles 04_subwarp_tiles_8 04_binary_partition 06_acq_rel 07_normalize
         07_compensated 07_compensated_front 08_chunk_2048 08_fixed_point"
DETERMINISTIC="04_row_sums 06_acq_rel 07_normalize 07_compensated 07_compensated_front
               08_chunk_2048 08_fixed_point"
FLOAT_ONLY="07_normalize 07_plain_launch"
ALL="00_racy 01_racy_shared $CORRECT 06_no_fence 07_plain_launch 07_stride_bug"

# is_in WORD LIST: is WORD one of the words of LIST?
is_in() {
    local w
    for w in $2; do [ "$w" = "$1" ] && return 0; done
    return 1
}

# builds NAME: the binaries of one answer, float first.
builds() {
    echo "$A/$1"
    is_in "$1" "$FLOAT_ONLY" || echo "$A/$1_exact"
}

kind() { case "$1" in *_exact) echo exact ;; *) echo float ;; esac; }

# ---- cli ----------------------------------------------------------------------
for a in $ALL; do
    p=$A/$a
    "$p" --help >/dev/null 2>&1
    rc=$?
    if [ $rc = 0 ]; then echo "PASS answers/cli/$a --help"; else echo "FAIL answers/cli/$a --help: exit $rc"; fi
    err=$("$p" --n 0 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ]; then echo "PASS answers/cli/$a --n 0 -> exit 2"; else echo "FAIL answers/cli/$a --n 0: exit $rc ($err)"; fi
done

# ---- sizes ----------------------------------------------------------------------
SIZES=1,2,3,31,32,33,1023,1024,1025,4097,65537,2^20+3
SEEDS=1,2
ROWS=24                                     # 12 sizes x 2 seeds
for a in $CORRECT; do
    for p in $(builds "$a"); do
        check "answers/sizes/$a/$(kind "$p")" --rows $ROWS --ok all -- \
            "$p" --check-only --n $SIZES --seed $SEEDS
    done
done

# ---- blocks ---------------------------------------------------------------------
# Every block size each answer allows: powers of two for all but
# 04_warp_aggregated, which takes any block size (odd ones leave partial warps).
BLOCK_SIZES=1,33,1025,65537,2^20+3
for a in $CORRECT; do
    if [ "$a" = 04_warp_aggregated ]; then blocks="1 31 32 33 100 1000 1024"; else blocks="32 64 128 256 512 1024"; fi
    for p in $(builds "$a"); do
        for b in $blocks; do
            check "answers/blocks/$a/$(kind "$p") --block $b" --rows 5 --ok all -- \
                "$p" --check-only --n $BLOCK_SIZES --block "$b"
        done
    done
done

# ---- determinism ----------------------------------------------------------------
# 22 runs per size (checked, warm-up, 20 timed). Deterministic answers: one
# distinct result in float; every exact build: one distinct result whatever
# the order of its additions. 06_acq_rel also runs 1000 times back to back:
# its counter must be left at zero by every launch.
for a in $CORRECT; do
    if is_in "$a" "$DETERMINISTIC"; then
        check "answers/determinism/$a/float" --rows 3 --ok all --distinct 1 -- \
            "$A/$a" --n 1000,2^20+3,2^24+1 --reps 20
    else
        check "answers/determinism/$a/float (not claimed)" --rows 2 --ok all -- \
            "$A/$a" --n 1000,2^20+3 --reps 20
    fi
    is_in "$a" "$FLOAT_ONLY" ||
        check "answers/determinism/$a/exact" --rows 2 --ok all --distinct 1 -- \
            "$A/${a}_exact" --n 1000,2^20+3 --reps 20
done
check "answers/repeated-launches/06_acq_rel x1000" --rows 2 --ok all --distinct 1 -- \
    "$A/06_acq_rel" --n 1000,2^20+3 --reps 1000

# ---- racy -------------------------------------------------------------------------
# Lost updates: the exact builds must be WRONG at n = 2^20 for every seed.
# The float builds are checked with some-wrong: 00_racy's bound (one atomic
# per element) is wide at 2^20, about 320, against exact sums of about -1068,
# 818 and -561 for seeds 1, 2 and 3, so one seed could pass by chance.
for a in 00_racy 01_racy_shared; do
    check "answers/racy/$a/exact WRONG at 2^20" --rows 3 --ok none -- \
        "$A/${a}_exact" --check-only --n 2^20 --seed 1,2,3
    check "answers/racy/$a/float WRONG at 2^20" --rows 3 --ok some-wrong -- \
        "$A/$a" --check-only --n 2^20 --seed 1,2,3
done

# racecheck sees the shared-memory race and not the global-memory one.
if command -v compute-sanitizer >/dev/null 2>&1; then
    log=$LOGS/answers_racecheck_01_racy_shared.log
    compute-sanitizer --tool racecheck --error-exitcode 42 "$A/01_racy_shared" --check-only --n 4096 >"$log" 2>&1
    rc=$?
    if grep -Eq "SUMMARY: [1-9][0-9]* hazard" "$log"; then
        echo "PASS answers/racecheck/01_racy_shared reports the shared-memory race ($(grep -m1 -Eo 'SUMMARY: [0-9]+ hazards?[^=]*' "$log"))"
    else
        echo "FAIL answers/racecheck/01_racy_shared: no hazard reported (exit $rc; see $log)"
    fi
    log=$LOGS/answers_racecheck_00_racy.log
    compute-sanitizer --tool racecheck --error-exitcode 42 "$A/00_racy" --check-only --n 4096 >"$log" 2>&1
    rc=$?
    summary=$(grep -m1 -Eo 'SUMMARY: [0-9]+ hazards?' "$log")
    if [ -n "$summary" ]; then
        echo "PASS answers/racecheck/00_racy runs (global-memory race; racecheck $summary)"
    else
        echo "FAIL answers/racecheck/00_racy: no racecheck summary (exit $rc; see $log)"
    fi
else
    echo "SKIP answers/racecheck: compute-sanitizer is not installed"
fi

# ---- plain-launch -----------------------------------------------------------------
# grid.sync() in a kernel started with <<<>>>: CUDA 13 traps, and the harness
# must say so (docs/07_cooperative.md quotes this message). Standard output
# holds the header that names the GPU, printed before the run and useful
# beside the error, and no result line.
if [ -x "$A/07_plain_launch" ]; then
    out=$(timeout 60 "$A/07_plain_launch" --n 2^20 2>"$LOGS/answers_plain_launch.err")
    rc=$?
    err=$(cat "$LOGS/answers_plain_launch.err")
    if [ $rc = 3 ] && printf '%s\n' "$out" | grep -q '^# 07_plain_launch on ' &&
       [ "$(printf '%s' "$out" | grep -c '')" = 1 ] &&
       printf '%s' "$err" | grep -Eq "^07_plain_launch: the step's GPU work failed .*unspecified launch failure \(cudaErrorLaunchFailure\)"; then
        echo "PASS answers/plain-launch: exit 3, $(printf '%s' "$err" | head -1 | cut -c1-160)"
    else
        echo "FAIL answers/plain-launch: exit $rc, stdout '$(printf '%s' "$out" | head -1)', stderr '$(printf '%s' "$err" | head -2 | tr '\n' ' ')'"
    fi
else
    echo "FAIL answers/plain-launch: $A/07_plain_launch is not built"
fi

# ---- stride-bug ------------------------------------------------------------------
# n from 65537 up needs more than one block (each thread starts with a round
# of 16 elements): every such run must be WRONG, in both builds.
for p in $(builds 07_stride_bug); do
    kind=float; case "$p" in *_exact) kind=exact ;; esac
    check "answers/stride-bug/$kind WRONG with more than one block" --rows 6 --ok none -- \
        "$p" --check-only --n 65537,2^20,10^7+3 --seed 1,2
    check "answers/stride-bug/$kind OK with --grid 1" --rows 2 --ok all -- \
        "$p" --check-only --n 65537 --grid 1 --seed 1,2
done

# ---- chunk-2048 -------------------------------------------------------------------
# Another chunk, another fixed order: the harness replays it from the step's
# .chunk, so every row must equal the replica and agree across launch shapes.
# Sizes around the chunk (2048, 4096) and the levels (2048^2 = 2^22).
C2_SIZES=1,2047,2048,2049,4097,65537,10^6+3,2^22+1,2^24+1
for p in $(builds 08_chunk_2048); do
    for b in 32 64 128 256 512 1024; do
        "$p" --check-only --csv --n $C2_SIZES --seed 1 --block "$b" 2>>"$ERR"
    done | python3 tests/csvcheck.py "answers/chunk-2048/$(kind "$p"): blocks 32 to 1024, one sum per input, the replica's" \
               --rows 54 --ok all --same-sum --replica equal
    for g in 1 2 3 7 132 528 4096; do
        "$p" --check-only --csv --n $C2_SIZES --seed 1 --block 256 --grid "$g" 2>>"$ERR"
    done | python3 tests/csvcheck.py "answers/chunk-2048/$(kind "$p"): grids 1 to 4096, one sum per input, the replica's" \
               --rows 63 --ok all --same-sum --replica equal
done
# The chunk is part of the order: step 08's bits are not these. (On the CPU
# the two replicas at n = 10^6+3 agree for seed 1 and differ for seeds 2 and 3.)
name="answers/chunk-2048/float: at n = 10^6+3, other bits than step 08"
if [ -x ./step08 ] && [ -x "$A/08_chunk_2048" ]; then
    { ./step08 --check-only --csv --n 10^6+3 --seed 1,2,3 2>>"$ERR"
      "$A/08_chunk_2048" --check-only --csv --n 10^6+3 --seed 1,2,3 2>>"$ERR"; } |
        python3 -c '
import csv, sys
name = sys.argv[1]
rows = [r for r in csv.DictReader(sys.stdin) if r["step"] != "step"]
sums = {}
for r in rows:
    sums.setdefault(r["seed"], {})[r["step"]] = r["sum"]
wrong = [r for r in rows if r["status"] != "OK"]
differ = sorted(s for s, v in sums.items() if len(v) == 2 and len(set(v.values())) == 2)
if len(rows) != 6 or len(sums) != 3 or wrong:
    print("FAIL %s: %d rows, %d WRONG; expected 6 OK rows (3 seeds, 2 programs)" % (name, len(rows), len(wrong)))
elif not differ:
    print("FAIL %s: the same sum for every seed: %s" % (name, sums))
else:
    print("PASS %s (seed %s: %s)" % (name, ", ".join(differ), "; ".join(
        " vs ".join(sums[s].values()) for s in differ)))' "$name"
else
    echo "FAIL $name: ./step08 or $A/08_chunk_2048 is not built"
fi

# ---- compensated -------------------------------------------------------------------
# Every addition's error kept: closer to the exact sum than step 07 at the
# sizes where step 07's running sums are long, for every seed tried (the
# results are deterministic, so this is a fixed fact for one GPU model, not
# a lucky draw). The front-only build is reported beside it.
name="answers/compensated/float: error below step 07's at 2^24 and 2^28, seeds 1-3"
if [ -x ./step07 ] && [ -x "$A/07_compensated" ] && [ -x "$A/07_compensated_front" ]; then
    { ./step07 --check-only --csv --n 2^24,2^28 --seed 1,2,3 2>>"$ERR"
      "$A/07_compensated" --check-only --csv --n 2^24,2^28 --seed 1,2,3 2>>"$ERR"
      "$A/07_compensated_front" --check-only --csv --n 2^24,2^28 --seed 1,2,3 2>>"$ERR"; } |
        python3 -c '
import csv, sys
name = sys.argv[1]
rows = [r for r in csv.DictReader(sys.stdin) if r["step"] != "step"]
err = {(r["step"], r["n"], r["seed"]): float(r["error"]) for r in rows}
keys = sorted({(r["n"], r["seed"]) for r in rows})
wrong = [r for r in rows if r["status"] != "OK"]
worse = [k for k in keys if err.get(("07_compensated",) + k, 1e300) >= err.get(("07_cooperative",) + k, 0)]
line = "; ".join("n=%s seed %s: %.3g / %.3g / front %.3g" % (k + tuple(
    err.get((p,) + k, float("nan")) for p in ("07_cooperative", "07_compensated", "07_compensated_front")))
    for k in keys)
if len(rows) != 18 or wrong or worse:
    print("FAIL %s: %d rows (expected 18), %d WRONG, not below step 07 at %s (step 07 / compensated: %s)"
          % (name, len(rows), len(wrong), worse, line))
else:
    print("PASS %s (step 07 / compensated: %s)" % (name, line))' "$name"
else
    echo "FAIL $name: ./step07, $A/07_compensated or $A/07_compensated_front is not built"
fi

# ---- fixed-point -------------------------------------------------------------------
# Exact integers meet through atomics in timing order: the same sum for any
# block and grid, in both builds. In float, one rounding at the end: the sum
# must be the float nearest the exact reference (%.17g in the CSV is exact for
# these sums, k 2^-23 with |k| < 2^53).
FP_SIZES=1,1000,4097,10^6+3,2^24+1
for p in $(builds 08_fixed_point); do
    { for b in 32 256 1024; do
          "$p" --check-only --csv --n $FP_SIZES --seed 1,2 --block "$b" 2>>"$ERR"
      done
      for g in 1 3 132 4096; do
          "$p" --check-only --csv --n $FP_SIZES --seed 1,2 --block 256 --grid "$g" 2>>"$ERR"
      done; } | python3 tests/csvcheck.py "answers/fixed-point/$(kind "$p"): blocks and grids, one sum per input" \
                  --rows 70 --ok all --same-sum
done
name="answers/fixed-point/float: correctly rounded, the float nearest the exact sum"
if [ -x "$A/08_fixed_point" ]; then
    "$A/08_fixed_point" --check-only --csv --n 1,1000,4097,10^6+3,2^24+1,10^8+7 --seed 1,2,3 2>>"$ERR" |
        python3 -c '
import csv, struct, sys
name = sys.argv[1]
rows = list(csv.DictReader(sys.stdin))
def nearest(x):                      # the float nearest to x (ties to even)
    return struct.unpack("<f", struct.pack("<f", x))[0]
# %.9g names one float: rounding it back gives that float exactly.
off = [r for r in rows if r["status"] != "OK" or
       nearest(float(r["sum"])) != nearest(float(r["reference"]))]
if len(rows) != 18 or off:
    print("FAIL %s: %d rows (expected 18); %s" % (name, len(rows), ", ".join(
        "n=%s seed=%s: %s %s, nearest %.9g" % (r["n"], r["seed"], r["status"], r["sum"],
                                              nearest(float(r["reference"]))) for r in off[:4])))
else:
    print("PASS %s (%d sums, n = 1 to 10^8+7)" % (name, len(rows)))' "$name"
else
    echo "FAIL $name: $A/08_fixed_point is not built"
fi

# ---- allreduce -------------------------------------------------------------------
if [ ! -x ./step09 ]; then
    echo "SKIP answers/allreduce: step 09 is not built here (it needs NCCL and MPI)"
elif [ ! -x "$A/09_allreduce" ] || [ ! -x "$A/09_allreduce_exact" ]; then
    echo "FAIL answers/allreduce: $A/09_allreduce is not built"
else
    for p in "$A/09_allreduce" "$A/09_allreduce_exact"; do
        "$p" --gpus 1 --check-only --csv --n 1,4095,4097,10^6+3,2^24+1,10^8+7 --seed 1,2 2>>"$ERR" |
            python3 tests/csvcheck.py "answers/allreduce/$(kind "$p"): one GPU, step 08's bits" \
                --rows 12 --ok all --replica equal
    done
    if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ]; then
        "$A/09_allreduce" --gpus 2 --check-only --csv --n 10^6+3,2^24+1,10^8+7 --seed 1,2,3 2>/dev/null |
            python3 tests/csvcheck.py "answers/allreduce/float: two GPUs, other bits than step 08's" \
                --rows 9 --ok some-wrong
        "$A/09_allreduce_exact" --gpus 2 --check-only --csv --n 10^6+3,2^24+1,10^8+7 2>>"$ERR" |
            python3 tests/csvcheck.py "answers/allreduce/exact: two GPUs, still the exact sum" --rows 3 --ok all
    else
        echo "SKIP answers/allreduce/two GPUs: this machine shows fewer than two"
    fi
fi

# ---- group64 ---------------------------------------------------------------------
count() { echo "$1" | tr ',' '\n' | grep -c .; }
G64=$A/10_group64
if [ ! -x ./step10 ]; then
    echo "FAIL answers/group64: step 10 is not built (make step10)"
elif [ ! -x "$G64" ] || [ ! -x "${G64}_exact" ] || [ ! -x "${G64}_span24" ]; then
    echo "FAIL answers/group64: $G64, its exact build or ${G64}_span24 is not built"
else
    for p in "$G64" "${G64}_exact"; do
        "$p" --help >/dev/null 2>&1 && echo "PASS answers/cli/$(basename "$p") --help" ||
            echo "FAIL answers/cli/$(basename "$p") --help: exit $?"
    done
    # Around a group (64 elements) and a round of them, on every input.
    G64_SIZES=1,31,32,33,63,64,65,1023,1025,4097,65537,10^6+3,2^24+1
    for d in uniform wide cancel ties huge; do
        seeds=1,2; [ "$d" = huge ] && seeds=1,2,3,4
        "$G64" --check-only --csv --input $d --n $G64_SIZES --seed $seeds 2>>"$ERR" |
            python3 tests/csvcheck.py "answers/group64/float/$d: the exact sum's bits" \
                --rows $(($(count $G64_SIZES) * $(count $seeds))) --ok all --exact-bits
    done
    for p in "$G64" "${G64}_exact"; do
        { for b in 32 128 512 1024; do
              "$p" --check-only --csv --input wide --n 1,65,4097,10^6+3 --block "$b" 2>>"$ERR"
          done
          for g in 1 3 132 4096; do
              "$p" --check-only --csv --input wide --n 1,65,4097,10^6+3 --grid "$g" 2>>"$ERR"
          done; } | python3 tests/csvcheck.py "answers/group64/$(kind "$p"): blocks 32 to 1024, grids 1 to 4096, one sum per input" \
                        --rows 32 --ok all --same-sum
    done
    # The array: with one thread per lane of one warp (--grid 1 --block 32),
    # lane l's group r is vectors l + 32 (16 r + k), k = 0 .. 15. Even lanes:
    # 9 vectors of B = 2 (2^24 - 1), then (t, 0, 0, 0) with t = 1 + 2^-23,
    # then 6 vectors of -B; odd lanes: 3 vectors of -B, then zeros. The sum is
    # 16 t a round, a float; a double that has added 36 B has no room left
    # for t's last unit, which within 24 of B takes the fast path.
    tmp=$(mktemp -d)
    python3 - "$tmp/span.f32" <<'PY'
import struct, sys
B, t, rounds = 2.0 * (2 ** 24 - 1), 1 + 2.0 ** -23, 4
x = []
for v in range(rounds * 16 * 32):
    lane, k = v % 32, (v // 32) % 16
    if lane % 2 == 0:
        x += [B] * 4 if k <= 8 else [t, 0.0, 0.0, 0.0] if k == 9 else [-B] * 4
    else:
        x += [-B] * 4 if k <= 2 else [0.0] * 4
open(sys.argv[1], "wb").write(struct.pack("<%df" % len(x), *x))
PY
    { "$G64" --check-only --csv --input-file "$tmp/span.f32" --grid 1 --block 32 2>>"$ERR"
      "$G64" --check-only --csv --input-file "$tmp/span.f32" 2>>"$ERR"
      ./step10 --check-only --csv --input-file "$tmp/span.f32" --grid 1 --block 32 2>>"$ERR"; } |
        sed "s|$tmp/span.f32|file|" |
        python3 tests/csvcheck.py "answers/group64/float: the array that breaks a span of 24, the exact sum's bits (answer and step 10)" \
            --rows 3 --ok all --exact-bits --same-sum
    "${G64}_span24" --check-only --csv --input-file "$tmp/span.f32" --grid 1 --block 32 2>/dev/null |
        python3 tests/csvcheck.py "answers/group64/float: a span of 24 with groups of 64 is WRONG on that array" \
            --rows 1 --ok none
    rm -rf "$tmp"
fi

# ---- round-ranks -------------------------------------------------------------------
RR=$A/10_round_ranks
RV=build/tests/10_round_ranks_virtual
if [ ! -x "$RR" ] && [ -n "$(make -s --no-print-directory print-multi-flags 2>/dev/null)" ]; then
    echo "FAIL answers/round-ranks: $RR is not built (make answers)"
elif [ ! -x "$RR" ]; then
    echo "SKIP answers/round-ranks: it runs on several GPUs, with NCCL and MPI, which this machine lacks"
elif ! make -j"$JOBS" --no-print-directory $RV ${RV}_exact >>"$LOGS/build_answers.log" 2>&1; then
    echo "FAIL answers/round-ranks: $RV does not build (see $LOGS/build_answers.log)"
elif [ ! -x "$RR" ] || [ ! -x "${RR}_exact" ]; then
    echo "FAIL answers/round-ranks: $RR or its exact build is not built"
else
    for p in "$RR" "${RR}_exact"; do
        "$p" --help >/dev/null 2>&1 && echo "PASS answers/cli/$(basename "$p") --help" ||
            echo "FAIL answers/cli/$(basename "$p") --help: exit $?"
    done
    RR_SIZES=1,2,3,1000,4097,10^6+3,2^24+1
    for d in uniform wide cancel ties huge; do
        { "$RR" --gpus 1 --check-only --csv --input $d --n $RR_SIZES --seed 1,2 2>>"$ERR"
          $RV --virtual-ranks 1 --check-only --csv --input $d --n $RR_SIZES --seed 1,2 2>>"$ERR"; } |
            python3 tests/csvcheck.py "answers/round-ranks/float/$d: one GPU (and one virtual rank), step 10's bits" \
                --rows $((4 * $(count $RR_SIZES))) --ok all --exact-bits
    done
    for d in cancel ties huge; do
        $RV --virtual-ranks 2 --check-only --csv --input $d --n 1000,4097,10^6+3 --seed 1,2 2>/dev/null |
            python3 tests/csvcheck.py "answers/round-ranks/float/$d: two virtual ranks, WRONG at every size" \
                --rows 6 --ok none
    done
    for G in 1 2 3; do
        for d in uniform cancel huge; do
            ${RV}_exact --virtual-ranks $G --check-only --csv --input $d --n 1,4097,10^6+3 2>>"$ERR"
        done | python3 tests/csvcheck.py "answers/round-ranks/exact: $G virtual ranks, right (integers modulo 2^32)" \
                   --rows 9 --ok all
    done
    if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ]; then
        "$RR" --gpus 2 --check-only --csv --input cancel --n 4097,10^6+3,2^24+1 --seed 1,2 2>/dev/null |
            python3 tests/csvcheck.py "answers/round-ranks/float: two GPUs, cancel: WRONG somewhere" \
                --rows 6 --ok some-wrong
        "${RR}_exact" --gpus 2 --check-only --csv --input cancel --n 4097,10^6+3,2^24+1 2>>"$ERR" |
            python3 tests/csvcheck.py "answers/round-ranks/exact: two GPUs, right" --rows 3 --ok all
    else
        echo "SKIP answers/round-ranks/two GPUs: this machine shows fewer than two"
    fi
fi

# ---- no-fence -------------------------------------------------------------------
# A failure here would be a finding, not a test failure: the check is that the
# program runs (exit 0 or 1, never a crash) and the line says what it saw.
for p in $(builds 06_no_fence); do
    out=$("$p" --csv --n 1000,65537,2^20+3,2^24 --reps 200 2>>"$ERR")
    rc=$?
    summary=$(printf '%s\n' "$out" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
runs = sum(int(r["runs"]) for r in rows)
wrong = [r["n"] for r in rows if r["status"] != "OK"]
print(f"{len(rows)} sizes, {runs} runs, {len(wrong)} sizes with a wrong run"
      + (" (n = " + ", ".join(wrong) + ")" if wrong else ""))')
    if [ $rc = 0 ] || [ $rc = 1 ]; then
        echo "PASS answers/no-fence/06_no_fence/$(kind "$p") ran: $summary"
    else
        echo "FAIL answers/no-fence/06_no_fence/$(kind "$p"): exit $rc ($(tail -1 "$ERR"))"
    fi
done

# ---- small-sizes ------------------------------------------------------------------
bash tests/answers_small.sh

# ---- rows ---------------------------------------------------------------------
bash tests/answers_rows.sh

# ---- types --------------------------------------------------------------------
bash tests/answers_types.sh
