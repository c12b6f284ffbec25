#!/usr/bin/env python3
"""accuracy.py: how far each program's sum lands from the exact one, on every input (`make accuracy`).

    python3 bench/accuracy.py                      measure on this GPU, write results/<gpu>/
    python3 bench/accuracy.py --from results/X     only the plots and the summary, from X/accuracy.csv

Every program that `make compare` runs on the harness (the steps' float
builds, step 09 and step 10 on one GPU where they were built, CUB, CUB's
gpu_to_gpu mode where it was built) and the two builds of
answers/07_compensated.cu sum every input the harness draws (--input: the
names in common/inputs/inputs.c) at 2^10, 2^14, 2^18, 2^20, 2^22 and 2^24
elements, uniform also at 2^26 and 2^28, for seeds 1 to 4, once each
(--check-only: checked, not timed). Then step 07 and the compensated builds
are timed at 2^24 and 2^28 on uniform, for what keeping the errors costs.
It writes, in results/<gpu>/:
    accuracy.csv          the checked runs: the harness's columns, plus ulp_error and rel_error
    accuracy_cost.csv     the timed runs, the same columns
    accuracy-INPUT.svg    per input, the median ulp_error over the seeds against n (gnuplot)
    accuracy_INPUT*.md    the comparison chapter's tables (bench/accuracy_tables.py)
and prints, per input, each program's median ulp_error at every size.

The two errors, both from the CSV's own columns:
    ulp_error  |sum - r| / ulp(r), r the correctly rounded exact sum
               (reference_hex) and ulp(r) the gap between floats at r:
               2^(e - 23) for 2^e <= |r| < 2^(e + 1), 2^-149 below 2^-126.
               Exact, from the bits (sum_hex, reference_hex). 0 means the
               right bits (+0 and -0 count as equal); 1 the neighbouring
               float, where both lie in r's binade. Where the sum or r is
               not finite: 0 if they are the same (two NaNs, or the same
               infinity), inf otherwise (a sum that overflowed where the
               exact sum did not, a NaN, a finite sum where the exact sum
               rounds to an infinity). Not the count of floats between the
               two (the harness's spread_ulp): that is the same within r's
               binade, but beyond it grows by 2^23 a binade, and a result of
               the other sign is some 2^31 floats away whatever its error.
    rel_error  |sum - s| / abs_sum, s the exact sum (the reference column)
               and abs_sum the sum of the magnitudes: the error in the
               units of the error bound (depth * 2^-24 * abs_sum). Where the
               sum is not finite: 0 if ulp_error is 0, inf otherwise.
A file written before the CSV had the inputs' columns (no input column)
holds uniform only and has no rel_error; for the plots and the summary its
ulp_error is worked out again, as above, from sum and reference (there the
reference, a double, is the exact sum of uniform's terms). Sized to take
under four minutes on an H100 with 16 cores: most of it is drawing the
inputs and their exact sums on the CPU, and starting each program once per
input.
Only the Python standard library (and gnuplot for the plots).
"""
import argparse
import math
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

from array_libs import LIBS
from compare import programs
from accuracy_tables import write_tables  # noqa: E402
from lib import ROOT, gpu_turn, power_label, progress, read_csv, run_csv, slug, write_csv
import plots
from plots import LINES, styles

SIZES = [2 ** k for k in (10, 14, 18, 20, 22, 24)]
EXTRA_SIZES = {"uniform": [2 ** 26, 2 ** 28]}    # the kindest input is the cheapest to draw
SEEDS = [1, 2, 3, 4]                             # huge's seed 4: its exact sum overflows too
ANSWERS = [("07_compensated", "./build/answers/07_compensated"),
           ("07_compensated_front", "./build/answers/07_compensated_front")]
COST_SIZES = [2 ** 24, 2 ** 28]
COST_REPS = 50


def input_names():
    """The inputs --input takes, in the harness's order (its table in inputs.c)."""
    src = open(os.path.join(ROOT, "common", "inputs", "inputs.c")).read()
    table = src[src.index("const dist_info_t dist_info[DIST_COUNT]"):]
    return re.findall(r'\{\s*"(\w+)",', table[:table.index("};")])


# ---- the two errors ---------------------------------------------------------------
def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def as_f32(x):
    """The float nearest to the double x (x itself for a float's value)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def result_and_reference(row):
    """The float the program returned and the correctly rounded exact sum."""
    if row.get("sum_hex") and row.get("reference_hex"):
        return f32(int(row["sum_hex"], 16)), f32(int(row["reference_hex"], 16))
    return as_f32(float(row["sum"])), as_f32(float(row["reference"]))     # a file without the bits


def ulp_of(r):
    a = abs(r)
    if a < 2.0 ** -126:
        return Fraction(1, 2 ** 149)
    return Fraction(2) ** (math.frexp(a)[1] - 1 - 23)


def ulp_error(row):
    got, ref = result_and_reference(row)
    if math.isnan(got) or math.isnan(ref) or math.isinf(got) or math.isinf(ref):
        same = (math.isnan(got) and math.isnan(ref)) or got == ref
        return 0.0 if same else math.inf
    return float(abs(Fraction(got) - Fraction(ref)) / ulp_of(ref))


def rel_error(row, ulps):
    """None where the file has no abs_sum."""
    if not row.get("abs_sum"):
        return None
    got, _ = result_and_reference(row)
    if not math.isfinite(got):
        return 0.0 if ulps == 0 else math.inf
    exact, mags = float(row["reference"]), float(row["abs_sum"])
    if mags == 0:
        return 0.0 if got == exact else math.inf
    return abs(got - exact) / mags


def number_text(x, digits):
    if math.isinf(x):
        return "inf"
    if x == int(x) and x < 2 ** 53:
        return str(int(x))
    return f"{x:.{digits}g}"


def with_errors(rows):
    """rows, each with ulp_error and rel_error as numbers (u, r), its input
    named (uniform where the file has no input column)."""
    for r in rows:
        r.setdefault("input", "uniform")
        if not r["input"]:
            r["input"] = "uniform"
        r["u"] = ulp_error(r)
        r["r"] = rel_error(r, r["u"])
    return rows


# ---- measuring ------------------------------------------------------------------------
def measure(out_root):
    progs = [p for p in programs() if p[0] not in LIBS] + ANSWERS    # torch.sum, cupy.sum: uniform only
    rows, cost = [], []
    seeds = ",".join(map(str, SEEDS))
    for k, (name, prog) in enumerate(progs):
        progress(f"[{k + 1}/{len(progs)}] {name}")
        for inp in input_names():
            sizes = SIZES + EXTRA_SIZES.get(inp, [])
            got, _ = run_csv(prog.split() + ["--csv", "--check-only", "--input", inp, "--n",
                                             ",".join(map(str, sizes)), "--seed", seeds],
                             f"{inp}, n = {power_label(sizes[0])} .. {power_label(sizes[-1])}, seeds {seeds}")
            wrong = sum(r["status"] != "OK" for r in got)
            if wrong:
                progress(f"  {name} on {inp}: {wrong} WRONG (kept in the file)")
            rows += got
    for name, prog in [("07_cooperative", "./step07")] + ANSWERS:
        got, _ = run_csv([prog, "--csv", "--n", ",".join(map(str, COST_SIZES)), "--reps", str(COST_REPS)],
                         f"{name}, timed")
        cost += got
    if not rows:
        sys.exit("accuracy: no program produced results (is there a GPU?)")
    for r in rows + cost:
        u = ulp_error(r)
        rel = rel_error(r, u)
        r["ulp_error"] = number_text(u, 6)
        r["rel_error"] = "" if rel is None else number_text(rel, 3)
    out_dir = os.path.join(out_root, slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "accuracy.csv"), rows, list(rows[0].keys()))
    if cost:
        write_csv(os.path.join(out_dir, "accuracy_cost.csv"), cost, list(cost[0].keys()))
    return out_dir


# ---- medians, per input -------------------------------------------------------------
def medians(rows):
    """{program: {n: median ulp error over the seeds}}, programs in file order,
    and {program: the earlier program whose sums it repeats exactly}: every
    result's bits the same, at every size and seed (step 09 repeats 08)."""
    by, sums = {}, {}
    for r in rows:
        by.setdefault(r["step"], {}).setdefault(int(r["n"]), []).append(r["u"])
        got, _ = result_and_reference(r)
        sums.setdefault(r["step"], []).append((r["n"], r["seed"], struct.pack("<f", got)))
    same = {}
    names = list(by)
    for i, p in enumerate(names):
        twin = next((q for q in names[:i] if q not in same and sorted(sums[q]) == sorted(sums[p])), None)
        if twin:
            same[p] = twin
    return {p: {n: statistics.median(v) for n, v in d.items()} for p, d in by.items()}, same


def ordered_inputs(rows):
    known = input_names()
    found = {r["input"] for r in rows}
    return [i for i in known if i in found] + sorted(found - set(known))


def short_text(x):
    """A median for the terminal: 3 digits, whole numbers from 100 to a million."""
    return number_text(x, 3) if math.isinf(x) or not 100 <= x < 1e6 else f"{x:.0f}"


def summary(rows):
    """Per input, each program's median ulp error at every size, as text."""
    out = []
    for inp in ordered_inputs(rows):
        mine = [r for r in rows if r["input"] == inp]
        med, _ = medians(mine)
        sizes = sorted({int(r["n"]) for r in mine})
        out.append(f"{inp}: median ulp error over the seeds")
        out.append(f"  {'program':22s}" + "".join(f"{power_label(n):>10s}" for n in sizes))
        for p, d in med.items():
            out.append(f"  {p:22s}" + "".join(f"{short_text(d[n]) if n in d else '-':>10s}" for n in sizes))
    return "\n".join(out)


# ---- the plots ------------------------------------------------------------------------
def label(name, twins):
    """The program's name, with those whose sums repeat its own: two by
    name, more as a count (on huge, a dozen programs give the same NaNs)."""
    text = plots.label
    same = [text(t) for t, of in twins.items() if of == name]
    if len(same) > 2:
        return f"{text(name)} (and {len(same)} more)"
    return text(name) + (f" (= {', '.join(same)})" if same else "")


def tic_label(k):
    """1, 10, 100, then 10^3 ... (gnuplot's enhanced text makes the power)."""
    return str(10 ** k) if k < 3 else f"10^{{{k}}}"


def draw_one(out_dir, inp, rows, every):
    """accuracy-INP.svg: the median ulp error of each program against n. An
    error of 0 is drawn on the bottom line, an inf (an overflow, a NaN) on
    the top one; a program whose sums repeat another's is named beside it.
    every: every program in the file, so that each keeps its colour and
    marker in every plot (bench/plots.py's, for those it names)."""
    med, twins = medians(rows)
    shown = [p for p in med if p not in twins]
    sizes = sorted({int(r["n"]) for r in rows})
    finite = [v for d in med.values() for v in d.values() if 0 < v < math.inf]
    zero = 0.1
    top = 10 ** max(1, math.ceil(math.log10(max(finite))) if finite else 1)
    infinite = any(v == math.inf for d in med.values() for v in d.values())
    ceiling = top * 10 if infinite else top
    tics = [f'"0" {zero}'] + [f'"{tic_label(k)}" {10 ** k}' for k in range(0, round(math.log10(top)) + 1)]
    if infinite:
        tics.append(f'"inf or NaN" {ceiling}')
    style = dict(zip(every, styles(every)))
    lines = [f"set style line {i + 1} lc rgb '{style[p][0]}' lw 2 pt {style[p][1]} ps 0.7"
             for i, p in enumerate(shown)]

    def y(v):
        return zero if v == 0 else ceiling if v == math.inf else v

    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "accuracy.dat")
        with open(dat, "w") as f:
            f.write("n " + " ".join(f'"{label(p, twins)}"' for p in shown) + "\n")
            for n in sizes:
                f.write(f"{n} " + " ".join(f"{y(med[p][n]):.6g}" if n in med[p] else "NaN" for p in shown) + "\n")
        script = f"""
set terminal svg size 1120,640 dynamic enhanced font 'sans,17' background rgb 'white'
set output '{os.path.join(out_dir, f"accuracy-{inp}.svg")}'
set title 'Error of the sum, input {inp}, on {rows[0]["device"]}' noenhanced
set logscale x 2
set format x '2^{{%L}}'
set logscale y 10
set yrange [{zero / 2}:{ceiling * 2}]
set ytics ({", ".join(tics)})
set xlabel 'n (elements)'
set ylabel 'error (ulp of the correctly rounded sum)'
set key outside right top vertical samplen 3 spacing 1.1 noenhanced
set grid
{chr(10).join(lines)}
plot for [i=2:{len(shown) + 1}] '{dat}' using 1:i with linespoints ls (i - 1) title columnheader(i), \\
     {zero} with lines lc rgb '{LINES["exact"]}' dt 4 lw 2 title '0: correctly rounded'
"""
        p = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
        if p.returncode != 0:
            return "accuracy: gnuplot failed: " + p.stderr.strip()
    return None


def draw(out_dir, rows):
    """Writes out_dir/accuracy-INPUT.svg for every input in rows; returns one
    line saying what happened."""
    if shutil.which("gnuplot") is None:
        return ("accuracy: gnuplot not found; install it (e.g. apt-get install gnuplot-nox) and run "
                f"python3 bench/accuracy.py --from {out_dir}")
    every = list(dict.fromkeys(r["step"] for r in rows))
    drawn = []
    for inp in ordered_inputs(rows):
        failed = draw_one(out_dir, inp, [r for r in rows if r["input"] == inp], every)
        if failed:
            return failed
        drawn.append(f"accuracy-{inp}.svg")
    return f"accuracy: wrote {', '.join(drawn)} in {out_dir}"


def main():
    ap = argparse.ArgumentParser(description="each program's error against the exact sum, on every input")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--from", dest="from_dir", help="only the plots and the summary, from DIR/accuracy.csv")
    a = ap.parse_args()
    if a.from_dir:
        out_dir = a.from_dir
    else:
        gpu_turn()
        t0 = time.time()
        out_dir = measure(a.out)
        progress(f"measured in {time.time() - t0:.0f} s; results in {os.path.relpath(out_dir, ROOT)}")
    rows = with_errors(read_csv(os.path.join(out_dir, "accuracy.csv")))
    print(summary(rows))
    print(draw(out_dir, rows))
    write_tables(out_dir, os.path.relpath(out_dir, ROOT))


if __name__ == "__main__":
    main()
