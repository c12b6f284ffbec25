# shellcheck shell=bash
# The host group unit: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# The harness unit tests, float and exact builds.
for u in build/tests/unit_float build/tests/unit_exact; do
    if [ -x "$u" ]; then
        "$u" | collect
    else
        fail "unit/$(basename "$u")" "not built"
    fi
done
