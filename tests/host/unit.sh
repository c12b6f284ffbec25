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
# Step 12's harness on the CPU: the double accumulator, references, typed files.
if [ -x build/tests/unit_types ]; then
    types_tmp=$(mktemp -d)
    build/tests/unit_types "$types_tmp" | collect
    rm -rf "$types_tmp"
else
    fail "unit/unit_types" "not built"
fi
