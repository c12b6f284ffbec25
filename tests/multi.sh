#!/usr/bin/env bash
# multi.sh one|several: steps 09 and 10 on the GPUs of this machine (tests/run
# runs it in the GPU tier). Prints PASS, FAIL or SKIP lines. Step 09 first:
#
#   one (gpu/ranks)       G = 1 in both launch forms (./step09, mpirun -np 1),
#                         float and exact, bit for bit step 08's sums; 2, 3, 4,
#                         7 and 16 virtual ranks on the one GPU (the tests' build,
#                         build/tests/step09_virtual, with a stand-in NCCL that
#                         moves the bytes by copies: everything but NCCL's own
#                         byte moves); two mutants caught (one drops a rank's
#                         chunk sums, one cuts the shards off the chunks'
#                         boundaries); bad input and a failing NCCL start: one
#                         line, the right exit status, within seconds
#   several (gpu/multi-gpu)  two GPUs or more: G = 2 and G = every GPU, in
#                         both forms, and with CUDA_VISIBLE_DEVICES reversed,
#                         bit for bit step 08's;
#                         20 runs alike; the mutant on real ranks; a rank whose
#                         GPU work faults, and a rank killed under mpirun: the
#                         other rank stops with exit 3 and one line, in seconds
# then step 10's sum on several GPUs (answers/10_multi_gpu.cu: its sums must be
# the exact sums rounded once: tests/exact_bits.py checks the float rows, the
# harness the exact build's):
#   one                   G = 1 in both launch forms, float and exact, one sum
#                         per input; 2, 3, 7 and 16 virtual ranks at n = 1, G - 1,
#                         G, G + 1, 4095, 4097, 10^6+3, 2^24+1, 2^31+5: G = 1's
#                         sums; the mutant that drops a rank's accumulator caught
#   several               G = 2 and every GPU, in both forms, CUDA_VISIBLE_DEVICES
#                         reversed too: G = 1's sums; the mutant caught on real ranks
set -u
cd "$(dirname "$0")/.." || exit 1
what=${1:-one}
group=gpu/ranks
[ "$what" = several ] && group=gpu/multi-gpu
LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/multi.err
: >"$ERR"
# 2^31+5 (an index past 32 bits) and 10^8+7: in make test-full, and when
# this runs alone; make test takes 10^7+3 for the latter (several chunks on
# every one of 16 ranks, and a short last one, all the same).
HUGE=,2^31+5 HUGE_ROWS=1 BIG=10^8+7
[ "${TEST_FULL:-1}" = 1 ] || HUGE= HUGE_ROWS=0 BIG=10^7+3

pass() { echo "PASS $group/$1${2:+ ($2)}"; }
fail() { echo "FAIL $group/$1: $(printf '%s' "$2" | tr '\n' ' ' | cut -c1-300)"; }

V=build/tests/step09_virtual
if [ ! -x ./step09 ] || [ ! -x build/exact/step09 ] || [ ! -x $V ] || [ ! -x ${V}_exact ]; then
    why=$(make -s --no-print-directory step09 2>&1 | tail -1)
    echo "SKIP $group: step09 is not built (${why:-make step09})"
    exit 0
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ -n "${CUDA_VISIBLE_DEVICES:-}" ] && gpus=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
if [ "$what" = several ] && [ "${gpus:-0}" -lt 2 ]; then
    echo "SKIP $group: needs two GPUs or more; this machine shows ${gpus:-0}"
    exit 0
fi
MPIRUN=
if command -v mpirun >/dev/null 2>&1; then
    MPIRUN="mpirun"
    [ "$(id -u)" = 0 ] && MPIRUN="mpirun --allow-run-as-root"
fi

# same NAME ROWS CMD...: every row OK, equal to the CPU replica of step 08's
# order, and for each n and seed one sum only: CMD prints the CSV of step 09
# and of step 08 for the same sizes.
same() {
    local name=$1 rows=$2
    shift 2
    "$@" 2>>"$ERR" | python3 tests/csvcheck.py "$group/$name" --rows "$rows" --ok all --same-sum --replica equal
}
both() {     # both BUILD_DIR STEP09_ARGS... -- N: step 09's and step 08's CSV at n = N, seeds 1 and 2
    local dir=$1
    shift
    local args=()
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    "${args[@]}" --check-only --csv --n "$2" --seed 1,2
    "$dir/step08" --check-only --csv --n "$2" --seed 1,2
}
count() { echo "$1" | tr ',' '\n' | grep -c .; }

# timed NAME WANT_RC REGEX CMD...: the exit status, one line on stderr that
# matches, and the seconds it took.
timed() {
    local name=$1 want=$2 regex=$3
    shift 3
    local t0 t1 rc err lines
    t0=$(date +%s.%N)
    timeout 120 "$@" >"$LOGS/multi_$$.out" 2>"$LOGS/multi_$$.err"
    rc=$?
    t1=$(date +%s.%N)
    # The program's own lines (mpirun adds its own report, and a usage error
    # its "Try --help" hint).
    err=$(grep '^09_multi_gpu: ' "$LOGS/multi_$$.err")
    lines=$(printf '%s' "$err" | grep -c '')
    secs=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
    if [ "$rc" != "$want" ] && ! { [ "$want" = nonzero ] && [ "$rc" != 0 ] && [ "$rc" != 124 ]; }; then
        fail "$name" "exit $rc, expected $want, after $secs s: $(head -3 "$LOGS/multi_$$.err")"
    elif ! printf '%s' "$err" | grep -Eq -- "$regex"; then
        fail "$name" "no line matching '$regex': $(head -3 "$LOGS/multi_$$.err")"
    elif [ "$lines" != 1 ]; then
        fail "$name" "expected one line from the program, got $lines: $err"
    else
        pass "$name" "exit $rc in $secs s: $(printf '%s' "$err" | cut -c1-140)"
    fi
}

# ---- step 10 ----------------------------------------------------------------------------
# exact10 NAME ROWS KIND: step 10's CSV rows (stdin) all OK, one sum per n and
# seed, and in the float build each the exact sum rounded once.
exact10() {
    if [ "$3" = float ]; then
        python3 tests/exact_bits.py "$group/step10/$1" --rows "$2"
    else
        python3 tests/csvcheck.py "$group/step10/$1" --rows "$2" --ok all --same-sum
    fi
}
V10=build/tests/10_multi_gpu_virtual
M10=build/answers/10_multi_gpu
built10() {
    [ -x $M10 ] && [ -x ${M10}_exact ] && [ -x $V10 ] && [ -x ${V10}_exact ] && return 0
    echo "SKIP $group/step10: answers/10_multi_gpu.cu or its tests' builds are not built (make ranks-programs multi-tests)"
    return 1
}
S10=1,2,3,31,32,33,4095,4096,4097,65537,10^6+3,2^24+1
step10_one() {
    built10 || return 0
    local dir kind virtual n G sizes ref rows all=1,2,3,6,7,8,15,16,17,4095,4097,10^6+3,2^24+1$HUGE
    for prog in $M10 ${M10}_exact; do
        kind=float; [ "$prog" = $M10 ] || kind=exact
        virtual=$V10; [ "$prog" = $M10 ] || virtual=${V10}_exact
        n=$(count $S10)
        { $prog --gpus 1 --check-only --csv --n $S10$HUGE --seed 1,2 2>>"$ERR"
          $virtual --virtual-ranks 1 --check-only --csv --n $S10$HUGE --seed 1 2>>"$ERR"
          [ -z "$MPIRUN" ] || $MPIRUN -np 1 $prog --check-only --csv --n $S10 --seed 1,2 2>>"$ERR"; } |
            exact10 "G=1/$kind/--gpus 1, one virtual rank${MPIRUN:+, mpirun -np 1}: one sum per input" \
                $((3 * (n + HUGE_ROWS) + ${MPIRUN:+2 * n +} 0)) $kind
        [ -n "$MPIRUN" ] || echo "SKIP $group/step10/G=1/$kind/mpirun -np 1: mpirun is not installed"
        ref=$($virtual --virtual-ranks 1 --check-only --csv --n $all 2>>"$ERR")
        for G in 2 3 7 16; do
            sizes=$(printf '%s\n' 1 $((G - 1)) $G $((G + 1)) 4095 4097 10^6+3 2^24+1 ${HUGE#,} |
                    awk 'NF && $1 != 0 && !seen[$1]++' | paste -sd,)
            { $virtual --virtual-ranks $G --check-only --csv --n "$sizes" 2>>"$ERR"; echo "$ref"; } |
                exact10 "virtual/$kind/$G ranks: G = 1's sums" $(($(count "$sizes") + $(count $all))) $kind
        done
    done
    local err rc
    err=$($M10 --gpus 1 --combine-only --n 1000 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && [[ $err == *"no combine apart from its kernel"* ]]; then
        pass "step10/bad/--combine-only on one rank" "exit 2: $err"
    else
        fail "step10/bad/--combine-only on one rank" "exit $rc: $err"
    fi
    local M=build/mutants/multi m
    for m in drop_acc drop_acc_exact drop_acc_real; do
        [ -x $M/$m ] || fail "step10/mutants/$m" "$M/$m is not built (make multi-tests)"
    done
    for G in 2 3 7; do
        $M/drop_acc --virtual-ranks $G --check-only --csv --n 2^20+3,10^7+3 2>/dev/null |
            python3 tests/csvcheck.py "$group/step10/mutants/drop_acc/float, $G virtual ranks: caught" --rows 2 --ok none
        $M/drop_acc_exact --virtual-ranks $G --check-only --csv --n 2^20+3,10^7+3 2>/dev/null |
            python3 tests/csvcheck.py "$group/step10/mutants/drop_acc/exact, $G virtual ranks: caught" --rows 2 --ok none
    done
}
step10_several() {
    built10 || return 0
    local G=$1 dir kind ref n sizes reversed
    sizes=1,$((G - 1)),$G,$((G + 1)),4095,4097,10^8+7
    [ "$G" = 2 ] && sizes=$sizes,2^31+5        # (every process draws the whole array)
    sizes=$(echo "$sizes" | tr ',' '\n' | awk '!seen[$1]++' | paste -sd,)
    n=$(count "$sizes")
    reversed=$(seq $((G - 1)) -1 0 | paste -sd,)
    for prog in $M10 ${M10}_exact; do
        kind=float; [ "$prog" = $M10 ] || kind=exact
        ref=$($prog --gpus 1 --check-only --csv --n "$sizes" 2>>"$ERR")
        { $prog --gpus $G --check-only --csv --n "$sizes" 2>>"$ERR"
          env CUDA_VISIBLE_DEVICES=$reversed $prog --gpus $G --check-only --csv --n "$sizes" 2>>"$ERR"
          echo "$ref"; } | exact10 "G=$G/$kind/one process, and CUDA_VISIBLE_DEVICES=$reversed: G = 1's sums" $((3 * n)) $kind
        if [ -n "$MPIRUN" ]; then
            { $MPIRUN -np $G $prog --check-only --csv --n "$sizes" 2>>"$ERR"
              $MPIRUN -np $G -x CUDA_VISIBLE_DEVICES=$reversed $prog --check-only --csv --n "$sizes" 2>>"$ERR"
              echo "$ref"; } | exact10 "G=$G/$kind/mpirun -np $G, and CUDA_VISIBLE_DEVICES=$reversed: G = 1's sums" $((3 * n)) $kind
        else
            echo "SKIP $group/step10/G=$G/$kind/mpirun: mpirun is not installed"
        fi
    done
    [ "$G" = 2 ] || return 0
    $M10 --gpus $G --csv --n 10^8+7 --reps 20 2>>"$ERR" |
        python3 tests/csvcheck.py "$group/step10/G=$G/float/22 runs, one result" --rows 1 --ok all --distinct 1
    build/mutants/multi/drop_acc_real --gpus $G --check-only --csv --n 2^20+3,10^7+3 2>/dev/null |
        python3 tests/csvcheck.py "$group/step10/mutants/drop_acc/float, $G real ranks: caught" --rows 2 --ok none
}

SIZES=1,2,3,31,32,33,255,256,257,1023,1024,1025,4095,4096,4097,65537,2^20,2^24+1,$BIG
if [ "$what" = one ]; then
    # ---- G = 1, both launch forms ------------------------------------------------
    for dir in . build/exact; do
        kind=float; [ "$dir" = . ] || kind=exact
        n=$(count $SIZES)
        same "G=1/$kind/one process: step 08's bits" $((4 * n)) both $dir $dir/step09 --gpus 1 -- $SIZES
        [ -n "$HUGE" ] && same "G=1/$kind/one process: step 08's bits at 2^31+5" 4 both $dir $dir/step09 --gpus 1 -- 2^31+5
        if [ -n "$MPIRUN" ]; then
            same "G=1/$kind/mpirun -np 1: step 08's bits" $((4 * n)) both $dir $MPIRUN -np 1 $dir/step09 -- $SIZES
        else
            echo "SKIP $group/G=1/$kind/mpirun -np 1: mpirun is not installed"
        fi
    done

    # ---- virtual ranks: the ranks' work in turn on one GPU --------------------------
    # Step 08's sums once for every size used, then each G against them.
    for dir in . build/exact; do
        kind=float; [ "$dir" = . ] || kind=exact
        virtual=$V; [ "$dir" = . ] || virtual=${V}_exact
        big=$HUGE
        all=1,2,3,4,5,6,7,8,15,16,17,4095,4097,$BIG$big
        ref=$($dir/step08 --check-only --csv --n $all 2>>"$ERR")
        for G in 2 3 4 7 16; do
            sizes=$(printf '%s\n' 1 $((G - 1)) $G $((G + 1)) 4095 4097 $BIG ${big#,} | awk 'NF && $1 != 0 && !seen[$1]++' | paste -sd,)
            { $virtual --virtual-ranks $G --check-only --csv --n "$sizes" 2>>"$ERR"; echo "$ref"; } |
                python3 tests/csvcheck.py "$group/virtual/$kind/$G ranks: step 08's bits" \
                    --rows $(($(count "$sizes") + $(count $all))) --ok all --same-sum --replica equal
        done
    done

    # ---- the mutants: caught ----------------------------------------------------------
    M=build/mutants/multi
    for m in drop_rank drop_rank_exact drop_rank_real shard_shift shard_shift_exact; do
        [ -x $M/$m ] || { fail "mutants/$m" "$M/$m is not built (make multi-tests)"; continue; }
    done
    # (sizes with chunks on every rank, so that the last rank has some to drop)
    for G in 1 2 3; do
        $M/drop_rank --virtual-ranks $G --check-only --csv --n 2^20+3,10^7+3 2>/dev/null |
            python3 tests/csvcheck.py "$group/mutants/drop_rank/float, $G virtual ranks: caught" --rows 2 --ok none
        $M/drop_rank_exact --virtual-ranks $G --check-only --csv --n 2^20+3,10^7+3 2>/dev/null |
            python3 tests/csvcheck.py "$group/mutants/drop_rank/exact, $G virtual ranks: caught" --rows 2 --ok none
    done
    $M/drop_rank_real --gpus 1 --check-only --csv --n 1000,10^7+3 2>/dev/null |
        python3 tests/csvcheck.py "$group/mutants/drop_rank/float, one real rank: caught" --rows 2 --ok none
    # Shards moved 1000 elements off the chunks' boundaries: each rank then
    # has a chunk more than its slots hold, and its neighbour's first slot
    # takes it: elements are lost and the chunks are not step 08's.
    for G in 2 3; do
        $M/shard_shift --virtual-ranks $G --check-only --csv --n 10^6+3,10^7+3 --seed 1,2 2>/dev/null |
            python3 tests/csvcheck.py "$group/mutants/shard_shift/float, $G virtual ranks: caught" --rows 4 --ok none
        $M/shard_shift_exact --virtual-ranks $G --check-only --csv --n 10^6+3,10^7+3 2>/dev/null |
            python3 tests/csvcheck.py "$group/mutants/shard_shift/exact, $G virtual ranks: caught" --rows 2 --ok none
    done

    # ---- bad input and a failing start --------------------------------------------------
    more=$((gpus + 1))
    timed "bad/--gpus $more" 3 "--gpus $more: this machine shows $gpus GPU" ./step09 --gpus $more --n 1000
    timed "bad/--gpus 0" 2 "--gpus: 0 is too few" ./step09 --gpus 0
    timed "bad/no GPU" 3 "no CUDA GPU found" env CUDA_VISIBLE_DEVICES= ./step09 --n 1000
    timed "bad/NCCL cannot start" 3 "ncclCommInitAll.* failed" env NCCL_COMM_ID=256.256.256.256:1 ./step09 --n 1000
    timed "bad/--virtual-ranks 0" 2 "--virtual-ranks: 0 is too few: at least 1" $V --virtual-ranks 0
    timed "bad/--virtual-ranks 2x" 2 "--virtual-ranks: '2x': unexpected 'x'" $V --virtual-ranks 2x
    timed "bad/--gpus with --virtual-ranks" 2 "--gpus and --virtual-ranks do not go together" \
        $V --gpus 1 --virtual-ranks 2
    if [ -n "$MPIRUN" ]; then
        timed "bad/mpirun -np $more" nonzero "has no GPU of its own" $MPIRUN -np $more ./step09 --n 1000
        timed "bad/mpirun with --gpus" nonzero "--gpus 2, but mpirun started 1 process:" $MPIRUN -np 1 ./step09 --gpus 2 --n 1000
        timed "bad/--virtual-ranks under mpirun" nonzero "not under mpirun" $MPIRUN -np 1 $V --virtual-ranks 2
    fi
    step10_one
    exit 0
fi

# ---- several GPUs ---------------------------------------------------------------------
# G = 2, and every GPU of the machine where it has more.
EVERY="2"
[ "$gpus" -gt 2 ] && EVERY="2 $gpus"
# FAULTS_ONLY=1: only the failure modes below (a rank whose work faults, a
# rank killed under mpirun), for a short run on a machine of several GPUs.
if [ "${FAULTS_ONLY:-0}" != 1 ]; then
for G in $EVERY; do step10_several "$G"; done
for G in $EVERY; do
sizes="1,$((G - 1)),$G,$((G + 1)),4095,4097,10^8+7"
[ "$G" = 2 ] && sizes=$sizes,2^31+5
sizes=$(echo "$sizes" | tr ',' '\n' | awk '!seen[$1]++' | paste -sd,)
n=$(count "$sizes")
reversed=$(seq $((G - 1)) -1 0 | paste -sd,)
# against_08 NAME DIR CMD...: step 09's rows (CMD) and step 08's for the same
# sizes ($ref) must have one sum per input, each the replica's.
against_08() {
    local name=$1
    shift
    { "$@" --check-only --csv --n "$sizes" 2>>"$ERR"; echo "$ref"; } |
        python3 tests/csvcheck.py "$group/$name" --rows $((2 * n)) --ok all --same-sum --replica equal
}
for dir in . build/exact; do
    kind=float; [ "$dir" = . ] || kind=exact
    ref=$($dir/step08 --check-only --csv --n "$sizes" 2>>"$ERR")
    against_08 "G=$G/$kind/one process: step 08's bits" $dir/step09 --gpus $G
    against_08 "G=$G/$kind/one process, CUDA_VISIBLE_DEVICES=$reversed: step 08's bits" \
        env CUDA_VISIBLE_DEVICES=$reversed $dir/step09 --gpus $G
    if [ -n "$MPIRUN" ]; then
        against_08 "G=$G/$kind/mpirun -np $G: step 08's bits" $MPIRUN -np $G $dir/step09
        against_08 "G=$G/$kind/mpirun -np $G, CUDA_VISIBLE_DEVICES=$reversed: step 08's bits" \
            $MPIRUN -np $G -x CUDA_VISIBLE_DEVICES=$reversed $dir/step09
    else
        echo "SKIP $group/G=$G/$kind/mpirun: mpirun is not installed"
    fi
done
./step09 --gpus $G --csv --n 10^8+7 --reps 20 2>>"$ERR" |
    python3 tests/csvcheck.py "$group/G=$G/float/22 runs, one result" --rows 1 --ok all --distinct 1 --replica equal
[ -n "$MPIRUN" ] && $MPIRUN -np $G ./step09 --csv --n 10^8+7 --reps 20 2>>"$ERR" |
    python3 tests/csvcheck.py "$group/G=$G/float/mpirun: 22 runs, one result" --rows 1 --ok all --distinct 1 --replica equal
build/mutants/multi/drop_rank_real --gpus $G --check-only --csv --n 2^20+3,10^7+3 2>/dev/null |
    python3 tests/csvcheck.py "$group/mutants/drop_rank/float, $G real ranks: caught" --rows 2 --ok none
done
fi
G=2

# A rank whose GPU work faults (the tests' build with the harness's fault
# seam): the process that drives both stops, with one line, having aborted
# the communicators.
timed "fault/one process: rank 1's kernel faults" 3 "GPU work (of rank 1 )?failed" \
    env REDUCE_FAULT_RANK=1 build/tests/step09_fault --gpus $G --n 2^26 --reps 50
# A rank killed under mpirun: the survivor says so and exits 3.
if [ -n "$MPIRUN" ]; then
    log=$LOGS/multi_killed
    t0=$(date +%s.%N)
    $MPIRUN -np $G ./step09 --n 2^28 --reps 100000 >"$log.out" 2>"$log.err" &
    job=$!
    victim=
    for _ in $(seq 100); do             # wait until rank 1 is in its timed runs
        sleep 0.2
        for p in $(pgrep -f '^\./step09 --n 2\^28' 2>/dev/null); do
            tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && victim=$p
        done
        [ -n "$victim" ] && grep -q . "$log.out" 2>/dev/null && break
    done
    if [ -z "$victim" ]; then
        kill $job 2>/dev/null
        fail "killed/mpirun: rank 1 killed" "rank 1's process was not found"
    else
        sleep 4                         # past drawing the input: in the timed runs
        t_kill=$(date +%s.%N)
        kill -9 "$victim"
        timeout 60 tail --pid=$job -f /dev/null
        wait $job
        rc=$?
        t1=$(date +%s.%N)
        secs=$(python3 -c "print(f'{$t1 - $t_kill:.1f}')")
        line=$(grep -m1 "rank 0 of $G" "$log.err")
        if [ "$rc" != 0 ] && [ -n "$line" ] && python3 -c "import sys; sys.exit(0 if $t1 - $t_kill < 30 else 1)"; then
            pass "killed/mpirun: rank 1 killed with SIGKILL" "mpirun exit $rc, $secs s after the kill; rank 0: $line"
        else
            fail "killed/mpirun: rank 1 killed with SIGKILL" "mpirun exit $rc after $secs s; rank 0 said '$line'; $(tail -3 "$log.err")"
        fi
    fi
    : "$t0"
fi
