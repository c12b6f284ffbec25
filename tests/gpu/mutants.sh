# shellcheck shell=bash
# The gpu group mutants: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# The tests must catch broken kernels: the exact build at every size,
# the float build at least where one element outweighs the rounding bound.
for m in drop_last double_block; do
    build/mutants/${m}_exact --check-only --csv --n $SIZES --seed $SEEDS 2>/dev/null |
        python3 tests/csvcheck.py "gpu/mutants/$m/exact caught at every size" --rows $SIZE_ROWS --ok none | collect
    build/mutants/$m --check-only --csv --n $SIZES --seed $SEEDS 2>/dev/null |
        python3 tests/csvcheck.py "gpu/mutants/$m/float caught" --rows $SIZE_ROWS --ok some-wrong | collect
done
