#!/usr/bin/env python3
"""compare_multi.py: step 09 on one GPU and on several (this is `make compare-multi`).

    python3 bench/compare_multi.py                # G = 1 .. every GPU here: results/<gpu>-x<G>/
    python3 bench/compare_multi.py --gpus 1       # the one-GPU baseline: results/<gpu>-x1/
    python3 bench/compare_multi.py --from DIR     # the tables and the plot from DIR/multi.csv

For G = 1 up to the GPUs asked for, in one run:
    weak      n = G * 2^28: each GPU sums 2^28 elements
    strong    n = 2^30 in all
    combine   --combine-only at the same sizes: the all-gather and the final
              sum alone, per call
    sweep     n = 2^16 .. 2^28, to find below which n one GPU beats G
with ./step09 (one process driving G GPUs) and, where mpirun exists and G > 1,
mpirun -np G ./step09 (one process a GPU); and step 08 on one GPU at 2^28
and 2^30, for the efficiencies. Writes multi.csv (the harness's columns plus
kind and form), multi.md (the tables, for the step 09 chapter) and, with
gnuplot, scaling.svg. Only the standard library.
"""
import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEAK_PER_GPU = 2 ** 28
STRONG = 2 ** 30
SWEEP = [2 ** k for k in range(16, 29, 2)]
FIELDS_EXTRA = ["kind", "form"]


def power_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def slug(device):
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")


def progress(msg):
    print(msg, file=sys.stderr, flush=True)


def gpu_count():
    p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    found = sum(1 for line in p.stdout.splitlines() if line.startswith("GPU"))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        found = min(found, len([v for v in visible.split(",") if v.strip()]))
    return found


def mpirun():
    if not shutil.which("mpirun"):
        return None
    cmd = ["mpirun"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def run(cmd, kind, form, rows):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    got = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("step") != "step"]
    for r in got:
        r["kind"], r["form"] = kind, form
    rows += got
    note = "" if p.returncode == 0 else "  (" + (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1] + ")"
    progress(f"  {kind:8s} {form:8s} {' '.join(cmd[-6:])}: {len(got)} rows in {time.time() - t0:.1f} s{note}")


def measure(max_gpus):
    rows = []
    run(["./step08", "--csv", "--n", f"{WEAK_PER_GPU},{STRONG}"], "step08", "one", rows)
    mpi = mpirun()
    for g in range(1, max_gpus + 1):
        forms = [("process", ["./step09", "--gpus", str(g)])]
        if mpi and g > 1:
            forms.append(("mpirun", mpi + ["-np", str(g), "./step09"]))
        for form, cmd in forms:
            run(cmd + ["--csv", "--n", str(g * WEAK_PER_GPU)], "weak", form, rows)
            run(cmd + ["--csv", "--n", str(STRONG)], "strong", form, rows)
            run(cmd + ["--csv", "--combine-only", "--n", f"{g * WEAK_PER_GPU},{STRONG}"], "combine", form, rows)
            run(cmd + ["--csv", "--reps", "100", "--n", ",".join(map(str, SWEEP))], "sweep", form, rows)
    if not rows:
        sys.exit("compare-multi: nothing ran (is there a GPU, and is step09 built?)")
    out = os.path.join(ROOT, "results", f"{slug(rows[0]['device'])}-x{max_gpus}")
    os.makedirs(out, exist_ok=True)
    fields = list(rows[0].keys())
    with open(os.path.join(out, "multi.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return out


# ---- tables --------------------------------------------------------------------
def us(r):
    return float(r["median_us"])


def fmt_us(t):
    return f"{t:,.0f}" if t >= 1000 else f"{t:.1f}" if t >= 100 else f"{t:.2f}"


# How the tables name each way of launching step 09.
FORM_NAME = {"process": "one process", "mpirun": "mpirun, a process a GPU"}


def weak_table(by, one, gmax, forms):
    """The weak-scaling table: 2^28 elements per GPU, against step 08 on one."""
    base08 = one.get(WEAK_PER_GPU)
    lines = ["## Weak scaling: 2^28 elements per GPU", "",
             "| GPUs | launched as | n | median time (µs) | GB/s, all GPUs | efficiency |",
             "|--:|---|--:|--:|--:|--:|"]
    if base08:
        lines.append(f"| 1 | step 08 | {power_label(WEAK_PER_GPU)} | {fmt_us(us(base08))} | "
                     f"{float(base08['gbps']):.0f} | 1.00 |")
    for g in range(1, gmax + 1):
        for form in forms:
            r = by.get(("weak", form, g, g * WEAK_PER_GPU))
            if not r:
                continue
            eff = float(r["gbps"]) / (g * float(base08["gbps"])) if base08 else float("nan")
            lines.append(f"| {g} | {FORM_NAME[form]} | {power_label(int(r['n'])) if g == 1 else str(g) + ' x 2^28'} | "
                         f"{fmt_us(us(r))} | {float(r['gbps']):.0f} | {eff:.2f} |")
    return lines + ["", "Efficiency: the GPUs' bandwidth together over G times step 08's on one GPU, same run.", ""]


def strong_table(by, gmax, forms):
    """The strong-scaling table: 2^30 elements in all, against step 09 on one GPU."""
    lines = ["## Strong scaling: 2^30 elements in all", "",
             "| GPUs | launched as | median time (µs) | speed-up over one GPU | efficiency |",
             "|--:|---|--:|--:|--:|"]
    s1 = by.get(("strong", "process", 1, STRONG))
    for g in range(1, gmax + 1):
        for form in forms:
            r = by.get(("strong", form, g, STRONG))
            if not r:
                continue
            sp = us(s1) / us(r) if s1 else float("nan")
            lines.append(f"| {g} | {FORM_NAME[form]} | {fmt_us(us(r))} | {sp:.2f} | {sp / g:.2f} |")
    return lines + [""]


def combine_table(by, gmax, forms):
    """The all-gather and the final sum alone (--combine-only), per call."""
    lines = ["## The combine alone, per call", "",
             "The all-gather of the chunk sums and the final sum, timed alone (`--combine-only`).", "",
             "| GPUs | launched as | n | chunk sums | median time (µs) |", "|--:|---|--:|--:|--:|"]
    for g in range(1, gmax + 1):
        for form in forms:
            for n in (g * WEAK_PER_GPU, STRONG):
                r = by.get(("combine", form, g, n))
                if r:
                    lines.append(f"| {g} | {FORM_NAME[form]} | {power_label(n) if n & (n - 1) == 0 else str(g) + ' x 2^28'} | "
                                 f"{(n + 4095) // 4096:,} | {fmt_us(us(r))} |")
    return lines + [""]


def sweep_table(by, gmax, forms):
    """The small sizes, one column per GPU count and form, and from which n
    each count of GPUs beats one."""
    lines = ["## Small arrays: where one GPU is faster" if gmax > 1 else "## Small arrays, on one GPU", "",
             "| n | " + " | ".join(f"{g} GPU{'s' if g > 1 else ''} ({FORM_NAME[f]})" for g in range(1, gmax + 1)
                                   for f in forms if g > 1 or f == "process") + " |",
             "|--:|" + "--:|" * sum(1 for g in range(1, gmax + 1) for f in forms if g > 1 or f == "process")]
    crossover = {}
    for n in SWEEP:
        cells = []
        for g in range(1, gmax + 1):
            for f in forms:
                if g == 1 and f != "process":
                    continue
                r = by.get(("sweep", f, g, n))
                cells.append(fmt_us(us(r)) if r else "–")
                one_gpu = by.get(("sweep", "process", 1, n))
                if g > 1 and r and one_gpu and us(r) < us(one_gpu) and (g, f) not in crossover:
                    crossover[(g, f)] = n
        lines.append(f"| {power_label(n)} | " + " | ".join(cells) + " |")
    lines.append("")
    if gmax == 1:
        lines.append("- One GPU only: where several become faster needs a run on two GPUs or more.")
    for g in range(2, gmax + 1):
        for f in forms:
            n = crossover.get((g, f))
            lines.append(f"- {g} GPUs ({FORM_NAME[f]}): " +
                         (f"faster than one from n = {power_label(n)} on (median times, µs)." if n
                          else "not faster than one GPU at any n of the sweep."))
    return lines


def tables(out_dir):
    """Writes multi.md from DIR/multi.csv: the weak, strong, combine and
    small-array tables; returns its text."""
    rows = list(csv.DictReader(open(os.path.join(out_dir, "multi.csv"))))
    device = rows[0]["device"]
    wrong = [r for r in rows if r["status"] != "OK"]
    by = {}
    for r in rows:
        by[(r["kind"], r["form"], int(r.get("gpus") or 1), int(r["n"]))] = r
    gmax = max(int(r.get("gpus") or 1) for r in rows if r["kind"] != "step08")
    one = {int(r["n"]): r for r in rows if r["kind"] == "step08"}
    lines = [f"# Step 09 on {gmax} × {device}", ""]
    if wrong:
        lines += [f"**{len(wrong)} runs were WRONG**: " + ", ".join(f"{r['kind']} n={r['n']}" for r in wrong[:5]), ""]
    forms = [f for f in ("process", "mpirun") if any(r["form"] == f for r in rows)]
    lines += weak_table(by, one, gmax, forms)
    lines += strong_table(by, gmax, forms)
    lines += combine_table(by, gmax, forms)
    lines += sweep_table(by, gmax, forms)
    lines += ["", f"(median times of the harness's timed runs, cold L2; `make compare-multi` on {gmax} × {device}; "
              f"`{os.path.relpath(os.path.join(out_dir, 'multi.csv'), ROOT)}`)", ""]
    with open(os.path.join(out_dir, "multi.md"), "w") as f:
        f.write("\n".join(lines))
    return "\n".join(lines)


def plot(out_dir):
    if not shutil.which("gnuplot"):
        return "compare-multi: gnuplot is not installed (apt-get install gnuplot-nox); no scaling.svg"
    rows = [r for r in csv.DictReader(open(os.path.join(out_dir, "multi.csv"))) if r["kind"] == "sweep"]
    series = {}
    for r in rows:
        series.setdefault((int(r.get("gpus") or 1), r["form"]), []).append((int(r["n"]), us(r)))
    data = os.path.join(out_dir, "scaling.dat")
    names = []
    with open(data, "w") as f:
        for (g, form), pts in sorted(series.items()):
            names.append(f"{g} GPU{'s' if g > 1 else ''}" + ("" if form == "process" else " (mpirun)"))
            for n, t in sorted(pts):
                f.write(f"{n} {t}\n")
            f.write("\n\n")
    script = [
        "set terminal svg size 900,560 dynamic font 'sans,16'",
        f"set output '{os.path.join(out_dir, 'scaling.svg')}'",
        "set logscale xy 2", "set format x '2^{%L}'", "set xlabel 'n (elements)'",
        "set ylabel 'median time per sum (µs)'", "set key below", "set grid",
        "plot " + ", ".join(f"'{data}' index {i} with linespoints lw 2 title '{name}'" for i, name in enumerate(names)),
    ]
    p = subprocess.run(["gnuplot"], input="\n".join(script), text=True, capture_output=True)
    os.remove(data)
    return "compare-multi: scaling.svg drawn" if p.returncode == 0 else f"compare-multi: gnuplot failed: {p.stderr[:200]}"


def main():
    ap = argparse.ArgumentParser(description="step 09 on one GPU and on several")
    ap.add_argument("--gpus", type=int, help="at most this many GPUs (default: every GPU here)")
    ap.add_argument("--from", dest="from_dir", help="only the tables and the plot, from DIR/multi.csv")
    a = ap.parse_args()
    if a.from_dir:
        out = a.from_dir
    else:
        have = gpu_count()
        g = min(a.gpus or have, have)
        if g < 1:
            sys.exit("compare-multi: no GPU here")
        out = measure(g)
    print(tables(out))
    print(plot(out))


if __name__ == "__main__":
    main()
