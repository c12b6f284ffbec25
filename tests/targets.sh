#!/usr/bin/env bash
# targets.sh: what make says when it cannot do what it is asked (tests/run's
# host group "targets"). Nothing here builds anything. Prints PASS/FAIL lines.
#
#   every target that make help marks (GPU), on a machine without a GPU
#   (HAVE_GPU= makes any machine one): one line that names the target,
#   exit status 2 (as README.md and make help say), and nothing built
#   (BUILD points at a folder that must stay absent)
#   make help's (GPU) marks are the Makefile's GPU_TARGETS, no more, no fewer
#   a step that does not exist (make step11, make stpe07): one line that
#   names the steps there are, exit status 2
#   make -B step03 plans its build (every source left as it is)
set -u
cd "$(dirname "$0")/.." || exit 1
M="make --no-print-directory"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

marked=$($M -s help | sed -n -E 's/^  make ([a-z][a-z0-9-]*).*\(GPU\).*/\1/p' | sort -u | paste -sd' ')
listed=$($M -s print-GPU_TARGETS | tr ' ' '\n' | grep . | sort -u | paste -sd' ')
if [ -n "$listed" ] && [ "$marked" = "$listed" ]; then
    echo "PASS targets/make help marks (GPU) the Makefile's GPU_TARGETS ($(echo $listed | wc -w) targets)"
else
    echo "FAIL targets/make help's (GPU) marks: '$marked'; the Makefile's GPU_TARGETS: '$listed'"
fi

# one_line NAME REGEX GOAL...: make GOAL... prints one line matching REGEX,
# exits 2 and builds nothing.
one_line() {
    local name=$1 want=$2 out rc lines
    shift 2
    out=$($M "$@" BUILD="$tmp/build" 2>&1)
    rc=$?
    lines=$(printf '%s\n' "$out" | grep -c .)
    if [ "$rc" != 2 ]; then
        echo "FAIL targets/$name: exit $rc, not 2: $(printf '%s' "$out" | head -3 | tr '\n' ' ')"
    elif [ "$lines" != 1 ]; then
        echo "FAIL targets/$name: $lines lines, not one: $(printf '%s' "$out" | head -3 | tr '\n' ' ')"
    elif ! printf '%s' "$out" | grep -Eq -- "$want"; then
        echo "FAIL targets/$name: '$out' does not say '$want'"
    elif [ -e "$tmp/build" ]; then
        echo "FAIL targets/$name: it built something first ($(ls "$tmp/build" | head -3 | tr '\n' ' '))"
        rm -rf "$tmp/build"
    else
        echo "PASS targets/$name: one line, exit 2, nothing built"
    fi
}
for t in $listed; do
    one_line "make $t without a GPU" "make $t needs an NVIDIA GPU.*nothing was built" "$t" HAVE_GPU=
done
steps=$(ls steps/[0-9][0-9]_*.cu | sed -E 's|steps/([0-9][0-9])_.*|step\1|')
range="the steps are $(echo $steps | cut -d' ' -f1) to $(echo $steps | tr ' ' '\n' | tail -1)"
next=$(printf 'step%02d' $(($(echo $steps | tr ' ' '\n' | tail -1 | tr -dc 0-9 | sed 's/^0//') + 1)))
one_line "make $next (no such step)" "make $next: no such step or target; $range" "$next"
one_line "make stpe07 (a typo)" "make stpe07: no such step or target; $range" stpe07
# make -B remakes every target, and asks of each source how to remake it: a file
# that exists is left as it is (the last-resort rule answers only for a missing one).
if out=$($M -n -B step03 BUILD="$tmp/build" 2>&1) && echo "$out" | grep -q "nvcc .* -o step03 "; then
    echo "PASS targets/make -B step03: plans the build, no 'no such step' for its sources"
else
    echo "FAIL targets/make -B step03: $(echo "$out" | grep -m1 -E 'no such|Error|\*\*\*')"
fi
