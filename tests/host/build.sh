# shellcheck shell=bash
# The build tier: every program the other tiers run compiles. tests/run
# sources this file first, whatever T says (the other tiers need what it builds).
listed="$($MAKE -s print-steps) $($MAKE -s print-rows-steps) $($MAKE -s print-types-steps)"
for f in steps/[0-9][0-9]_*.cu; do
    case " $listed " in
    *" $f "*) pass "build/makefile-lists/$f" ;;
    *) fail "build/makefile-lists/$f" "not in the Makefile's STEPS list" ;;
    esac
done
build steps all
# Step 09 needs NCCL and MPI: where this machine lacks them, make builds the
# other steps and says so, and every test of step 09 is skipped. Say it here.
if [ -z "$($MAKE -s print-multi-flags 2>/dev/null)" ]; then
    for m in $MULTI; do
        skip "build/step$m" "$($MAKE -s step$m 2>&1 >/dev/null | grep -v '^make' | head -1); its tests are skipped"
    done
fi
# The exact builds (build/exact/) only run in the GPU tier: built where a
# GPU is, and by make test-full everywhere.
if [ "$HAVE_GPU" = 1 ] || [ "$FULL" = 1 ]; then
    build exact exact
else
    skipline "build/exact: no GPU here, so nothing would run the exact builds (make test-full builds them)"
fi
build unit unit
# Step 11's and step 12's answers that are programs, GPU or not: only the GPU
# tier runs them (tests/answers_rows.sh, answers_types.sh), and nothing else
# here would compile them.
build answers-rows answers-rows
build answers-types answers-types
# The programs that only the GPU tier runs (mutants, the multi-GPU tests'
# builds, Harris's kernels, the cluster programs) are built where a GPU is
# and their groups run: here, with one; in their GPU groups' place, that is,
# nowhere, without.
if [ "$HAVE_GPU" = 1 ] || [ "$FULL" = 1 ]; then
    build mutants mutants
    build rows-mutants rows-mutants
    build types-mutants types-mutants
    build ranks-programs ranks-programs
    gpu_planned harris && build harris harris-kernels
    gpu_planned clusters && build clusters clusters-programs
else
    skipline "build/mutants, harris, clusters: no GPU here, so nothing would run them (make test-full builds them)"
fi
