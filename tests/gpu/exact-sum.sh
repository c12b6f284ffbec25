# shellcheck shell=bash
# The gpu group exact-sum: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# Step 10: one input, one sum, the exact sum rounded once, whatever the
# block, the grid or the build (FP64 or not): the float rows go through
# tests/exact_bits.py, the exact build's through the harness's own check.
if [ -x step10 ] && [ -x build/exact/step10 ]; then
    EX_SIZES=1,2,3,4,5,31,32,33,127,128,129,4095,4096,4097,8193,65537,10^6+3,2^24+1
    ex_rows=$(($(echo $EX_SIZES | tr ',' '\n' | grep -c .) * 2))
    exact10() {      # exact10 NAME ROWS KIND < CSV
        if [ "$3" = float ]; then python3 tests/exact_bits.py "gpu/exact-sum/step10/$1" --rows "$2"
        else python3 tests/csvcheck.py "gpu/exact-sum/step10/$1" --rows "$2" --ok all --same-sum; fi
    }
    # The float build with its groups in FP64 and without (EXACT_FP64 overrides
    # what the GPU would choose), and the exact build.
    # make test: every block and grid with FP64, three of each the other ways.
    for way in "1 ./step10" "0 ./step10" "1 build/exact/step10"; do
        fp64=${way%% *} prog=${way#* }
        kind=float; [ "$prog" = build/exact/step10 ] && kind=exact
        [ "$kind/$fp64" = float/0 ] && kind="float (no FP64)"
        k=${kind%% *}
        blocks="32 64 128 256 512 1024" grids="1 2 3 7 16 64 132 264 528 640 1280 2112 4096"
        [ "$FULL" != 1 ] && [ "$way" != "1 ./step10" ] && blocks="32 128 1024" grids="1 7 4096"
        nb=$(echo $blocks | wc -w) ng=$(echo $grids | wc -w)
        for b in $blocks; do
            EXACT_FP64=$fp64 $prog --check-only --csv --n $EX_SIZES --seed 1,2 --block $b 2>>"$LOGS/gpu.err"
        done | exact10 "$kind: blocks $(echo $blocks | tr ' ' ','), one sum per input" $((nb * ex_rows)) $k | collect
        for g in $grids; do
            EXACT_FP64=$fp64 $prog --check-only --csv --n $EX_SIZES --seed 1 --block 256 --grid $g 2>>"$LOGS/gpu.err"
        done | exact10 "$kind: grids $(echo $grids | tr ' ' ','), one sum per input" $((ng * ex_rows / 2)) $k | collect
        for g in 1 132 4096; do      # 80 KB of digits a block: --grid must still let the step ask for them
            EXACT_FP64=$fp64 $prog --check-only --csv --n $EX_SIZES --seed 1 --block 1024 --grid $g 2>>"$LOGS/gpu.err"
        done | exact10 "$kind: blocks of 1024 on grids 1, 132, 4096" $((3 * ex_rows / 2)) $k | collect
    done
    { EXACT_FP64=1 ./step10 --check-only --csv --n $EX_SIZES --seed 1,2 2>>"$LOGS/gpu.err"
      EXACT_FP64=0 ./step10 --check-only --csv --n $EX_SIZES --seed 1,2 2>>"$LOGS/gpu.err"
      ./step10 --check-only --csv --n $EX_SIZES --seed 1,2 2>>"$LOGS/gpu.err"; } |
        exact10 "float: with FP64, without, and as the GPU chooses: the same sums" $((3 * ex_rows)) float | collect
    if [ "$FULL" = 1 ]; then
        { ./step10 --check-only --csv --n 2^31+5 2>>"$LOGS/gpu.err"
          ./step10 --check-only --csv --n 2^31+5 --block 32 --grid 100 2>>"$LOGS/gpu.err"
          EXACT_FP64=0 ./step10 --check-only --csv --n 2^31+5 2>>"$LOGS/gpu.err"; } |
            exact10 "float: n = 2^31+5, two launch shapes and no FP64" 3 float | collect
        build/exact/step10 --check-only --csv --n 2^31+5 2>>"$LOGS/gpu.err" |
            exact10 "exact: n = 2^31+5" 1 exact | collect
    fi
    err=$(EXACT_FP64=2 ./step10 --check-only --n 1000 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 3 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"EXACT_FP64 must be 0 or 1"* ]]; then
        pass "gpu/exact-sum/EXACT_FP64=2: refused in one line"
    else
        fail "gpu/exact-sum/EXACT_FP64=2" "exit $rc: $err"
    fi
    # A grid word counts its blocks in 16 bits (steps/10_exact.cu): 65535
    # blocks meet, a launch of more is refused with one line.
    ./step10 --check-only --csv --n 10^6+3,2^24+1 --seed 1 --block 32 --grid 65535 \
        2>>"$LOGS/gpu.err" | exact10 "float: 65535 blocks, the most a grid word counts" 2 float | collect
    err=$(./step10 --check-only --n 10^6+3 --grid 65536 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
            [[ $err == *"--grid 65536 is more blocks than this step can combine (at most 65535)"* ]]; then
        pass "gpu/exact-sum/--grid 65536: refused, exit 2"
    else
        fail "gpu/exact-sum/--grid 65536" "exit $rc: $err"
    fi
    # Mutants of what only the GPU runs (warp 0's carries and adds), each a
    # sed on a copy of the step (tests/mutants/exact_gpu/, made by tests/tests.mk):
    # caught. They are built side by side, then run.
    mutants=$(for f in tests/mutants/exact_gpu/*.sed; do basename "$f" .sed; done)
    rm -f $(for m in $mutants; do echo build/mutants/exact_gpu/$m; done)
    $MAKE $(for m in $mutants; do echo build/mutants/exact_gpu/$m; done) >"$LOGS/build_exact_mutants.log" 2>&1
    for m in $mutants; do
        if [ ! -x "build/mutants/exact_gpu/$m" ]; then
            fail "gpu/exact-sum/mutant $m" "does not build: $(grep -m2 -E '(^|[^W])[Ee]rror|changes nothing' "$LOGS/build_exact_mutants.log" | tr '\n' ' ')"
        else
            "build/mutants/exact_gpu/$m" --check-only --csv --n 10^6+3,2^24+1 --seed 1,2 2>/dev/null |
                python3 tests/csvcheck.py "gpu/exact-sum/mutant $m: caught" --rows 4 --ok some-wrong | collect
        fi
    done
else
    skip "gpu/exact-sum" "step10 or build/exact/step10 is not built (make step10 exact)"
fi
