#!/usr/bin/env bash
# sanitize.sh SIZES PROGRAM...: runs compute-sanitizer's memcheck (with leak
# checking), racecheck, synccheck and initcheck over each program at the given
# sizes (--check-only). A PROGRAM may carry arguments in the same word
# ("step09 --virtual-ranks 3"). Prints PASS, FAIL or SKIP per program and tool, then a
# summary line; exits 1 if anything failed.
set -u
sizes=$1
shift
pass=0 fail=0 skip=0
mkdir -p build/logs
if ! command -v compute-sanitizer >/dev/null 2>&1; then
    for p in "$@"; do echo "SKIP sanitize/$(basename "$p"): compute-sanitizer is not installed"; skip=$((skip + 1)); done
    echo "$pass passed, $fail failed, $skip skipped"
    exit 0
fi
for word in "$@"; do
    read -r -a cmd <<<"$word"
    p=${cmd[0]}
    [ -x "$p" ] || p=./$p
    name=$(echo "${cmd[*]}" | sed 's|^\./||; s|/|_|g; s| --*|_|g; s| |_|g')
    for tool in memcheck racecheck synccheck initcheck; do
        extra=
        [ "$tool" = memcheck ] && extra="--leak-check full"
        log=build/logs/sanitize_${name}_$tool.log
        compute-sanitizer --tool "$tool" $extra --error-exitcode 42 "$p" "${cmd[@]:1}" --check-only --n "$sizes" >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
            echo "PASS sanitize/$name/$tool"; pass=$((pass + 1))
        else
            first=$(grep -m1 -E "^========= (Invalid|Race|Barrier|Uninitialized|Leaked|Error|ERROR)|error" "$log")
            echo "FAIL sanitize/$name/$tool: exit $rc; ${first:-see $log}"; fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
