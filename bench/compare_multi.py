#!/usr/bin/env python3
"""compare_multi.py: steps 09 and 10 on one GPU and on several (this is `make compare-multi`).

Step 10 on several GPUs is answers/10_multi_gpu.cu (build/answers/10_multi_gpu).

    python3 bench/compare_multi.py                # G = 1 .. every GPU here: results/<gpu>-x<G>/
    python3 bench/compare_multi.py --gpus 1       # the one-GPU baseline: results/<gpu>-x1/
    python3 bench/compare_multi.py --large 3*2^33 # also one sum larger than one GPU holds
    python3 bench/compare_multi.py --only wait    # only these kinds, beside the last run's other rows
    python3 bench/compare_multi.py --from DIR     # the tables and the plot from DIR/multi.csv

For each step (09: step 08's bits on G GPUs; 10: the exact sum on G GPUs)
and G = 1 up to the GPUs asked for, in one run:
    weak      n = G * 2^28: each GPU sums 2^28 elements
    strong    n = 2^30 in all
    combine   --combine-only at the same sizes: the collective and the final
              sum alone, per call
    sweep     n = 2^16 .. 2^28, to find below which n one GPU beats G
    wait      the sweep's sizes with --wait-each: a loop that waits for every
              sum, timed by the host (one process only)
    large     (with --large N) n = N on every GPU asked for: a sum larger
              than one GPU holds, with the wall time of a --check-only run
              (drawing the input on the CPU, its exact sum, one checked run)
with ./stepNN --gpus G (one process driving G GPUs) and, where mpirun exists
and G > 1, mpirun -np G ./stepNN (one process a GPU); and step 08 on one GPU
at 2^28 and 2^30, for reference. Writes multi.csv (the harness's columns plus
kind, form and wall_s), multi.md (the tables, which chapters 09 and 10
quote) and, with gnuplot, scaling.svg. Only the standard library.
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import time

from lib import ROOT, parse_n, power_label, progress, read_csv, slug, write_csv
from plots import SPARE, STYLE
WEAK_PER_GPU = 2 ** 28
STRONG = 2 ** 30
SWEEP = [2 ** k for k in range(16, 29, 2)]
STEPS = {"09": "./step09", "10": "build/answers/10_multi_gpu"}   # step 10 on several GPUs: an answer
STEP_NAME = {"09": "Step 09 (step 08's bits)", "10": "Step 10 (the exact sum)"}


def gpu_count():
    """GPUs here (nvidia-smi, narrowed by CUDA_VISIBLE_DEVICES); 0 without a driver."""
    if not shutil.which("nvidia-smi"):
        return 0
    p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    found = sum(1 for line in p.stdout.splitlines() if line.startswith("GPU"))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        found = min(found, len([v for v in visible.split(",") if v.strip()]))
    return found


def mpirun():
    if not shutil.which("mpirun"):
        return None
    cmd = ["mpirun", "-x", "NCCL_NVLS_ENABLE=0"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def run(cmd, step, kind, form, rows, extra=None):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.time() - t0
    got = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r.get("step") != "step"]
    for r in got:
        r.update({"program": step, "kind": kind, "form": form, "wall_s": f"{wall:.1f}"})
        r.update(extra or {})
    rows += got
    note = "" if p.returncode == 0 else "  (" + (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1] + ")"
    progress(f"  {step} {kind:8s} {form:8s} {' '.join(cmd[-6:])}: {len(got)} rows in {wall:.1f} s{note}")
    return got


KINDS = ["weak", "combine", "sweep", "wait", "large"]     # weak's run also gives strong


def measure(max_gpus, steps, large, only):
    rows = []
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    if "weak" in only:
        run(["./step08", "--csv", "--n", f"{WEAK_PER_GPU},{STRONG}"], "08", "step08", "one", rows)
    mpi = mpirun()
    sweep = ["--csv", "--reps", "100", "--n", ",".join(map(str, SWEEP))]
    for step in steps:
        prog = STEPS[step]
        for g in range(1, max_gpus + 1):
            forms = [("process", [prog, "--gpus", str(g)])]
            if mpi and g > 1:
                forms.append(("mpirun", mpi + ["-np", str(g), prog]))
            for form, cmd in forms:
                weak = g * WEAK_PER_GPU
                sizes = [weak] + ([STRONG] if STRONG != weak else [])
                for r in run(cmd + ["--csv", "--n", ",".join(map(str, sizes))], step, "weak", form, rows) \
                        if "weak" in only else []:
                    if int(r["n"]) == STRONG:
                        if weak == STRONG:
                            rows.append(dict(r, kind="strong"))
                        else:
                            r["kind"] = "strong"
                if "combine" in only and (step == "09" or g > 1):   # step 10 on one GPU combines in its kernel
                    run(cmd + ["--csv", "--combine-only", "--n", ",".join(map(str, sizes))], step, "combine", form,
                        rows)
                if "sweep" in only:
                    run(cmd + sweep, step, "sweep", form, rows)
                if "wait" in only and form == "process":
                    run(cmd + sweep + ["--wait-each"], step, "wait", form, rows)
        if large and "large" in only:
            cmd = [prog, "--gpus", str(max_gpus), "--csv", "--n", str(large)]
            check = run(cmd + ["--check-only"], step, "large-check", "process", rows)
            run(cmd + ["--reps", "10"], step, "large", "process", rows,
                {"check_wall_s": check[0]["wall_s"] if check else ""})
    if not rows:
        sys.exit("compare-multi: nothing ran (is there a GPU, and are step09 and build/answers/10_multi_gpu built?)")
    out = os.path.join(ROOT, "results", f"{slug(rows[0]['device'])}-x{max_gpus}")
    os.makedirs(out, exist_ok=True)
    if set(only) != set(KINDS) and os.path.exists(os.path.join(out, "multi.csv")):   # the last run's other rows
        done = {(r["program"], r["kind"]) for r in rows}
        rows = [r for r in load(out)[0] if (r["program"], r["kind"]) not in done] + rows
    fields = list(dict.fromkeys(list(rows[0].keys()) + ["program", "kind", "form", "wall_s", "check_wall_s"]))
    write_csv(os.path.join(out, "multi.csv"), rows, fields, extrasaction="ignore")
    return out


# ---- tables --------------------------------------------------------------------
def us(r):
    return float(r["median_us"])


def fmt_us(t):
    return f"{t:,.0f}" if t >= 1000 else f"{t:.1f}" if t >= 100 else f"{t:.2f}"


# How the tables name each way of launching a step.
FORM_NAME = {"process": "one process", "mpirun": "mpirun, a process a GPU"}


def weak_table(by, one08, step, gmax, forms):
    """Weak scaling: 2^28 elements per GPU, against the same step on one GPU."""
    base = by.get((step, "weak", "process", 1, WEAK_PER_GPU))
    lines = ["### Weak scaling: 2^28 elements per GPU", "",
             "| GPUs | launched as | n | median time (µs) | GB/s, all GPUs | efficiency |",
             "|--:|---|--:|--:|--:|--:|"]
    if one08:
        lines.append(f"| 1 | step 08 | 2^28 | {fmt_us(us(one08))} | {float(one08['gbps']):.0f} | – |")
    for g in range(1, gmax + 1):
        for form in forms:
            r = by.get((step, "weak", form, g, g * WEAK_PER_GPU))
            if not r:
                continue
            eff = float(r["gbps"]) / (g * float(base["gbps"])) if base else float("nan")
            lines.append(f"| {g} | {FORM_NAME[form]} | {power_label(int(r['n']))} | "
                         f"{fmt_us(us(r))} | {float(r['gbps']):.0f} | {eff:.2f} |")
    return lines + ["", f"Efficiency: the GPUs' bandwidth together over G times step {step}'s on one GPU "
                        "(one process), same run.", ""]


def strong_table(by, step, gmax, forms):
    """Strong scaling: 2^30 elements in all, against the same step on one GPU."""
    lines = ["### Strong scaling: 2^30 elements in all", "",
             "| GPUs | launched as | median time (µs) | speed-up over one GPU | efficiency |",
             "|--:|---|--:|--:|--:|"]
    s1 = by.get((step, "strong", "process", 1, STRONG))
    for g in range(1, gmax + 1):
        for form in forms:
            r = by.get((step, "strong", form, g, STRONG))
            if not r:
                continue
            sp = us(s1) / us(r) if s1 else float("nan")
            lines.append(f"| {g} | {FORM_NAME[form]} | {fmt_us(us(r))} | {sp:.2f} | {sp / g:.2f} |")
    return lines + [""]


def combine_table(by, step, gmax, forms):
    """The collective and the final sum alone (--combine-only), per call."""
    what = "the all-gather of the chunk sums" if step == "09" else "the all-reduce of the 14 words"
    lines = ["### The combine alone, per call", "",
             f"{what[0].upper() + what[1:]} and the final sum, timed alone (`--combine-only`).", "",
             "| GPUs | launched as | n | median time (µs) |", "|--:|---|--:|--:|"]
    for g in range(1, gmax + 1):
        for form in forms:
            for n in sorted({g * WEAK_PER_GPU, STRONG}):
                r = by.get((step, "combine", form, g, n))
                if r:
                    lines.append(f"| {g} | {FORM_NAME[form]} | {power_label(n)} | {fmt_us(us(r))} |")
    return lines + [""]


def crossovers(by, step, gmax, forms, kind="sweep"):
    """{(G, form): the smallest n of the sweep from which G GPUs beat one, or None}."""
    out = {}
    for g in range(2, gmax + 1):
        for f in forms:
            out[(g, f)] = None
            for n in SWEEP:
                r, one = by.get((step, kind, f, g, n)), by.get((step, kind, "process", 1, n))
                if r and one and us(r) < us(one):
                    out[(g, f)] = n
                    break
    return out


def sweep_table(by, step, gmax, forms):
    """The small sizes, one column per GPU count and form, and from which n
    each count of GPUs beats one."""
    cols = [(g, f) for g in range(1, gmax + 1) for f in forms if g > 1 or f == "process"]
    lines = ["### Small arrays: where one GPU is faster" if gmax > 1 else "### Small arrays, on one GPU", "",
             "| n | " + " | ".join(f"{g} GPU{'s' if g > 1 else ''} ({FORM_NAME[f]})" for g, f in cols) + " |",
             "|--:|" + "--:|" * len(cols)]
    for n in SWEEP:
        cells = [by.get((step, "sweep", f, g, n)) for g, f in cols]
        lines.append(f"| {power_label(n)} | " + " | ".join(fmt_us(us(r)) if r else "–" for r in cells) + " |")
    lines.append("")
    if gmax == 1:
        lines.append("- One GPU only: where several become faster needs a run on two GPUs or more.")
    for (g, f), n in crossovers(by, step, gmax, forms).items():
        lines.append(f"- {g} GPUs ({FORM_NAME[f]}): " +
                     (f"faster than one from n = {power_label(n)} on (median times, µs)." if n
                      else "not faster than one GPU at any n of the sweep."))
    return lines + [""]


def wait_table(by, gmax):
    """--wait-each's sweep: a loop that waits for every sum, steps 09 and 10
    side by side, and from which n G GPUs beat one there and when queued."""
    cols = [(s, g) for s in ("09", "10") for g in range(1, gmax + 1) if by.get((s, "wait", "process", g, SWEEP[0]))]
    if not cols:
        return []
    lines = ["## A loop that waits for every sum", "",
             "| n | " + " | ".join(f"step {s}, {g} GPU{'s' if g > 1 else ''}" for s, g in cols) + " |",
             "|--:|" + "--:|" * len(cols)]
    for n in SWEEP:
        cells = [by.get((s, "wait", "process", g, n)) for s, g in cols]
        lines.append(f"| {power_label(n)} | " + " | ".join(fmt_us(us(r)) if r else "–" for r in cells) + " |")
    lines.append("")
    for s in sorted({s for s, _ in cols}):
        waited, queued = crossovers(by, s, gmax, ["process"], "wait"), crossovers(by, s, gmax, ["process"])
        for g in range(2, gmax + 1):
            if (g, "process") not in waited or not by.get((s, "wait", "process", g, SWEEP[0])):
                continue
            w, q = waited[(g, "process")], queued.get((g, "process"))
            lines.append(f"- Step {s}, {g} GPUs: faster than one from n = "
                         f"{power_label(w) if w else 'none of the sweep'} when each sum is waited for; "
                         f"{power_label(q) if q else 'none of the sweep'} when queued.")
    return lines + ["", "Median µs per sum by the host's clock, from the call to the end of the wait "
                        "(`--wait-each`, cold L2, 100 runs; one process driving the GPUs).", ""]


def brief_table(by, step, gmax):
    """One row per count of GPUs (one process): weak and strong scaling, the
    combine per call, and from which n of the sweep G GPUs beat one. The
    chapters show this section; the full tables follow it."""
    lines = [f"## {STEP_NAME[step]} in brief", "",
             "| GPUs | weak: GB/s, all GPUs | weak: efficiency | strong: time at 2^30 (µs) | strong: speed-up "
             "| combine per call (µs) | faster than one GPU from n = |",
             "|--:|--:|--:|--:|--:|--:|--:|"]
    base_w = by.get((step, "weak", "process", 1, WEAK_PER_GPU))
    base_s = by.get((step, "strong", "process", 1, STRONG))
    cross = crossovers(by, step, gmax, ["process"])
    for g in range(1, gmax + 1):
        w = by.get((step, "weak", "process", g, g * WEAK_PER_GPU))
        st = by.get((step, "strong", "process", g, STRONG))
        c = by.get((step, "combine", "process", g, STRONG))
        if not (w and st):
            continue
        eff = float(w["gbps"]) / (g * float(base_w["gbps"])) if base_w else float("nan")
        sp = us(base_s) / us(st) if base_s else float("nan")
        x = "–" if g == 1 else power_label(cross[(g, "process")]) if cross.get((g, "process")) else "never"
        lines.append(f"| {g} | {float(w['gbps']):.0f} | {eff:.2f} | {fmt_us(us(st))} | {sp:.2f} | "
                     f"{fmt_us(us(c)) if c else '–'} | {x} |")
    gaps = [abs(us(r) / us(p) - 1) for (st_, k, f, g, n), r in by.items()
            if st_ == step and f == "mpirun" and k in ("weak", "strong")
            for p in [by.get((step, k, "process", g, n))] if p]
    mpi = (f" Under mpirun (a process a GPU) the same runs' times were within {100 * max(gaps):.1f}% of "
           "these (the full tables below)." if gaps else "")
    return lines + ["", "Weak: 2^28 elements per GPU; efficiency, the GPUs' bandwidth together over G times "
                        "one GPU's. Strong: 2^30 in all. One process driving the GPUs." + mpi, ""]


def pieces_table(out_dir):
    """lab/multi-gpu/collectives.cu's CSV, where it was run beside: each piece
    of a small run timed alone, per count of GPUs."""
    path = os.path.join(out_dir, "collectives.csv")
    if not os.path.exists(path):
        return []
    rows = read_csv(path)
    gs = sorted({int(r["gpus"]) for r in rows})
    pieces = list(dict.fromkeys(r["piece"] for r in rows))
    at = {(r["piece"], int(r["gpus"])): r for r in rows}
    lines = ["## Where a small sum's microseconds go", "",
             "| piece, on every GPU | " + " | ".join(f"{g} GPU{'s' if g > 1 else ''}" for g in gs) + " |",
             "|---|" + "--:|" * len(gs)]
    for p in pieces:
        lines.append(f"| {p} | " + " | ".join(fmt_us(float(at[(p, g)]["median_us"])) if (p, g) in at else "–"
                                               for g in gs) + " |")
    host = [at[(p, gs[-1])] for p in pieces if (p, gs[-1]) in at and "all-gather" in p and "kernel" not in p]
    return lines + ["", "Median µs per call, empty kernels, one process driving the GPUs, calls queued back to back "
                        "as the harness queues its runs (`lab/multi-gpu/collectives.cu`, `collectives.csv`)." +
                    (f" Queueing one all-gather on {gs[-1]} GPUs took the host {float(host[0]['host_us']):.1f} µs."
                     if host else ""), ""]


def large_table(rows):
    """The sums larger than one GPU holds."""
    big = [r for r in rows if r["kind"] == "large"]
    if not big:
        return []
    lines = ["## Larger than one GPU", "",
             "| step | GPUs | n | GiB | result | median time (µs) | GB/s, all GPUs | CPU: draw, exact sum, one check (s) |",
             "|---|--:|--:|--:|---|--:|--:|--:|"]
    for r in big:
        lines.append(f"| {r['program']} | {r['gpus']} | {power_label(int(r['n']))} | {int(r['bytes']) / 2**30:.0f} | "
                     f"{r['status']} | {fmt_us(us(r))} | {float(r['gbps']):.0f} | {r.get('check_wall_s') or '–'} |")
    return lines + ["", "The last column: the wall time of the same run with `--check-only` (starting NCCL, "
                        "drawing the input on the CPU and copying it to the GPUs, its exact sum, one checked "
                        "run).", ""]


def load(out_dir):
    rows = read_csv(os.path.join(out_dir, "multi.csv"))
    for r in rows:
        r.setdefault("program", r.get("step", "")[:2])
        if not r.get("program"):
            r["program"] = r["step"][:2]
    by = {(r["program"], r["kind"], r["form"], int(r.get("gpus") or 1), int(r["n"])): r for r in rows}
    return rows, by


def tables(out_dir):
    """Writes multi.md from DIR/multi.csv: per step, the weak, strong, combine
    and small-array tables; then the larger-than-one-GPU runs. Returns its text."""
    rows, by = load(out_dir)
    device = rows[0]["device"]
    wrong = [r for r in rows if r["status"] != "OK"]
    gmax = max(int(r.get("gpus") or 1) for r in rows if r["kind"] != "step08")
    one08 = by.get(("08", "step08", "one", 1, WEAK_PER_GPU))
    steps = [s for s in ("09", "10") if any(r["program"] == s and r["kind"] != "step08" for r in rows)]
    lines = [f"# Steps {' and '.join(steps)} on {gmax} × {device}", ""]
    if wrong:
        lines += [f"**{len(wrong)} runs were WRONG**: " +
                  ", ".join(f"step {r['program']} {r['kind']} n={r['n']}" for r in wrong[:5]), ""]
    else:
        lines += [f"Every one of the {len(rows)} runs below was checked: OK.", ""]
    for step in steps:
        lines += brief_table(by, step, gmax)
    lines += large_table(rows)
    lines += pieces_table(out_dir)
    lines += wait_table(by, gmax)
    for step in steps:
        forms = [f for f in ("process", "mpirun") if any(r["form"] == f and r["program"] == step for r in rows)]
        lines += [f"## {STEP_NAME[step]}", ""]
        lines += weak_table(by, one08, step, gmax, forms)
        lines += strong_table(by, step, gmax, forms)
        lines += combine_table(by, step, gmax, forms)
        lines += sweep_table(by, step, gmax, forms)
    lines += [f"(median times of the harness's timed runs, cold L2; `make compare-multi` on {gmax} × {device}; "
              f"`{os.path.relpath(os.path.join(out_dir, 'multi.csv'), ROOT)}`)", ""]
    with open(os.path.join(out_dir, "multi.md"), "w") as f:
        f.write("\n".join(lines))
    return "\n".join(lines)


def plot(out_dir):
    if not shutil.which("gnuplot"):
        return "compare-multi: gnuplot is not installed (apt-get install gnuplot-nox); no scaling.svg"
    rows, _ = load(out_dir)
    series = {}
    for r in rows:
        if r["kind"] == "sweep":
            series.setdefault((r["program"], int(r.get("gpus") or 1), r["form"]), []).append((int(r["n"]), us(r)))
    data = os.path.join(out_dir, "scaling.dat")
    names, styles = [], []
    colours = list(dict.fromkeys(c for c, _ in STYLE.values())) + SPARE     # every series its own
    with open(data, "w") as f:
        for i, ((step, g, form), pts) in enumerate(sorted(series.items())):
            names.append(f"step {step}, {g} GPU{'s' if g > 1 else ''}" + ("" if form == "process" else " (mpirun)"))
            styles.append(f"lc rgb '{colours[i % len(colours)]}' "
                          f"dt {1 if step == '09' else 2} pt {4 + 2 * (step == '10')}")
            for n, t in sorted(pts):
                f.write(f"{n} {t}\n")
            f.write("\n\n")
    script = [
        "set terminal svg size 900,600 dynamic font 'sans,16'",
        f"set output '{os.path.join(out_dir, 'scaling.svg')}'",
        "set logscale xy 2", "set format x '2^{%L}'", "set xlabel 'n (elements)'",
        "set ylabel 'median time per sum (µs)'", "set key below", "set grid",
        "plot " + ", ".join(f"'{data}' index {i} with linespoints lw 2 {styles[i]} title '{name}'"
                            for i, name in enumerate(names)),
    ]
    p = subprocess.run(["gnuplot"], input="\n".join(script), text=True, capture_output=True)
    os.remove(data)
    return "compare-multi: scaling.svg drawn" if p.returncode == 0 else f"compare-multi: gnuplot failed: {p.stderr[:200]}"


def main():
    ap = argparse.ArgumentParser(description="steps 09 and 10 on one GPU and on several")
    ap.add_argument("--gpus", type=int, help="at most this many GPUs (default: every GPU here)")
    ap.add_argument("--steps", default="09,10", help="which steps (default 09,10)")
    ap.add_argument("--large", type=parse_n, help="also one sum of N elements on every GPU asked for")
    ap.add_argument("--large-only", action="store_true",
                    help="with --large: only that run, put beside the rows of the last full run")
    ap.add_argument("--only", help=f"only these kinds ({','.join(KINDS)}), put beside the rows of the "
                                   "last run")
    ap.add_argument("--from", dest="from_dir", help="only the tables and the plot, from DIR/multi.csv")
    a = ap.parse_args()
    if a.from_dir:
        out = a.from_dir
    else:
        have = gpu_count()
        if have < 1:
            print("compare-multi: no GPU here (nvidia-smi finds none); nothing was measured", file=sys.stderr)
            sys.exit(3)
        steps = [s.strip() for s in a.steps.split(",") if s.strip()]
        bad = [s for s in steps if s not in STEPS]
        if bad:
            ap.error(f"--steps: {','.join(bad)}: choose from {','.join(STEPS)}")
        if a.large_only and not a.large:
            ap.error("--large-only needs --large N")
        only = ["large"] if a.large_only else a.only.split(",") if a.only else KINDS
        bad = [k for k in only if k not in KINDS]
        if bad:
            ap.error(f"--only: {','.join(bad)}: choose from {','.join(KINDS)}")
        if "large" in only and not a.large and a.only:
            ap.error("--only large needs --large N")
        out = measure(min(a.gpus or have, have), steps, a.large, only)
    print(tables(out))
    print(plot(out))


if __name__ == "__main__":
    main()
