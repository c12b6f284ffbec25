# shellcheck shell=bash
# The host group cli: tests/run sources this file when the group is to run
# (see its table), so that its lines are counted there.
#
# Each row of tests/misuse.txt, against each step it names (while the
# groups above run on).
for m in $MULTI; do
    [ -x "step$m" ] || skip "cli/step$m" "not built (make step$m says why); its rows of tests/misuse.txt were not run"
done
# (Written to fork little: a thousand runs, in bash.)
matches() {     # matches TEXT REGEX: does a line of TEXT match the extended REGEX, as grep -E would?
    local line
    while IFS= read -r line; do [[ $line =~ $2 ]] && return 0; done <<<"$1"
    return 1
}
while IFS='|' read -r which env args want regex; do
    case "$which" in "#"* | "") continue ;; esac
    read -r -a list <<<"$which"; which=${list[*]}
    read -r env <<<"$env"
    read -r want <<<"$want"
    read -r regex <<<"$regex"
    read -r -a list <<<"$args"; words=${list[*]}
    if [ "$which" = all ]; then
        which="$STEPS $ROWS $TYPES"
        for m in $MULTI; do [ -x step$m ] && which="$which $m"; done
    fi
    for s in $which; do
        case " $MULTI " in *" $s "*) [ -x "step$s" ] || continue ;; esac   # built where NCCL and MPI are
        name="cli/step$s $words"
        if [ ! -x "step$s" ]; then fail "$name" "step$s not built"; continue; fi
        out=$(eval "env $env ./step$s $args" 2>"$LOGS/cli.err")
        rc=$?
        err=
        IFS= read -r -d '' err <"$LOGS/cli.err"
        while [[ $err == *$'\n' ]]; do err=${err%$'\n'}; done          # as $(cat ...) gives it
        newlines=${err//[!$'\n']/}
        lines=0; [ -n "$err" ] && lines=$((${#newlines} + 1))
        if [ "$rc" != "$want" ]; then
            fail "$name" "exit $rc, expected $want ($err)"
        elif ! matches "$out$err" "$regex"; then
            fail "$name" "message '$err' does not match '$regex'"
        elif [ "$want" = 2 ] && [ "$lines" != 2 ]; then
            fail "$name" "expected one message line and the --help hint, got: $err"
        elif [ "$want" = 3 ] && [ "$lines" != 1 ]; then
            fail "$name" "expected one message line, got: $err"
        else
            pass "$name"
        fi
    done
done <tests/misuse.txt
