#!/usr/bin/env bash
# tests/clusters.sh: the programs of the appendix on small sizes on a GPU: the
# flag-word sum (tests/flag_sum.sh, first: it runs on any GPU) and the cluster
# programs (lab/small-sizes/clusters.cu). tests/run calls it in the gpu tier, only when a
# GPU is usable; it prints one line per check, starting with PASS, FAIL or SKIP,
# for tests/run to count, and last a summary line with the counts and the time.
#
#   build        make clusters-programs, and a build for compute capability 7.5 only
#   flag_sum     tests/flag_sum.sh
#   older-gpu    that build refuses on this GPU: exit 3, one line (on a GPU before
#                sm_90 every cluster build must, and nothing else of them is tested)
#   cli          --help; every usage error: exit 2, one line and the --help hint
#   runs         tests/clusters_runs.sh: every size, cluster size, block and grid,
#                2^31+5, the same bits across ways, determinism, compute-sanitizer
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh

LOGS=build/logs
mkdir -p "$LOGS"

# Every check below, then one line with the counts and the time (not a check:
# tests/run counts the PASS, FAIL and SKIP lines only).
if [ -z "${CLUSTERS_CHECKS:-}" ]; then
    t0=$(date +%s)
    CLUSTERS_CHECKS=1 bash tests/clusters.sh | tee "$LOGS/clusters_checks.txt"
    printf 'clusters: %d passed, %d failed, %d skipped in %d s\n' "$(grep -c '^PASS ' "$LOGS/clusters_checks.txt")" \
        "$(grep -c '^FAIL ' "$LOGS/clusters_checks.txt")" "$(grep -c '^SKIP ' "$LOGS/clusters_checks.txt")" \
        $(($(date +%s) - t0))
    exit 0
fi
ERR=$LOGS/clusters.err
: >"$ERR"
F=build/clusters

made clusters/build "$LOGS/build_clusters.log" clusters-programs build/clusters/clusters_sm75 || exit 0
bash tests/flag_sum.sh

# refuses NAME REGEX PROGRAM ARGS...: exit 3 and one line on stderr, matching REGEX.
refuses() {
    local name=$1 regex=$2
    shift 2
    local err rc lines
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s' "$err" | grep -c '')
    if [ $rc = 3 ] && [ "$lines" = 1 ] && printf '%s' "$err" | grep -Eq "$regex"; then
        echo "PASS $name"
    else
        echo "FAIL $name: exit $rc, $lines lines: $err"
    fi
}

# ---- older GPUs -------------------------------------------------------------------
refuses "clusters/older-gpu: the compute_75 build refuses, one line, exit 3" \
    "compute capability 9\.0 or newer" $F/clusters_sm75 --check-only --n 1000
out=$($F/clusters --check-only --n 1 2>&1 >/dev/null)
if [ $? = 3 ] && printf '%s' "$out" | grep -q "compute capability 9.0"; then
    refuses "clusters/older-gpu: this GPU is older than sm_90; the program refuses" \
        "compute capability 9\.0 or newer" $F/clusters --check-only --n 1
    echo "SKIP clusters/gpu: this GPU has no thread block clusters ($out)"
    exit 0
fi

# ---- the command line ------------------------------------------------------------------
if $F/clusters --help 2>&1 | grep -q -- "--cluster K"; then echo "PASS clusters/cli/--help names --cluster"
else echo "FAIL clusters/cli/--help: no --cluster in it"; fi
while IFS='|' read -r args regex; do
    err=$(eval "$F/clusters $args" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s' "$err" | grep -c '')
    if [ $rc = 2 ] && [ "$lines" = 2 ] && printf '%s' "$err" | grep -Eq "$regex" &&
       printf '%s' "$err" | tail -1 | grep -q -- "--help"; then
        echo "PASS clusters/cli/$args -> exit 2"
    else
        echo "FAIL clusters/cli/$args: exit $rc, $lines lines: $err"
    fi
done <<'EOF'
--cluster 3|not a power of two
--cluster 0|too few
--cluster 32|too large
--cluster abc|not a whole number
--cluster|needs a value
--cluster=|needs a value
--cluster 4 --cluster 4|more than once
--cluster 8 --grid 12|not a multiple of --cluster 8
--n 1000 --grid 10000 --cluster 1|room for the totals of 8192
--block 48|power of two from 32 to 1024
EOF

# ---- the runs ------------------------------------------------------------------------------
bash tests/clusters_runs.sh "$ERR"
