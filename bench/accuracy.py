#!/usr/bin/env python3
"""accuracy.py: how far each program's sum lands from the exact one (this is `make accuracy`).

    python3 bench/accuracy.py                      measure on this GPU, write results/<gpu>/
    python3 bench/accuracy.py --from results/X     only the plot, from X/accuracy.csv

Every program that `make compare` runs (the steps' float builds, CUB, and
where they were built step 09 on one GPU and CUB's gpu_to_gpu mode), and the
two builds of answers/07_compensated.cu, sum every power of two from 2^10 to
2^28 elements for seeds 1 to 8, once each (--check-only: checked, not
timed). Then step 07 and the compensated builds are timed at 2^24 and 2^28,
for what keeping the errors costs. It writes, in results/<gpu>/:
    accuracy.csv        the checked runs: the harness's columns, plus ulp_error
    accuracy_cost.csv   the timed runs, the same columns
    accuracy.svg        the median error over the seeds against n (gnuplot)
ulp_error is |sum - exact| in units in the last place of the exact sum, as a
float has them there: 2^(e - 23) for 2^e <= |exact| < 2^(e + 1). A correctly
rounded sum is within half an ulp. Takes about two minutes on an H100.
Only the Python standard library (and gnuplot for the plot).
"""
import argparse
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ROOT, gpu_turn, power_label, programs, progress, run_csv, slug, write_csv  # noqa: E402

SIZES = [2 ** k for k in range(10, 29)]
SEEDS = list(range(1, 9))
ANSWERS = [("07_compensated", "./build/answers/07_compensated"),
           ("07_compensated_front", "./build/answers/07_compensated_front")]
COST_SIZES = [2 ** 24, 2 ** 28]
COST_REPS = 50


def ulp_error(row):
    """|sum - exact| over the spacing of floats at the exact sum."""
    exact, got = float(row["reference"]), float(row["sum"])
    if not math.isfinite(got):
        return math.inf
    e = math.frexp(abs(exact))[1] - 1 if exact else -126      # 2^e <= |exact| < 2^(e + 1)
    return abs(got - exact) / 2.0 ** max(e - 23, -149)


def measure(out_root):
    progs = programs() + ANSWERS
    rows, cost = [], []
    sizes, seeds = ",".join(map(str, SIZES)), ",".join(map(str, SEEDS))
    for k, (name, prog) in enumerate(progs):
        progress(f"[{k + 1}/{len(progs)}] {name}")
        got, _ = run_csv(prog.split() + ["--csv", "--check-only", "--n", sizes, "--seed", seeds],
                         f"n = {power_label(SIZES[0])} .. {power_label(SIZES[-1])}, seeds 1-{SEEDS[-1]}")
        rows += got
    for name, prog in [("07_cooperative", "./step07")] + ANSWERS:
        got, _ = run_csv([prog, "--csv", "--n", ",".join(map(str, COST_SIZES)), "--reps", str(COST_REPS)],
                         f"{name}, timed")
        cost += got
    if not rows:
        sys.exit("accuracy: no program produced results (is there a GPU?)")
    for r in rows + cost:
        r["ulp_error"] = f"{ulp_error(r):.3g}"
    out_dir = os.path.join(out_root, slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "accuracy.csv"), rows, list(rows[0].keys()))
    if cost:
        write_csv(os.path.join(out_dir, "accuracy_cost.csv"), cost, list(cost[0].keys()))
    return out_dir


# ---- the plot -------------------------------------------------------------------
def medians(rows):
    """{program: {n: median ulp_error over the seeds}}, programs in file order,
    and {program: the earlier program whose sums it repeats exactly}."""
    by, sums = {}, {}
    for r in rows:
        by.setdefault(r["step"], {}).setdefault(int(r["n"]), []).append(float(r["ulp_error"]))
        sums.setdefault(r["step"], []).append((r["n"], r["seed"], r["sum"]))
    same = {}
    names = list(by)
    for i, p in enumerate(names):
        twin = next((q for q in names[:i] if q not in same and sorted(sums[q]) == sorted(sums[p])), None)
        if twin:
            same[p] = twin
    return {p: {n: statistics.median(v) for n, v in d.items()} for p, d in by.items()}, same


def label(name, twins):
    text = "CUB" if name == "cub" else name.replace("_", " ")
    return text + "".join(f" (= {t.replace('_', ' ')})" for t, of in twins.items() if of == name)


def draw(out_dir):
    """Writes out_dir/accuracy.svg from out_dir/accuracy.csv; returns one line saying what happened."""
    if shutil.which("gnuplot") is None:
        return ("accuracy: gnuplot not found; install it (e.g. apt-get install gnuplot-nox) and run "
                f"python3 bench/accuracy.py --from {out_dir}")
    with open(os.path.join(out_dir, "accuracy.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "OK"]
    med, twins = medians(rows)
    shown = [p for p in med if p not in twins]
    sizes = sorted({n for d in med.values() for n in d})
    floor = 0.01                            # an error of 0 is drawn here, on the log axis
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
    styles = "\n".join(f"set style line {i + 1} lc rgb '{'black' if p == 'cub' else colours[i % 8]}' lw 2 "
                        f"pt {i % 7 + 1} ps 0.7 dt {1 if i < 8 else 2}" for i, p in enumerate(shown))
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "accuracy.dat")
        with open(dat, "w") as f:
            f.write("n " + " ".join(f'"{label(p, twins)}"' for p in shown) + "\n")
            for n in sizes:
                f.write(f"{n} " + " ".join(f"{max(med[p][n], floor):.4g}" if n in med[p] else "NaN"
                                           for p in shown) + "\n")
        script = f"""
set terminal svg size 1120,640 dynamic enhanced font 'sans,17' background rgb 'white'
set output '{os.path.join(out_dir, "accuracy.svg")}'
set title 'Error of the sum on {rows[0]["device"]}'
set logscale x 2
set format x '2^{{%L}}'
set logscale y 10
set yrange [{floor}:*]
set xlabel 'n (elements)'
set ylabel 'error (ulp), median of the seeds'
set key outside right top vertical samplen 3 spacing 1.1
set grid
{styles}
plot for [i=2:{len(shown) + 1}] '{dat}' using 1:i with linespoints ls (i - 1) title columnheader(i), \\
     0.5 with lines lc rgb '#cc0000' dt 4 lw 2 title 'half an ulp: correctly rounded'
"""
        p = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
        if p.returncode != 0:
            return "accuracy: gnuplot failed: " + p.stderr.strip()
    return f"accuracy: wrote {out_dir}/accuracy.svg"


def main():
    ap = argparse.ArgumentParser(description="each program's error against the exact sum")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--from", dest="from_dir", help="only the plot, from DIR/accuracy.csv")
    a = ap.parse_args()
    if a.from_dir:
        out_dir = a.from_dir
    else:
        gpu_turn()
        t0 = time.time()
        out_dir = measure(a.out)
        progress(f"measured in {time.time() - t0:.0f} s; results in {os.path.relpath(out_dir, ROOT)}")
    print(draw(out_dir))


if __name__ == "__main__":
    main()
