#!/usr/bin/env bash
# bench.sh: the comparison's scripts, without a GPU: tables, plots and the
# README table are regenerated from the committed results and must agree with
# what is committed (so must harris.md and clusters.md); the accuracy plot is drawn from every accuracy.csv (and
# the docs fixture's); the programs of `make claims` compile; and this
# toolkit's headers are as claim C says (bench/claims.py --api). Prints
# PASS/FAIL/SKIP lines for tests/run.
set -u
cd "$(dirname "$0")/.."
# Every step the Makefile lists must have its rows, and CUB.
programs="$(make -s --no-print-directory print-steps | tr ' ' '\n' | sed 's|^steps/||; s|\.cu$||') cub"
dirs=$(ls -d results/*/ 2>/dev/null | while read -r d; do [ -f "$d/compare.csv" ] && echo "${d%/}"; done)
if [ -z "$dirs" ]; then
    echo "FAIL bench/results: no results/<gpu>/compare.csv committed (run make compare on a GPU)"
    exit 0
fi
for d in $dirs; do
    gpu=$(basename "$d")
    tmp=$(mktemp -d)
    cp "$d"/*.csv "$tmp"/ 2>/dev/null
    [ -f "$d/notes.txt" ] && cp "$d/notes.txt" "$tmp/"
    if out=$(python3 bench/compare.py --from "$tmp" 2>&1); then
        missing=""
        for p in $programs; do
            echo "$out" | grep -q "^$p " || missing="$missing $p"
        done
        if [ -z "$missing" ]; then echo "PASS bench/$gpu/tables from compare.csv"
        else echo "FAIL bench/$gpu/tables: no row for$missing"; fi
        if cmp -s "$tmp/compare.md" "$d/compare.md"; then echo "PASS bench/$gpu/compare.md is what the CSVs give"
        else echo "FAIL bench/$gpu/compare.md differs from what the CSVs give (run python3 bench/compare.py --from $d)"; fi
        if ! command -v gnuplot >/dev/null 2>&1; then
            echo "SKIP bench/$gpu/plots: gnuplot is not installed"
        elif python3 - "$tmp" <<'PY'
import sys, xml.etree.ElementTree as ET
for name in ("bandwidth.svg", "bars.svg"):
    root = ET.parse(f"{sys.argv[1]}/{name}").getroot()
    text = "".join(root.itertext())
    assert root.tag.endswith("svg") and "CUB" in text, name
    if name == "bandwidth.svg":
        assert "07 cooperative" in text and "nominal peak" in text, name
PY
        then echo "PASS bench/$gpu/plots drawn as SVG with every series"
        else echo "FAIL bench/$gpu/plots: gnuplot output is not the expected SVG"; fi
    else
        echo "FAIL bench/$gpu/tables: $(echo "$out" | tail -1)"
    fi
    rm -rf "$tmp"
done
# Harris's seven kernels: harris.md is what harris.csv gives, for every GPU
# and for the docs tests' fixture.
for d in results/*/ tests/fixtures/results/*/; do
    [ -f "$d/harris.csv" ] || continue
    name=${d%/}
    tmp=$(mktemp -d)
    cp "$d/harris.csv" "$tmp/"
    if ! python3 bench/harris.py --from "$tmp" >/dev/null 2>"$tmp/err"; then
        echo "FAIL bench/$name/harris.md: $(tail -1 "$tmp/err")"
    elif cmp -s "$tmp/harris.md" "$d/harris.md"; then
        echo "PASS bench/$name/harris.md is what harris.csv gives"
    else
        echo "FAIL bench/$name/harris.md differs from what harris.csv gives (run python3 bench/harris.py --from $name)"
    fi
    rm -rf "$tmp"
done
# The small sizes (make clusters): clusters.md is what its CSVs give, for
# every GPU and for the docs tests' fixture.
for d in results/*/ tests/fixtures/results/*/; do
    [ -f "$d/clusters.csv" ] || continue
    name=${d%/}
    tmp=$(mktemp -d)
    for f in clusters.csv latency.csv clusters_floor.csv; do [ -f "$d/$f" ] && cp "$d/$f" "$tmp/"; done
    if ! python3 bench/clusters.py --from "$tmp" >/dev/null 2>"$tmp/err"; then
        echo "FAIL bench/$name/clusters.md: $(tail -1 "$tmp/err")"
    elif cmp -s "$tmp/clusters.md" "$d/clusters.md"; then
        echo "PASS bench/$name/clusters.md is what its CSVs give"
    else
        echo "FAIL bench/$name/clusters.md differs from what its CSVs give (run python3 bench/clusters.py --from $name)"
    fi
    rm -rf "$tmp"
done
if out=$(python3 bench/readme_table.py --check 2>&1); then echo "PASS bench/README step table matches results/ and steps/"
else echo "FAIL bench/README step table: $(echo "$out" | tail -1)"; fi

# The accuracy plot, from every accuracy.csv there is (the fixture's too).
for d in $(ls -d results/*/ tests/fixtures/results/*/ 2>/dev/null); do
    [ -f "$d/accuracy.csv" ] || continue
    name=${d%/}; name=${name#results/}; name=${name/tests\/fixtures\/results/fixture}
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "SKIP bench/$name/accuracy.svg: gnuplot is not installed"
        continue
    fi
    tmp=$(mktemp -d)
    cp "$d/accuracy.csv" "$tmp/"
    if out=$(python3 bench/accuracy.py --from "$tmp" 2>&1) && python3 - "$tmp" "$d/accuracy.csv" <<'PY'
import csv, sys, xml.etree.ElementTree as ET
text = "".join(ET.parse(f"{sys.argv[1]}/accuracy.svg").getroot().itertext())
steps = {r["step"] for r in csv.DictReader(open(sys.argv[2]))}
assert "half an ulp" in text and "07 cooperative" in text, "series"
assert len(steps) >= 3, "programs"
PY
    then echo "PASS bench/$name/accuracy.svg drawn from accuracy.csv"
    else echo "FAIL bench/$name/accuracy.svg: $(echo "$out" | tail -1)"; fi
    rm -rf "$tmp"
done

# Claim C, asked of this toolkit: the multi-device runtime API and
# this_multi_grid() are gone, a grid.sync() kernel compiles without -rdc.
if out=$(python3 bench/claims.py --api 2>&1); then
    echo "PASS bench/claims-api: $(echo "$out" | sed -n 's/^toolkit: \([^ ]*\).*/CUDA \1/p'), $(echo "$out" | grep -c 'does not compile') multi-device names gone, as claim C says"
else
    echo "FAIL bench/claims-api: $(echo "$out" | tr '\n' ';' | cut -c1-300)"
fi

# Every program of make claims compiles (one architecture, no link).
tmp=$(mktemp -d)
make -s --no-print-directory print-claims-builds |
xargs -P "$(nproc 2>/dev/null || echo 2)" -L 1 sh -c '
    name=$1; shift
    if "$@" -arch=sm_90 -o "'"$tmp"'/$name.o" >"'"$tmp"'/$name.log" 2>&1; then
        echo "PASS bench/claims-programs/$name compiles"
    else
        echo "FAIL bench/claims-programs/$name: $(grep -m2 -E "error|warning" "'"$tmp"'/$name.log" | tr "\n" " ")"
    fi' _
rm -rf "$tmp"
