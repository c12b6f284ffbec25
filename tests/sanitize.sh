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
# nccl_only LOG: true if memcheck reported errors and each is an API error
# ("Program hit ...") made by libnccl (named on that line or in its host
# backtrace).
nccl_only() {
    awk '/^========= Program hit/ { n++; if (/libnccl/) nccl++; else open = 1; next }
         /^========= [A-Z]/ && !/Program hit/ && !/ERROR SUMMARY|LEAK SUMMARY|COMPUTE-SANITIZER/ { other++ }
         open && /libnccl/ { nccl++; open = 0 }
         /^========= *$/ { open = 0 }
         END { exit !(n > 0 && nccl == n && other == 0) }' "$1"
}

for word in "$@"; do
    read -r -a cmd <<<"$word"
    p=${cmd[0]}
    [ -x "$p" ] || p=./$p
    name=$(echo "${cmd[*]}" | sed 's|^\./||; s|/|_|g; s| --*|_|g; s| |_|g')
    for tool in memcheck racecheck synccheck initcheck; do
        extra=
        [ "$tool" = memcheck ] && extra="--leak-check full"
        log=build/logs/sanitize_${name}_$tool.log
        # On real ranks, NCCL's own kernels are not ours to check (and initcheck
        # flags reads of NCCL's internal buffers): only the step's kernels are.
        case " ${cmd[*]} " in *" --gpus "*) extra="$extra --kernel-name-exclude kns=nccl" ;; esac
        compute-sanitizer --tool "$tool" $extra --error-exitcode 42 "$p" "${cmd[@]:1}" --check-only --n "$sizes" >"$log" 2>&1
        rc=$?
        note=
        if [ $rc -ne 0 ] && [ "$tool" = memcheck ] && nccl_only "$log"; then
            # Every error is a CUDA API call made by NCCL itself (some NCCL
            # builds probe for kernels this GPU has no image of, at init),
            # none by the program, which checks its own calls. Judge the run
            # again with API errors not reported; its memory checks stand.
            note=" (NCCL's own API errors at init not counted: $(grep -m1 'Program hit' "$log" | sed 's/^=* *//' | cut -c1-100))"
            compute-sanitizer --tool "$tool" $extra --report-api-errors no --error-exitcode 42 "$p" "${cmd[@]:1}" \
                --check-only --n "$sizes" >"$log" 2>&1
            rc=$?
        fi
        if [ $rc -eq 0 ] && grep -Eq "SUMMARY: 0 (errors|hazards)" "$log"; then
            echo "PASS sanitize/$name/$tool$note"; pass=$((pass + 1))
        else
            first=$(grep -m1 -E "^========= (Invalid|Race|Barrier|Uninitialized|Leaked|Error|ERROR)|error" "$log")
            echo "FAIL sanitize/$name/$tool: exit $rc; ${first:-see $log}"; fail=$((fail + 1))
        fi
    done
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
