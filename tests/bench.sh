#!/usr/bin/env bash
# bench.sh: the comparison's scripts, without a GPU: tables, plots and the
# README table are regenerated from the committed results and must agree with
# what is committed (so must harris.md and clusters.md); every committed plot
# keeps at least half its height for the plot itself (tests/plotcheck.py); the
# accuracy plots are drawn from every accuracy.csv (the docs fixture's, and
# one from before the inputs, too), and its errors are as defined; the
# programs of `make claims` compile and this toolkit's headers are as claim C
# says (lab/claims/claims.py --api) (both with TEST_FULL=1, make test-full);
# no script imports one that imports it back, nor defines a helper of
# bench/lib.py again.
# Prints PASS/FAIL/SKIP lines for tests/run.
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
            echo "SKIP bench/$gpu/plots: gnuplot is not installed (apt-get install gnuplot-nox)"
        else
            if why=$(python3 - "$tmp" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
for name in ("bandwidth.svg", "bars.svg"):
    root = ET.parse(f"{sys.argv[1]}/{name}").getroot()
    text = "".join(root.itertext())
    assert root.tag.endswith("svg") and "CUB" in text, f"{name}: not an SVG, or no CUB in it"
    if name == "bandwidth.svg":
        assert "07 cooperative" in text and "nominal peak" in text, f"{name}: no 07 cooperative or nominal peak"
PY
            ); then
                echo "PASS bench/$gpu/plots drawn as SVG with every series"
            else
                echo "FAIL bench/$gpu/plots: gnuplot's output is not the expected SVG: $(echo "$why" | tail -1)"
            fi
            # The key must leave the plot at least half the figure's height,
            # and every series have its own colour.
            for check in "" --series; do
                if out=$(python3 tests/plotcheck.py $check "$tmp/bandwidth.svg" "$tmp/bars.svg" 2>&1); then
                    echo "PASS bench/$gpu/plots${check:+ (series)}: $(echo "$out" | sed 's|^.*/||' | tr '\n' ' ')"
                else
                    echo "FAIL bench/$gpu/plots${check:+ (series)}: $(echo "$out" | grep -v ': plotting area .* ok$\|each its own colour$' | sed "s|$tmp/||" | tr '\n' ' ')"
                fi
            done
        fi
    else
        echo "FAIL bench/$gpu/tables: $(echo "$out" | tail -1)"
    fi
    rm -rf "$tmp"
done
# The committed plots, as the README and the chapters show them: the
# plotting area at least half of each SVG's height, and every series its own
# colour. The checks must catch a figure whose key leaves the plot a sixth of
# it (one column of 15 titles), and two series in one colour or in two
# colours too close to tell apart.
for f in results/*/*.svg; do
    for check in "" --series; do
        if out=$(python3 tests/plotcheck.py $check "$f"); then echo "PASS bench/$f${check:+ (series)}: ${out#*: }"
        else echo "FAIL bench/$f${check:+ (series)}: ${out#*: } (run make plots)"; fi
    done
done
tmp=$(mktemp -d)
printf '<svg viewBox="0 0 820 640"><path d="M114.67,76.51 L114.67,175.90 L784.32,175.90 L784.32,76.51 L114.67,76.51 Z"/></svg>\n' >"$tmp/squashed.svg"
if python3 tests/plotcheck.py "$tmp/squashed.svg" >/dev/null; then
    echo "FAIL bench/self-test/plot-height: a plot 99 px high in a 640 px figure was not caught"
else
    echo "PASS bench/self-test/plot-height"
fi
# Two series in one colour, and two in colours 8.4 apart (a plot once had
# both): caught.
series() {     # series TITLE COLOUR MARKER: a titled plot as gnuplot's SVG terminal writes it
    printf '<g id="gnuplot_plot_%s" ><title>%s</title>\n<path stroke=%s d=%sM1,1 L2,2%s/>%s</g>\n' \
        "$RANDOM" "$1" "'$2'" "'" "'" "${3:+<use xlink:href='#gpPt$3' color='$2'/>}"
}
{ echo '<svg>'; series "00 naive" red 6; series torch.sum "rgb(255,   0,   0)" 6; echo '</svg>'; } >"$tmp/same.svg"
{ echo '<svg>'; series "08 fixed order" "#D6D645" ""; series "cub gpu to gpu" "#ABD600" ""; echo '</svg>'; } >"$tmp/close.svg"
out=$(python3 tests/plotcheck.py --series "$tmp/same.svg" "$tmp/close.svg")
if [ $? = 1 ] && echo "$out" | grep -q "share the colour and marker #ff0000" && echo "$out" | grep -q "are 8.4 apart"; then
    echo "PASS bench/self-test/plot-series"
else
    echo "FAIL bench/self-test/plot-series: two reds and two yellow-greens were not both caught: $(echo "$out" | tr '\n' ' ')"
fi
# The colours bench/plots.py gives (every program the committed results
# name, the lines without markers, the spares): each its own, all far apart.
if out=$(python3 - 2>&1 <<'PY'
import csv, glob, itertools, sys
sys.path.insert(0, "bench")
sys.path.insert(0, "tests")
from plots import LINES, SPARE, STYLE
from plotcheck import MIN_DELTA_E, delta_e
names = {r["step"] for f in glob.glob("results/*/compare.csv") + glob.glob("results/*/accuracy.csv")
         for r in csv.DictReader(open(f, newline=""))}
missing = sorted(names - set(STYLE))
assert not missing, f"bench/plots.py's STYLE has no colour for {', '.join(missing)}"
colours = [c for c, _ in STYLE.values()] + list(LINES.values()) + SPARE
assert len(set(colours)) == len(colours), "a colour given twice"
close = min(itertools.combinations(colours, 2), key=lambda p: delta_e(*p))
assert delta_e(*close) >= MIN_DELTA_E, f"{close[0]} and {close[1]} are {delta_e(*close):.1f} apart"
print(f"{len(colours)} colours, the closest two {delta_e(*close):.1f} apart (CIEDE2000)")
PY
); then echo "PASS bench/plot-colours: $out"
else echo "FAIL bench/plot-colours: $(echo "$out" | tail -1)"; fi
rm -rf "$tmp"

# Harris's seven kernels: harris.md, harris_summary.csv and harris_racecheck.md are what
# harris.csv (and harris_racecheck.txt) give, for every GPU and for the docs tests' fixture;
# lab/harris/harris_g80.md is what harris_g80.csv gives; a planted change is caught.
harris_check() {    # DIR NAME: regenerate DIR's files in a copy, compare with NAME's
    local d=$1 name=$2 tmp
    tmp=$(mktemp -d)
    for f in harris.csv compare.csv harris_racecheck.txt; do [ -f "$d/$f" ] && cp "$d/$f" "$tmp/"; done
    if ! python3 lab/harris/harris.py --from "$tmp" --g80 "$tmp/g80.md" >/dev/null 2>"$tmp/err"; then
        echo "FAIL bench/$name/harris.md: $(tail -1 "$tmp/err")"
    else
        for f in harris.md harris_summary.csv harris_racecheck.md; do
            [ -f "$tmp/$f" ] || [ -f "$name/$f" ] || continue
            if sed "s|[^\`]*/harris_racecheck.txt|$name/harris_racecheck.txt|" "$tmp/$f" | cmp -s - "$name/$f"; then
                echo "PASS bench/$name/$f is what harris.csv gives"
            else echo "FAIL bench/$name/$f differs from what harris.csv gives (run python3 lab/harris/harris.py --from $name)"; fi
        done
        [ "$name" = "${d%/}" ] && cp "$tmp/g80.md" build/harris_g80.md
    fi
    rm -rf "$tmp"
}
mkdir -p build
for d in results/*/ tests/fixtures/results/*/; do
    [ -f "$d/harris.csv" ] && harris_check "$d" "${d%/}"
done
if cmp -s build/harris_g80.md lab/harris/harris_g80.md; then echo "PASS bench/lab/harris/harris_g80.md is what harris_g80.csv gives"
else echo "FAIL bench/lab/harris/harris_g80.md differs from what harris_g80.csv gives (run python3 lab/harris/harris.py --from results/<gpu>)"; fi
planted=$(mktemp -d)
cp tests/fixtures/results/example-gpu/harris* "$planted/"
python3 - "$planted/harris.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows[0]["median_us"] = str(2 * float(rows[0]["median_us"]))
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader(); w.writerows(rows)
PY
sed -i '0,/RACECHECK SUMMARY: [0-9]*/s//RACECHECK SUMMARY: 99/' "$planted/harris_racecheck.txt"
out=$(harris_check "$planted" tests/fixtures/results/example-gpu)
if [ "$(echo "$out" | grep -c "^FAIL.*differs")" -ge 2 ]; then echo "PASS bench/harris-planted: a changed harris.csv or harris_racecheck.txt is caught"
else echo "FAIL bench/harris-planted: a changed harris.csv or harris_racecheck.txt went unseen: $out"; fi
rm -rf "$planted"
# Step 10's rounds (lab/exact-tail/exact_tables.py): each GPU's exact_tail.md and
# exact_tail_summary.csv, and RESULTS/exact_rounds.md, are what the exact_tail.csv files give,
# for results/ and the docs tests' fixture; a planted change is caught.
gen_check() {    # SCRIPT ROOT CSV FILE...: the script run on a copy of ROOT's CSVs gives ROOT's FILEs
    local script=$1 root=$2 csv=$3 tmp here=$PWD f out=""
    shift 3
    tmp=$(mktemp -d)
    for f in "$root"/*/"$csv"; do mkdir -p "$tmp/$(dirname "$f")" && cp "$(dirname "$f")"/*.csv "$tmp/$(dirname "$f")/"; done
    [ -n "${PLANT:-}" ] && python3 - "$tmp/$(ls -d "$root"/*/"$csv" | head -1)" "$PLANT" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:        # PLANT=COLUMN: every number in it half as large again
    r[sys.argv[2]] = str(1.5 * float(r[sys.argv[2]])) if r[sys.argv[2]] not in ("", "inf", "-inf") else r[sys.argv[2]]
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader(); w.writerows(rows)
PY
    if ! (cd "$tmp" && python3 "$here/$script" --results "$root" >/dev/null 2>"$tmp/err"); then
        echo "FAIL bench/$root/$script: $(tail -1 "$tmp/err")"
    else
        for f in "$@"; do
            for g in "$root"/$f; do
                if cmp -s "$tmp/$g" "$g"; then echo "PASS bench/$g is what $csv gives"
                else echo "FAIL bench/$g differs from what $csv gives (run python3 $script --results $root)"; fi
            done
        done
    fi
    rm -rf "$tmp"
}
for root in results tests/fixtures/results; do
    gen_check lab/exact-tail/exact_tables.py $root exact_tail.csv '*/exact_tail.md' '*/exact_tail_summary.csv' exact_rounds.md
done
# The appendix on small sizes (lab/small-sizes/clusters_tables.py): its tables and
# clusters_summary.csv are what clusters.csv, clusters_floor.csv and latency.csv give.
for root in results tests/fixtures/results; do
    gen_check lab/small-sizes/clusters_tables.py $root clusters.csv '*/clusters_*.md' '*/clusters_summary.csv'
done
# The tables of make compare's CSVs that the chapters include (bench/compare_tables.py).
for root in results tests/fixtures/results; do
    gen_check bench/compare_tables.py $root compare.csv '*/grid_*.md' '*/ceiling.md' '*/determinism.md' '*/report.md' '*/peak.csv' '*/compare_summary.csv'
done
if [ "$(PLANT=median_us gen_check bench/compare_tables.py tests/fixtures/results compare.csv \
        '*/grid_median.md' | grep -c '^FAIL.*differs')" = 1 ]; then
    echo "PASS bench/compare-tables-planted: a changed compare.csv is caught"
else echo "FAIL bench/compare-tables-planted: a changed compare.csv went unseen"; fi
# The comparison chapter's tables of accuracy (bench/accuracy_tables.py): what accuracy.csv gives.
for root in results tests/fixtures/results; do
    gen_check bench/accuracy_tables.py $root accuracy.csv '*/accuracy_*.md'
done
if [ "$(PLANT=ulp_error gen_check bench/accuracy_tables.py tests/fixtures/results accuracy.csv \
        '*/accuracy_uniform.md' | grep -c '^FAIL.*differs')" = 1 ]; then
    echo "PASS bench/accuracy-tables-planted: a changed accuracy.csv is caught"
else echo "FAIL bench/accuracy-tables-planted: a changed accuracy.csv went unseen"; fi
if [ "$(PLANT=median_us gen_check lab/small-sizes/clusters_tables.py tests/fixtures/results clusters.csv \
        '*/clusters_meet.md' '*/clusters_summary.csv' | grep -c '^FAIL.*differs')" = 2 ]; then
    echo "PASS bench/clusters-tables-planted: a changed clusters.csv is caught"
else echo "FAIL bench/clusters-tables-planted: a changed clusters.csv went unseen"; fi
if [ "$(PLANT=median_us gen_check lab/exact-tail/exact_tables.py tests/fixtures/results exact_tail.csv '*/exact_tail.md' \
        '*/exact_tail_summary.csv' exact_rounds.md | grep -c '^FAIL.*differs')" = 3 ]; then
    echo "PASS bench/exact-tables-planted: a changed exact_tail.csv is caught in each file"
else echo "FAIL bench/exact-tables-planted: a changed exact_tail.csv went unseen"; fi
# A sum for every row (make compare-rows): rows.md is what rows.csv gives,
# for every GPU and for the docs tests' fixture (the caption names the CSV).
for d in results/*/ tests/fixtures/results/*/; do
    [ -f "$d/rows.csv" ] && [ -f "$d/rows.md" ] || continue
    name=${d%/}
    tmp=$(mktemp -d)
    for f in rows.csv ceiling.csv; do [ -f "$d/$f" ] && cp "$d/$f" "$tmp/"; done
    if ! python3 bench/compare_rows.py --from "$tmp" >/dev/null 2>"$tmp/err"; then
        echo "FAIL bench/$name/rows.md: $(tail -1 "$tmp/err")"
    elif sed "s|[^\`]*/rows.csv|$name/rows.csv|" "$tmp/rows.md" | cmp -s - "$d/rows.md"; then
        echo "PASS bench/$name/rows.md is what rows.csv gives"
    else
        echo "FAIL bench/$name/rows.md differs from what rows.csv gives (run python3 bench/compare_rows.py --from $name)"
    fi
    rm -rf "$tmp"
done
# Step 12 beside CUB, torch and CuPy (make compare-types): types.md is what types.csv gives, for
# every GPU; and the tables and plots of a small types.csv made here, checked cell by cell.
for d in results/*/; do
    [ -f "$d/types.csv" ] && [ -f "$d/types.md" ] || continue
    tmp=$(mktemp -d)
    for f in types.csv types_accumulator.csv ceiling.csv floor.csv; do [ -f "$d/$f" ] && cp "$d/$f" "$tmp/"; done
    if ! python3 bench/compare_types.py --from "$tmp" >/dev/null 2>"$tmp/err"; then
        echo "FAIL bench/${d%/}/types.md: $(tail -1 "$tmp/err")"
    elif sed "s|[^\`]*/types.csv|${d%/}/types.csv|" "$tmp/types.md" | cmp -s - "$d/types.md"; then
        echo "PASS bench/${d%/}/types.md is what types.csv gives"
    else echo "FAIL bench/${d%/}/types.md differs from what types.csv gives (run python3 bench/compare_types.py --from ${d%/})"; fi
    rm -rf "$tmp"
done
tmp=$(mktemp -d)
python3 - "$tmp" <<'PY'
import csv, sys
d = sys.argv[1]
rows = []     # (type, op, program, n, median_us, result, index, error_ulp, agrees): bf16 sum, int32 argmax
for p, us, err in (("step12", 125, "0"), ("cub", 130, "1.5"), ("torch", 140, "12")):
    for n in (1 << 10, 1 << 28):
        rows.append(("bf16", "sum", p, n, us if n > 1024 else 5, "1.5", "-", err, "-"))
for p in ("step12", "cub", "torch", "cupy"):
    for n in (1 << 10, 1 << 28):
        idx = "9" if p == "torch" and n > 1024 else "7"
        rows.append(("int32", "argmax", p, n, 250 if n > 1024 else 4, "5", idx, "-", "yes" if idx == "7" else "no"))
size = {"bf16": 2, "int32": 4}
fields = "program type op device n bytes median_us gbps result index reference reference_index error_ulp agrees status"
w = csv.writer(open(f"{d}/types.csv", "w", newline=""), lineterminator="\n")
w.writerow(fields.split())
for t, op, p, n, us, res, idx, err, agrees in rows:
    b = n * size[t]
    w.writerow([p, t, op, "NVIDIA H200", n, b, f"{us:.3f}", f"{b / us / 1e3:.1f}", res, idx, "1.5",
                "7" if op == "argmax" else "-", err, agrees, "OK" if p == "step12" else "-"])
w = csv.writer(open(f"{d}/types_accumulator.csv", "w", newline=""), lineterminator="\n")
w.writerow("program type n result exact float_sequential accumulator".split())
for p, r, verdict in (("step12", 1048448, "float: s lost"), ("cub", 1048448, "float: s lost"),
                      ("torch", 1048575, "exact: wider than float")):
    w.writerow([p, "bf16", 1048577, r, 1048575, 0, verdict])
open(f"{d}/ceiling.csv", "w").write("kind,device,bytes,median_us,gbps\nread,NVIDIA H200,1073741824,233.472,4600.0\n")
open(f"{d}/floor.csv", "w").write("kind,device,bytes,median_us,gbps\nfloor,NVIDIA H200,4096,3.280,1.2\n"
                                  "floor_warm,NVIDIA H200,536870912,100.0,5368.7\nfloor,NVIDIA H200,536870912,120.0,4474.0\n")
PY
if out=$(python3 bench/compare_types.py --from "$tmp" 2>&1); then
    missing=""
    while IFS= read -r want; do
        grep -qxF -- "$want" "$tmp/types.md" || missing="$missing [$want]"
    done <<'EOF'
| 2^28 | 125.0 µs · 4295 | 130.0 µs · 4130 | 140.0 µs · 3835 | – | 1.04× | 93% | 96% |
| 2^10 | 5.00 µs · 0.40 | 5.00 µs · 0.40 | 5.00 µs · 0.40 | – | 1.00× | 0% | – |
| 2^10 | 4.00 µs · 1.00 | 4.00 µs · 1.00 | 4.00 µs · 1.00 | 4.00 µs · 1.00 | 1.00× | 0% | 82% |
| sum bf16 | 0 ulp | ≤ 1.5 ulp | ≤ 12 ulp | – |
| argmax int32 | same index, every n | same index, every n | index differs at 2^28 | same index, every n |
| bf16 | 1048575 | float: s lost (1048448) | float: s lost (1048448) | exact: wider than float (1048575) | – |
EOF
    if [ -z "$missing" ]; then echo "PASS bench/compare-types/tables: a small types.csv gives the expected cells"
    else echo "FAIL bench/compare-types/tables: types.md lacks$missing"; fi
    if ! command -v gnuplot >/dev/null 2>&1; then
        if echo "$out" | grep -q "^SKIP compare-types: gnuplot is not installed (apt-get install gnuplot-nox)"; then
            echo "SKIP bench/compare-types/plots: gnuplot is not installed (apt-get install gnuplot-nox)"
        else echo "FAIL bench/compare-types/plots: no SKIP line naming gnuplot-nox without gnuplot"; fi
    elif check=$(python3 tests/plotcheck.py "$tmp/types-sum.svg" "$tmp/types-argmax.svg" 2>&1) &&
         series=$(python3 tests/plotcheck.py --series "$tmp/types-sum.svg" "$tmp/types-argmax.svg" 2>&1) &&
         [ ! -e "$tmp/types-max.svg" ]; then
        echo "PASS bench/compare-types/plots: one per operator measured, $(echo "$series" | sed 's|^.*/||' | tr '\n' ' ')"
    else echo "FAIL bench/compare-types/plots: $(printf '%s %s' "$check" "${series:-}" | sed "s|$tmp/||g" | tr '\n' ' ')"; fi
else
    echo "FAIL bench/compare-types/tables: $(echo "$out" | tail -1)"
fi
rm -rf "$tmp"
if out=$(python3 bench/compare_rows.py --only no_such_program 2>&1); then
    echo "FAIL bench/compare-rows/only-unknown: accepted an unknown program name"
elif echo "$out" | grep -q "no program named no_such_program"; then
    echo "PASS bench/compare-rows/only-unknown: an unknown --only name is refused, with the names it knows"
else
    echo "FAIL bench/compare-rows/only-unknown: $(echo "$out" | tail -1)"
fi
# --only with a program that is not built: its rows in rows.csv stay, the
# others named are replaced (a fake step 11 in a scratch tree, no GPU).
tmp=$(mktemp -d)
if out=$(python3 - "$tmp" 2>&1 <<'PY'
import csv, os, stat, sys
tmp = sys.argv[1]
sys.path.insert(0, "bench")
import compare_rows as cr
cr.ROOT = tmp
d = os.path.join(tmp, "results", "fake-gpu")
os.makedirs(d)
head = "step,device,rows,len,median_us,status"
with open(os.path.join(d, "rows.csv"), "w") as f:
    f.write(head + "\n11_rows,Fake GPU,1,4,9.0,OK\ncub_segmented,Fake GPU,1,4,8.0,OK\n")
step = os.path.join(tmp, "step11")
with open(step, "w") as f:
    f.write("#!/bin/sh\necho '" + head + "'\necho '11_rows,Fake GPU,1,4,7.0,OK'\n")
os.chmod(step, stat.S_IRWXU)
cr.measure(["11_rows", "cub_segmented"])
got = {r["step"]: r["median_us"] for r in csv.DictReader(open(os.path.join(d, "rows.csv")))}
sys.exit(0 if got == {"11_rows": "7.0", "cub_segmented": "8.0"} else "rows.csv after the run: %s" % got)
PY
); then
    echo "PASS bench/compare-rows/only-not-built: a program named in --only that is not built keeps its rows"
else
    echo "FAIL bench/compare-rows/only-not-built: $(echo "$out" | tail -1)"
fi
rm -rf "$tmp"
# The small sizes (make clusters): clusters.md is what its CSVs give, for
# every GPU and for the docs tests' fixture.
for d in results/*/ tests/fixtures/results/*/; do
    [ -f "$d/clusters.csv" ] || continue
    name=${d%/}
    tmp=$(mktemp -d)
    for f in clusters.csv latency.csv clusters_floor.csv; do [ -f "$d/$f" ] && cp "$d/$f" "$tmp/"; done
    if ! python3 lab/small-sizes/clusters.py --from "$tmp" >/dev/null 2>"$tmp/err"; then
        echo "FAIL bench/$name/clusters.md: $(tail -1 "$tmp/err")"
    elif cmp -s "$tmp/clusters.md" "$d/clusters.md"; then
        echo "PASS bench/$name/clusters.md is what its CSVs give"
    else
        echo "FAIL bench/$name/clusters.md differs from what its CSVs give (run python3 lab/small-sizes/clusters.py --from $name)"
    fi
    rm -rf "$tmp"
done
if out=$(python3 bench/readme_table.py --check 2>&1); then echo "PASS bench/README step table matches results/ and steps/"
else echo "FAIL bench/README step table: $(echo "$out" | tail -1)"; fi

# The accuracy plots, one per input, from every accuracy.csv there is: the
# GPUs', the docs fixture's (every input, the CSV's newest columns) and a file
# from before the inputs (no input column: uniform only, no bits, no
# rel_error). Each plot names its series, each in its own colour, and keeps
# half its height.
for d in $(ls -d results/*/ tests/fixtures/results/*/ tests/fixtures/accuracy-uniform-only/ 2>/dev/null); do
    [ -f "$d/accuracy.csv" ] || continue
    name=${d%/}; name=${name#results/}; name=${name/tests\/fixtures\/results/fixture}; name=${name/tests\/fixtures\//fixture-}
    if ! command -v gnuplot >/dev/null 2>&1; then
        echo "SKIP bench/$name/accuracy: gnuplot is not installed (apt-get install gnuplot-nox)"
        continue
    fi
    tmp=$(mktemp -d)
    cp "$d/accuracy.csv" "$tmp/"
    if out=$(python3 bench/accuracy.py --from "$tmp" 2>&1) && check=$(python3 - "$tmp" "$d/accuracy.csv" 2>&1 <<'PY'
import csv, glob, os, sys, xml.etree.ElementTree as ET
sys.path.insert(0, "tests")
from plotcheck import plot_box, series, series_problems, svg_height
tmp, path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
inputs = sorted({r.get("input") or "uniform" for r in rows})
drawn = sorted(os.path.basename(f)[len("accuracy-"):-len(".svg")] for f in glob.glob(f"{tmp}/accuracy-*.svg"))
assert drawn == inputs, f"plots for {drawn}, inputs {inputs}"
assert len({r["step"] for r in rows}) >= 3, "fewer than three programs"
for inp in inputs:
    svg = f"{tmp}/accuracy-{inp}.svg"
    text = open(svg, encoding="utf-8").read()
    words = "".join(ET.fromstring(text).itertext())
    assert "correctly rounded" in words and f"input {inp}" in words, f"{inp}: series or title missing"
    if inp == "uniform":
        assert "07 cooperative" in words, "uniform: no 07 cooperative"
    assert plot_box(text)[1] >= 0.5 * svg_height(text), f"{inp}: the plot is less than half the figure's height"
    problems = series_problems(series(text))
    assert not problems, f"{inp}: {problems[0]}"
print(", ".join(inputs))
PY
)
    then echo "PASS bench/$name/accuracy: a plot per input ($check) drawn from accuracy.csv"
    else echo "FAIL bench/$name/accuracy: $(printf '%s\n%s' "$out" "${check:-}" | tail -1)"; fi
    rm -rf "$tmp"
done
# The two errors, as bench/accuracy.py defines them on a row's columns.
if out=$(python3 - 2>&1 <<'PY'
import math, sys
sys.path.insert(0, "bench")
from accuracy import rel_error, ulp_error
def row(got, ref, exact="1", mags="4"):
    return {"sum_hex": got, "reference_hex": ref, "sum": "0", "reference": exact, "abs_sum": mags}
one, next_up, next_down = "0x3f800000", "0x3f800001", "0x3f7fffff"
cases = [
    (row(one, one), 0, "the same bits"),
    (row(next_up, one), 1, "the next float up"),
    (row(next_down, one), 0.5, "the float below 1, where floats are twice as dense"),
    (row("0x80000000", "0x00000000"), 0, "-0 and +0"),
    (row("0x7fc00000", "0xffc00001"), 0, "two NaNs"),
    (row("0x7f800000", "0x7f800000"), 0, "the same infinity"),
    (row("0xff800000", "0x7f800000"), math.inf, "the other infinity"),
    (row("0x7f800000", "0x7f7fffff"), math.inf, "an overflow where the sum is finite"),
    (row("0x7f7fffff", "0x7f800000"), math.inf, "a finite sum where the exact one rounds to inf"),
    (row("0x7fc00000", one), math.inf, "a NaN"),
    (row("0x00000003", "0x00000001"), 2, "subnormals: ulp 2^-149"),
]
for r, want, what in cases:
    got = ulp_error(r)
    assert got == want, f"ulp_error, {what}: {got}, not {want}"
assert rel_error(row(next_up, one, exact="1", mags="4"), 1) == 2 ** -23 / 4, "rel_error of the next float"
assert rel_error(row("0x7f800000", "0x7f800000"), 0) == 0, "rel_error of the right infinity"
assert rel_error(row("0x7fc00000", one), math.inf) == math.inf, "rel_error of a NaN"
assert rel_error({"sum": "1", "reference": "1"}, 0) is None, "rel_error without abs_sum"
print(len(cases))
PY
); then echo "PASS bench/accuracy-errors: ulp_error and rel_error as defined ($out cases)"
else echo "FAIL bench/accuracy-errors: $(echo "$out" | tail -1)"; fi

# What follows needs nvcc alone: tests/bare.sh, which runs this again
# without the optional tools, stops here.
[ -n "${TEST_BARE:-}" ] && exit 0

# The rest checks the lab's claims against this toolkit and compiles the
# lab's programs: make test-full (TEST_FULL=1), and this script alone.
if [ "${TEST_FULL:-1}" != 1 ]; then
    echo "SKIP bench/claims: claim C against this toolkit and the lab's claims programs are checked by make test-full"
else

# Claim C, asked of this toolkit: the multi-device runtime API and
# this_multi_grid() are gone, a grid.sync() kernel compiles without -rdc.
if out=$(python3 lab/claims/claims.py --api 2>&1); then
    echo "PASS bench/claims-api: $(echo "$out" | sed -n 's/^toolkit: \([^ ]*\).*/CUDA \1/p'), $(echo "$out" | grep -c 'does not compile') multi-device names gone, as claim C says"
else
    echo "FAIL bench/claims-api: $(echo "$out" | tr '\n' ';' | cut -c1-300)"
fi
# Where this nvcc is the one that made a committed claims_checks.csv, its
# compiler rows are what claims.py says now, every message whole.
for f in results/*/claims_checks.csv; do
    [ -f "$f" ] || continue
    python3 - "$f" "$out" <<'PY'
import csv, sys
path, said = sys.argv[1], sys.argv[2].splitlines()
rows = [r for r in csv.DictReader(open(path, newline="", encoding="utf-8")) if r["kind"] == "compiler"]
now = [f"{r['check']}: {r['result']}  {r['detail']}" for r in rows]
toolkit = next((r["detail"] for r in rows if r["check"] == "toolkit"), "?")
if not any(line.startswith("toolkit: ") and line.endswith(toolkit) for line in said):
    print(f"SKIP bench/{path}: made with {toolkit}, another nvcc than this one")
elif [l.rstrip() for l in now] == [l.rstrip() for l in said[:len(now)]]:
    print(f"PASS bench/{path}: the compiler's rows are what claims.py --api gives")
else:
    diff = [f"{a!r} != {b!r}" for a, b in zip(now, said) if a.rstrip() != b.rstrip()]
    print(f"FAIL bench/{path}: the compiler's rows differ from claims.py --api: {'; '.join(diff)[:300]}")
PY
done

# Every source of make claims compiles (one architecture, PTX, no link): one
# build of each source file here, the one with the most switches on; the GPU
# tier's group claims builds all of them (gpu/claims/build).
tmp=$(mktemp -d)
make -s --no-print-directory print-claims-builds |
    grep -E '^(row_sums_cg_shfl_vec|subwarp_cg_8|subwarp_index_4|subwarp_kernels_4|one_per_thread|grid_sync_64|multi_device) ' |
xargs -P "$(nproc 2>/dev/null || echo 2)" -L 1 sh -c '
    name=$1; shift
    if "$@" -gencode arch=compute_90,code=compute_90 -o "'"$tmp"'/$name.o" >"'"$tmp"'/$name.log" 2>&1; then
        echo "PASS bench/claims-programs/$name compiles"
    else
        echo "FAIL bench/claims-programs/$name: $(grep -m2 -E "error|warning" "'"$tmp"'/$name.log" | tr "\n" " ")"
    fi' _
rm -rf "$tmp"
fi

# No circle among the scripts' imports of each other and no private copy of
# a helper of bench/lib.py (tests/imports.py), and each made on purpose is caught.
python3 tests/imports.py
tmp=$(mktemp -d)
printf 'import b\n' >"$tmp/a.py"
printf 'def f():\n    from a import x\n' >"$tmp/b.py"
if python3 tests/imports.py "$tmp" >/dev/null; then
    echo "FAIL bench/self-test/imports: two scripts importing each other were not caught"
else
    echo "PASS bench/self-test/imports"
fi
rm -rf "$tmp"
tmp=$(mktemp -d)
printf 'def slug(device):\n    return device\n' >"$tmp/copy.py"
if python3 tests/imports.py "$tmp" >/dev/null; then
    echo "FAIL bench/self-test/imports-copies: a script's own slug() beside bench/lib.py's was not caught"
else
    echo "PASS bench/self-test/imports-copies"
fi
rm -rf "$tmp"
