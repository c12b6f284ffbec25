#!/usr/bin/env python3
"""compare.py: every step and CUB side by side (this is `make compare`).

    python3 bench/compare.py                 # measure on this GPU, write results/<gpu>/
    python3 bench/compare.py --max-n 2^30    # a longer sweep, where memory allows
    python3 bench/compare.py --from results/nvidia-h200   # tables and plots from saved CSVs
    python3 bench/compare.py --only 07_cooperative,10_exact,cub   # those again, the rest kept

Measuring runs each program once over the whole size sweep (--csv, one
process per program, so every size sees the same input as every other
program), then again with the input left in L2 (--warm), then once more at
2^24 for 20 runs to see whether the result bits change, then the bandwidth
ceiling and, at every size, the floor: the read-only kernel for that n, cold and
warm, and the empty kernel. The programs are the steps the Makefile
lists, CUB's default sum and, where CCCL's newer headers were found at build
time, CUB's gpu_to_gpu mode (a SKIP line says how to get it otherwise), and
what a user would call instead, torch.sum and cupy.sum on a float32 CUDA
array, where python3 can import them (bench/torch_sum.py times them the
harness's way; one SKIP line names those it cannot). It writes, in results/<gpu>/:
    compare.csv       one row per program and size (the harness's CSV columns)
    compare-warm.csv  the same, with the input in L2 (--warm)
    floor.csv         the read-only kernel at each size (cold, warm), the empty kernel
    determinism.csv   one row per program at 2^24, 20 runs
    ceiling.csv       read-only kernel, device copy, empty kernel
    compare.md        the tables below, in Markdown
    grid_*.md, ceiling.md   the tables the chapters include (bench/compare_tables.py)
    bandwidth.svg, bars.svg   plots (needs gnuplot; see bench/plots.py)
and prints the tables: median time, GB/s and % of peak, speedup over the
previous step, CUB's time over each step's (above 1: faster than CUB), and
determinism. Only the Python standard library is used (bench/torch_sum.py
needs NumPy, and the library it times).
"""
import argparse
import csv
import importlib.util
import io
import os
import subprocess
import sys
import time

import compare_tables
from array_libs import LIBS
from lib import ROOT, fmt_time, gpu_turn, make_list, md_table, parse_n, power_label, progress, read_csv, \
    run_csv, slug, write_csv
from peak import gbps_of, gbps_text, nominal_peak

CUB = ("cub", "./build/bench/cub_sum")
CUB_G2G = ("cub_gpu_to_gpu", "./build/bench/cub_gpu_to_gpu")
STEP00_CAP = 2 ** 28      # one atomic per element: about half a second per run there
SMALL = 2 ** 22           # sizes up to this get more timed runs (their times are short)
DETERMINISM_N = 2 ** 24
DETERMINISM_RUNS = 20     # the checked run, the warm-up and 18 timed runs


# ---- measuring ---------------------------------------------------------------
def programs():
    """(name, command) of every step the Makefile lists (a step for several
    GPUs on one, where it was built), then the CUB baselines."""
    multi = make_list("print-multi-steps")
    found = []
    for name in make_list("print-steps"):
        prog = f"./step{name[:2]}"
        if name not in multi:
            found.append((name, prog))
        elif os.path.exists(os.path.join(ROOT, prog)):
            found.append((name, f"{prog} --gpus 1"))
        else:
            progress(f"SKIP {name}: not built (make {prog[2:]} says what it needs)")
    found.append(CUB)
    if os.path.exists(os.path.join(ROOT, CUB_G2G[1])):
        found.append(CUB_G2G)
    else:
        progress("SKIP cub_gpu_to_gpu: not built (CUB's gpu_to_gpu mode needs newer CCCL headers: "
                 "pip install nvidia-cuda-cccl, then make bench)")
    missing = [name for name, lib in LIBS.items() if importlib.util.find_spec(lib) is None]
    found += [(name, f"python3 bench/torch_sum.py --lib {lib}") for name, lib in LIBS.items() if name not in missing]
    if missing:
        progress(f"SKIP {', '.join(missing)}: python3 cannot import {' or '.join(LIBS[m] for m in missing)} "
                 "(pip install torch, or cupy-cuda12x / cupy-cuda13x), so the comparison has no rows for "
                 + ("it" if len(missing) == 1 else "them"))
    return found


def ceiling_and_floor(sizes):
    """What the GPU can read, copy and launch (at the largest size), and the
    read-only kernel at every size, cold and warm: build/bench/ceiling's rows."""
    progress("[ceiling] read-only kernel, device copy, empty kernel")
    p = subprocess.run(["./build/bench/ceiling", "--csv", "--n", str(max(sizes))], cwd=ROOT,
                       capture_output=True, text=True)
    ceiling = list(csv.DictReader(io.StringIO(p.stdout))) if p.returncode == 0 else []
    progress("[floor] read-only kernel at every size, cold and warm; empty kernel")
    p = subprocess.run(["./build/bench/ceiling", "--floor", ",".join(map(str, sizes))], cwd=ROOT,
                       capture_output=True, text=True)
    floor = list(csv.DictReader(io.StringIO(p.stdout))) if p.returncode == 0 else []
    return ceiling, floor


def measure(sizes, out_dir_root, only=None):
    rows, warm_rows, det_rows, notes = [], [], [], {}
    progs = [p for p in programs() if not only or p[0] in only]
    if only and len(progs) < len(only):
        sys.exit(f"compare: --only: {', '.join(sorted(set(only) - {p[0] for p in progs}))}: no such program "
                 f"(choose from {', '.join(p[0] for p in programs())})")
    for i, (name, prog) in enumerate(progs):
        progress(f"[{i + 1}/{len(progs)}] {name}")
        mine = [n for n in sizes if not (name == "00_naive" and n > STEP00_CAP)]
        if len(mine) < len(sizes):
            notes[name] = f"capped at {power_label(STEP00_CAP)}"
        small = [n for n in mine if n <= SMALL]
        large = [n for n in mine if n > SMALL]
        peak = ["--peak-gbps", f"{nominal_peak([r for r in rows if r['step'] not in LIBS]):.1f}"] if name in LIBS else []
        for group, extra in ((small, ["--reps", "200"] + peak), (large, peak)):
            if group:
                got, note = run_csv(prog.split() + ["--csv", "--n", ",".join(map(str, group))] + extra,
                                    f"n = {power_label(group[0])} .. {power_label(group[-1])}")
                rows += got
                if note:
                    notes[name] = note
                got, note = run_csv(prog.split() + ["--csv", "--warm", "--n", ",".join(map(str, group))] + extra,
                                    f"warm, n = {power_label(group[0])} .. {power_label(group[-1])}")
                warm_rows += got
        got, note = run_csv(prog.split() + ["--csv", "--n", str(DETERMINISM_N), "--reps",
                             str(DETERMINISM_RUNS - 2)], f"determinism at {power_label(DETERMINISM_N)}")
        det_rows += got
    ceiling, floor = ([], []) if only else ceiling_and_floor(sizes)
    if not rows:
        sys.exit("compare: no program produced results (is there a GPU?)")
    out_dir = os.path.join(out_dir_root, slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    if only:      # the other programs' rows as the last full run left them
        def merged(name, new):
            path = os.path.join(out_dir, name)
            old = [r for r in read_csv(path) if r["step"] not in only] if os.path.exists(path) else []
            return old + new
        rows, warm_rows, det_rows = merged("compare.csv", rows), merged("compare-warm.csv", warm_rows), \
            merged("determinism.csv", det_rows)
    fields = list(rows[0].keys())
    write_csv(os.path.join(out_dir, "compare.csv"), rows, fields)
    write_csv(os.path.join(out_dir, "determinism.csv"), det_rows, fields)
    if warm_rows:
        write_csv(os.path.join(out_dir, "compare-warm.csv"), warm_rows, fields)
    if floor:
        write_csv(os.path.join(out_dir, "floor.csv"), floor, list(floor[0].keys()))
    if ceiling:
        write_csv(os.path.join(out_dir, "ceiling.csv"), ceiling, list(ceiling[0].keys()))
    if notes:
        with open(os.path.join(out_dir, "notes.txt"), "w") as f:
            for k, v in notes.items():
                f.write(f"{k}: {v}\n")
    return out_dir


# ---- tables -------------------------------------------------------------------
def ratio(r):
    """Two decimals, or two significant digits for small ratios (0.0043)."""
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


class Results:
    """The saved CSVs of one GPU, indexed for the tables."""

    def __init__(self, out_dir, name="compare.csv"):
        self.dir = out_dir
        self.warm = name == "compare-warm.csv"
        self.rows = read_csv(os.path.join(out_dir, name))
        det = os.path.join(out_dir, "determinism.csv")
        self.det = {r["step"]: r for r in read_csv(det)} if os.path.exists(det) else {}
        ceil = os.path.join(out_dir, "ceiling.csv")
        self.ceiling = {r["kind"]: r for r in read_csv(ceil)} if os.path.exists(ceil) else {}
        notes = os.path.join(out_dir, "notes.txt")
        self.notes = {}
        if os.path.exists(notes):
            for line in open(notes):
                k, _, v = line.partition(":")
                self.notes[k.strip()] = v.strip()
        self.device = self.rows[0]["device"]
        self.programs = []
        self.by = {}
        for r in self.rows:
            if r["step"] not in self.programs:
                self.programs.append(r["step"])
            self.by[(r["step"], int(r["n"]))] = r
        self.sizes = sorted({int(r["n"]) for r in self.rows})
        self.peak = nominal_peak([r for r in self.rows if r["step"] not in LIBS])
        self.read_ceiling = float(self.ceiling["read"]["gbps"]) if "read" in self.ceiling else 0.0
        # The floor: the read-only kernel at each n (cold or warm, as these rows), the empty kernel.
        fl = os.path.join(out_dir, "floor.csv")
        kind = "floor_warm" if self.warm else "floor"
        self.floor, self.empty = {}, None
        for r in read_csv(fl) if os.path.exists(fl) else []:
            if r["kind"] == kind:
                self.floor[int(r["bytes"]) // 4] = float(r["median_us"])
            elif r["kind"] == "empty":
                self.empty = float(r["median_us"])

    def time(self, prog, n):
        r = self.by.get((prog, n))
        return float(r["median_us"]) if r and r["status"] == "OK" else None

    def cell(self, prog, n, what):
        r = self.by.get((prog, n))
        if r is None:
            return "-"
        if r["status"] != "OK":
            return "WRONG"
        t = float(r["median_us"])
        if what == "time":
            return fmt_time(t)
        if what == "gbps":
            return gbps_text(gbps_of(r))
        if what == "pct":
            return f"{float(r['pct_peak']):.1f}%"
        if what == "achievable":
            return f"{100 * gbps_of(r) / self.read_ceiling:.1f}%" if self.read_ceiling else "-"
        if what == "speedup":
            i = self.programs.index(prog)
            if prog.startswith("cub") or prog in LIBS or i == 0:
                return ""
            prev = self.time(self.programs[i - 1], n)
            return ratio(prev / t) + "×" if prev else "-"
        if what in ("vs_cub", "vs_g2g"):
            cub = self.time("cub" if what == "vs_cub" else CUB_G2G[0], n)
            return ratio(cub / t) if cub else "-"
        raise ValueError(what)

    def determinism(self, prog):
        r = self.det.get(prog)
        if r is None:
            return "-"
        runs, distinct = int(r["runs"]), int(r["distinct"])
        if r["status"] != "OK":
            return "WRONG"
        if distinct == 1 and r.get("replica") == "equal":
            return f"identical ({runs} runs), the CPU replica's: any GPU"
        exact = r.get("depth") == "0" and r.get("sum_hex") and r.get("sum_hex") == r.get("reference_hex")
        if distinct == 1 and exact:                 # step 10: checked by its bits, and they are the reference's
            return f"identical ({runs} runs), the exact sum's: any order"
        if distinct == 1:
            return f"identical ({runs} runs)"
        return f"{distinct} distinct of {runs}, spread {float(r['spread_ulp']):.0f} ulp"


TABLES = [
    ("time", "Median time per sum"),
    ("gbps", "Bandwidth, GB/s (4n bytes / median time)"),
    ("pct", "Share of nominal peak bandwidth"),
    ("achievable", "Share of the measured read-only ceiling"),
    ("speedup", "Speedup over the previous step (its time / this time)"),
    ("vs_cub", "CUB's time / this time (above 1: faster than CUB)"),
    ("vs_g2g", "CUB gpu_to_gpu's time / this time (above 1: faster than CUB's reproducible mode)"),
]


def table(res, what, sizes, markdown):
    head = ["program"] + [power_label(n) for n in sizes]
    if what == "time":
        head.append(f"bits at {power_label(DETERMINISM_N)}")
    body = []
    for prog in res.programs:
        row = [prog] + [res.cell(prog, n, what) for n in sizes]
        if what == "time":
            row.append(res.determinism(prog))
        body.append(row)
    if what in ("time", "gbps") and res.floor:
        cell = (lambda us, n: fmt_time(us)) if what == "time" else (lambda us, n: gbps_text(4 * n / us / 1e3))
        row = ["floor: read-only kernel"] + [cell(res.floor[n], n) if n in res.floor else "-" for n in sizes]
        body.append(row + ([""] if what == "time" else []))
        if what == "time" and res.empty:
            body.append(["floor: empty kernel"] + [fmt_time(res.empty)] * len(sizes) + [""])
    if markdown:
        return md_table(head, body)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 or (what == "time" and i == len(r) - 1) else c.rjust(w)
                              for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(head)] + [fmt(r) for r in body])


def summary(res):
    lines = [f"{res.device}: nominal peak {res.peak:.0f} GB/s"]
    if res.ceiling:
        c = res.ceiling
        lines.append(f"measured: read-only kernel {float(c['read']['gbps']):.0f} GB/s, device copy "
                     f"{float(c['copy']['gbps']):.0f} GB/s (read + write), empty kernel "
                     f"{float(c['empty']['median_us']):.2f} µs")
    for k, v in res.notes.items():
        lines.append(f"note: {k} {v}")
    return lines


WARM_TABLES = [
    ("time", "Median time per sum, warm L2 (the input left in L2)"),
    ("vs_cub", "CUB's time / this time, warm L2"),
]


def render(res, terminal_sizes, warm=None):
    text, md = [], [f"# {res.device}", ""]
    for line in summary(res):
        text.append(line)
        md.append(f"- {line}")
    for what, title in TABLES:
        if what == "vs_g2g" and CUB_G2G[0] not in res.programs:
            continue
        text += ["", title, table(res, what, terminal_sizes, False)]
        md += ["", f"## {title}", "", table(res, what, res.sizes, True)]
    for what, title in WARM_TABLES if warm else []:
        text += ["", title, table(warm, what, terminal_sizes, False)]
        md += ["", f"## {title}", "", table(warm, what, warm.sizes, True)]
    return "\n".join(text), "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description="every step and CUB side by side")
    ap.add_argument("--min-n", default="2^10")
    ap.add_argument("--max-n", default="2^28")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--from", dest="from_dir", help="only tables and plots, from saved CSVs")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--only", help="measure only these programs (07_cooperative,10_exact,cub...) and put "
                                   "their rows in place of the last run's, the others kept")
    a = ap.parse_args()

    if a.from_dir:
        out_dir = a.from_dir
    else:
        lo, hi = parse_n(a.min_n), parse_n(a.max_n)
        sizes = [2 ** k for k in range(lo.bit_length() - 1, hi.bit_length()) if lo <= 2 ** k <= hi]
        gpu_turn()
        t0 = time.time()
        out_dir = measure(sizes, a.out, [p.strip() for p in a.only.split(",")] if a.only else None)
        progress(f"measured in {time.time() - t0:.0f} s; results in {os.path.relpath(out_dir, ROOT)}")

    res = Results(out_dir)
    warm_path = os.path.join(out_dir, "compare-warm.csv")
    warm = Results(out_dir, "compare-warm.csv") if os.path.exists(warm_path) else None
    every_other = [n for n in res.sizes if (n.bit_length() - 1) % 2 == 0] or res.sizes
    text, md = render(res, every_other, warm)
    with open(os.path.join(out_dir, "compare.md"), "w") as f:
        f.write(md)
    compare_tables.write_tables(out_dir, os.path.relpath(out_dir, ROOT))
    print(text)
    print(f"\n(all sizes in {os.path.relpath(os.path.join(out_dir, 'compare.md'), ROOT)})")
    if not a.no_plots:
        import plots
        msg = plots.draw(out_dir)
        print(msg)


if __name__ == "__main__":
    main()
