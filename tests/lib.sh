# shellcheck shell=bash
# tests/lib.sh: what the tests share, sourced (`. tests/lib.sh`) from the
# repository's root.
#
#   check NAME CSVCHECK_OPTIONS... -- PROGRAM ARGS...
#           runs the program with --csv (its stderr appended to $ERR) and
#           hands its output to tests/csvcheck.py, which prints the line;
#           a program that is not built is a FAIL that says so
#   made NAME LOG TARGET...
#           runs make on the targets into LOG; prints PASS NAME, or FAIL NAME
#           with make's first errors; returns make's status
#   expect NAME RC LINES REGEX -- PROGRAM ARGS...
#           the program must exit with RC and print LINES lines, each
#           matching the extended REGEX (its stderr appended to $ERR)
#
# and, for tests/run, the counting of PASS/FAIL/SKIP lines per group, each
# group's time, and the groups run in the background.

check() {
    local name=$1 opts=()
    shift
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    if [ ! -x "$1" ]; then
        echo "FAIL $name: $1 is not built"
        return
    fi
    "$@" --csv 2>>"$ERR" | python3 tests/csvcheck.py "$name" "${opts[@]}"
}

made() {
    local name=$1 log=$2
    shift 2
    if make -j"$(nproc 2>/dev/null || echo 2)" --no-print-directory "$@" >"$log" 2>&1; then
        echo "PASS $name"
    else
        echo "FAIL $name: $(grep -m3 -E 'error:|\*\*\*' "$log" | tr '\n' ' ')"
        return 1
    fi
}

expect() {
    local name=$1 want=$2 lines=$3 regex=$4 out rc n bad
    shift 5
    out=$("$@" 2>>"$ERR")
    rc=$?
    n=$(printf '%s' "$out" | grep -c '')
    bad=$(printf '%s\n' "$out" | grep -vE "$regex" | head -1)
    if [ "$rc" = "$want" ] && [ "$n" = "$lines" ] && [ -z "$bad" ]; then
        echo "PASS $name ($(printf '%s\n' "$out" | tail -1 | cut -d'|' -f2- | cut -c1-200))"
    else
        echo "FAIL $name: exit $rc (expected $want), $n lines (expected $lines)${bad:+, '$bad'}; $(tail -1 "$ERR")"
    fi
}

# ---- tests/run's counting -----------------------------------------------------
# (It sets passed, failed, skipped, VERBOSE, LOGS and MAKE before it counts.)
# Counts per group, printed when the tier ends; a group is the test name's
# first part ("cli/step03 --n 0" -> cli), or its first two in the gpu tier
# ("gpu/sizes/step03/float" -> gpu/sizes).
declare -A g_pass=() g_fail=() g_skip=()
g_order=()
group_of() {
    local g=${1%%[ :]*}
    case "$g" in
    gpu/*/*) g=${g#gpu/}; g=gpu/${g%%/*} ;;
    gpu/*) ;;
    */*) g=${g%%/*} ;;
    esac
    echo "$g"
}
count() {     # count KIND NAME
    local g
    g=$(group_of "$2")
    if [ -z "${g_pass[$g]+x}" ]; then
        g_pass[$g]=0 g_fail[$g]=0 g_skip[$g]=0
        g_order+=("$g")
    fi
    case $1 in
    pass) g_pass[$g]=$((g_pass[$g] + 1)) ;;
    fail) g_fail[$g]=$((g_fail[$g] + 1)) ;;
    skip) g_skip[$g]=$((g_skip[$g] + 1)) ;;
    esac
}
pass() { passed=$((passed + 1)); count pass "$1"; [ "$VERBOSE" = 1 ] && echo "PASS $1"; return 0; }
# Every FAIL says why: one that would not is a fault of the test, and says that.
fail() {
    local why=${2:-}
    [ -n "${why//[[:space:]]/}" ] || why="(the test gave no reason, which is a fault of the test: see its log in $LOGS)"
    failed=$((failed + 1)); count fail "$1"; echo "FAIL $1: $why"
}
skip() { skipped=$((skipped + 1)); count skip "$1"; echo "SKIP $1: $2"; }
skipline() { skipped=$((skipped + 1)); count skip "$1"; echo "SKIP $1"; }

# How long each group takes: clock NAME starts NAME's clock and stops the
# one before (the time between two calls is the earlier group's).
# A GPU group's line is printed as soon as it ends (they take longest, and a
# run stopped half-way still shows what the finished ones found).
declare -A g_secs=() g_shown=()
g_clock= g_clock_t0=
clock() {
    local t
    t=$(date +%s.%N)
    [ -n "$g_clock" ] && g_secs[$g_clock]=$(awk -v a="${g_secs[$g_clock]:-0}" -v b="$t" -v c="$g_clock_t0" \
                                              'BEGIN { printf "%.1f", a + b - c }')
    case "$g_clock" in gpu/*) group_line "$g_clock"; g_shown[$g_clock]=1 ;; esac
    g_clock=$1 g_clock_t0=$t
}
group_line() {     # group_line GROUP: its counts and time, if it ran anything
    local g=$1
    [ -n "${g_pass[$g]+x}" ] || return 0
    [ $((g_pass[$g] + g_fail[$g])) -eq 0 ] && return 0
    printf '  %-24s %4d passed, %d failed, %d skipped  (%s s)\n' "$g" "${g_pass[$g]}" "${g_fail[$g]}" \
        "${g_skip[$g]}" "${g_secs[$g]:-0.0}"
}

# The groups of the tier that just ran, one line each, with their time. A
# group that only skipped has said so in its SKIP line already.
end_tier() {
    local g
    clock ""
    for g in "${g_order[@]}"; do
        [ -n "${g_shown[$g]+x}" ] || group_line "$g"
    done
    g_order=()
}
# tier NAME GROUP...: a tier's heading, if any of its groups is to run.
tier() {
    local name=$1 g
    shift
    [ ${#g_order[@]} -gt 0 ] && end_tier
    for g in "$@"; do
        wanted "$name" "$g" && { echo "== $name"; return; }
    done
}

# Counts the PASS/FAIL/SKIP lines another test program prints.
collect() {
    local line
    while IFS= read -r line; do
        case "$line" in
        "PASS "*) pass "${line#PASS }" ;;
        "FAIL "*)
            line=${line#FAIL }
            line=${line%"${line##*[![:space:]]}"}       # (trailing blanks)
            case "$line" in
            *:) fail "${line%:}" "" ;;                    # a name and no reason
            *) failed=$((failed + 1)); count fail "$line"; echo "FAIL $line" ;;
            esac ;;
        "SKIP "*) skipline "${line#SKIP }" ;;
        esac
    done
}

# build NAME TARGET...: runs make, one check.
build() {
    local name=$1
    shift
    if $MAKE "$@" >"$LOGS/build_$name.log" 2>&1; then
        pass "build/$name"
    else
        fail "build/$name" "$( (grep -m3 -E '(^|[^W])[Ee]rror' "$LOGS/build_$name.log" || tail -2 "$LOGS/build_$name.log") |
                               tr '\n' ' ')"
    fi
}

# The slowest groups wait mostly on one-threaded tools (clang-tidy, gnuplot,
# Pandoc): tests/run starts them at once, side by side, each into its own
# file, and counts their lines in their place, as if they had run there;
# each group's time is its own run's.
declare -A bg_pid=()
background() {     # background GROUP COMMAND...: run it now, its lines kept for later
    local t0 g=$1
    shift
    t0=$(date +%s.%N)
    ( ( "$@" ) >"$LOGS/group_$g.out" 2>&1     # (its own subshell: a sourced group sets what it likes)
      awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }' >"$LOGS/group_$g.secs" ) &
    bg_pid[$g]=$!
}
collected() {      # collected GROUP [NAME]: wait for it, count its lines, keep its time
    wait "${bg_pid[$1]}"
    collect <"$LOGS/group_$1.out"
    g_secs[${2:-$1}]=$(cat "$LOGS/group_$1.secs")
    g_clock=
    case "${2:-}" in gpu/*) group_line "$2"; g_shown[$2]=1 ;; esac
}
# run_group HOW: a group of the table, `source FILE` or a command whose lines
# are counted. In the background (a subshell) it prints every line, PASS
# included, for collected to count in its place.
run_group() {
    local how
    read -r -a how <<<"$1"
    [ "$BASHPID" != "$$" ] && VERBOSE=1
    if [ "${how[0]}" = source ]; then
        . "${how[1]}"
    else
        "${how[@]}" | collect
    fi
}
