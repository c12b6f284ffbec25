# shellcheck shell=bash
# The gpu group bad-launches: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
# A cooperative grid larger than can be resident must be refused, clearly:
# one block more than the launcher chooses (exercise 07.1; at 2^24 it
# chooses all that can be resident, a smaller n gets fewer), and far more.
chosen=$(./step07 --check-only --csv --n 2^24 2>>"$LOGS/gpu.err" |
         python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin), {}).get("grid", ""))')
grids=1000000
case "$chosen" in
[1-9]*) grids="$((chosen + 1)) 1000000" ;;
*) fail "gpu/bad-launches/step07's own grid" "./step07 --check-only --csv --n 2^24 gave no grid column" ;;
esac
for g in $grids; do
    what=; [ "$g" != 1000000 ] && what=" (one block more than its own $chosen)"
    err=$(timeout 120 ./step07 --n 2^24 --grid $g 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 3 ] && echo "$err" | grep -q cudaErrorCooperativeLaunchTooLarge; then
        pass "gpu/bad-launches/step07 --grid $g$what -> exit 3, cudaErrorCooperativeLaunchTooLarge"
    else
        fail "gpu/bad-launches/step07 --grid $g$what" "exit $rc: $err"
    fi
done
# More elements than the GPU can hold: exit 3, saying how much was needed.
err=$(./step03 --n 2^40 2>&1 >/dev/null)
rc=$?
if [ $rc = 3 ] && echo "$err" | grep -Eq "needs [0-9]+ bytes .* but only [0-9]+ bytes .* are free"; then
    pass "gpu/bad-launches/step03 --n 2^40 -> exit 3, bytes needed and free"
else
    fail "gpu/bad-launches/step03 --n 2^40" "exit $rc: $err"
fi
