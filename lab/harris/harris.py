#!/usr/bin/env python3
"""harris.py: Harris's seven reduction kernels beside the course's steps (this is `make harris`).

    python3 lab/harris/harris.py                  # measure on this GPU, write results/<gpu>/
    python3 lab/harris/harris.py --from results/nvidia-h100-80gb-hbm3   # harris.md again, from harris.csv

Measuring runs every program in the exact build (32-bit unsigned integers,
like the slides' ints): the seven kernels of lab/harris/harris.cu (kernel 7 three
times: on grids of 64 and 256 blocks, the G80's sizes, and on the grid it
picks, which fills this GPU) and steps 01-07. Each program runs once with the
input not in L2 and once with it left there (--warm), at 2^20, 2^22 (the
slides' size), 2^24 and 2^28, 100 timed runs each. Then compute-sanitizer's
racecheck looks at kernels 5 and 6, whose last warp relies on lock-step. It
writes, in results/<gpu>/:
    harris.csv             one row per program, size and L2 state: a label,
                           the harness's CSV columns, the GPU's SMs and
                           compute capability
    harris.md              the tables: at 2^22 beside the G80's figures
                           (lab/harris/harris_g80.csv, from the slides), then the
                           steps, then every size
    harris_racecheck.txt   what racecheck said
    harris_racecheck.md    of each run, the command, its first warning and
                           its summary line (the appendix shows it)
    harris_summary.csv     one row per program: its runs checked over every
                           size and L2 state, the sizes where one was wrong
                           ("none"), and for a kernel the G80's time at 2^22
                           over this one (vs_g80); the appendix quotes it
and lab/harris/harris_g80.md, the slides' figures as a table. Only the
Python standard library is used.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))  # bench/lib.py
from lib import ROOT, fmt_time, make_list, md_table, power_label, progress, read_csv, slug, write_csv  # noqa: E402
from peak import gbps_of, gbps_text, nominal_peak  # noqa: E402

G80 = os.path.join(ROOT, "lab", "harris", "harris_g80.csv")
SIZES = [2 ** 20, 2 ** 22, 2 ** 24, 2 ** 28]
MAIN_N = 2 ** 22
REPS = 100
RACECHECK_N = "2^12"
KERNEL = "build/exact/harris/harris{}"
STEPS = ("01", "02", "03", "04", "05", "06", "07")   # the steps the kernels are set beside


# ---- measuring ---------------------------------------------------------------
def programs():
    """(label, command) of each program, in the order of the tables."""
    found = [(f"harris_{k}", [KERNEL.format(k)]) for k in range(1, 7)]
    found += [("harris_7_grid64", [KERNEL.format(7), "--grid", "64"]),
              ("harris_7_grid256", [KERNEL.format(7), "--grid", "256"]),
              ("harris_7", [KERNEL.format(7)])]
    for name in make_list("print-steps"):        # 01_shared_memory, ...
        if name[:2] in STEPS:
            found.append((name, [f"build/exact/step{name[:2]}"]))
    return found


def probe():
    """The GPU's name, SMs and compute capability, from a program's header line."""
    p = subprocess.run([KERNEL.format(1), "--check-only", "--n", "1"], cwd=ROOT,
                       capture_output=True, text=True)
    m = re.search(r"^# \S+ on (.+) \(sm_(\d+)(\d), (\d+) SMs", p.stdout, re.M)
    if p.returncode != 0 or not m:
        why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        sys.exit(f"make harris: no usable GPU here ({why}); nothing was measured")
    return m.group(1), m.group(4), f"{m.group(2)}.{m.group(3)}"


def csv_rows(cmd):
    """Runs a program with --csv; its rows, or the end of make harris where it failed (exit 1 is a WRONG row, kept)."""
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.stdout.strip() else []
    if p.returncode not in (0, 1) or not rows:
        sys.exit(f"make harris: {' '.join(cmd)} failed: " +
                 ((p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]))
    return rows


def racecheck():
    """compute-sanitizer's racecheck on kernels 5 and 6: the commands and what they printed."""
    try:
        version = subprocess.run(["compute-sanitizer", "--version"], capture_output=True, text=True)
    except FileNotFoundError:
        progress("SKIP racecheck: compute-sanitizer is not on the PATH (it is in the CUDA Toolkit's bin/)")
        return None
    out = [line for line in version.stdout.splitlines() if line.startswith("Version")][:1]
    for k in (5, 6):
        cmd = ["compute-sanitizer", "--tool", "racecheck", KERNEL.format(k), "--check-only", "--n", RACECHECK_N]
        progress(f"[racecheck] kernel {k}")
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out += ["", "$ " + " ".join(cmd)] + p.stdout.rstrip().splitlines()
        out.append(f"(exit status {p.returncode})")
    return "\n".join(out) + "\n"


def measure(out_root):
    t0 = time.time()
    device, sms, cc = probe()
    sizes = ",".join(str(n) for n in SIZES)
    rows = []
    for i, (label, cmd) in enumerate(programs()):
        for warm in ([], ["--warm"]):
            progress(f"[{i + 1}/{len(programs())}] {label}{' (warm L2)' if warm else ''}")
            for r in csv_rows(cmd + ["--csv", "--n", sizes, "--reps", str(REPS)] + warm):
                rows.append({"label": label, **r, "sms": sms, "cc": cc})
    out_dir = os.path.join(out_root, slug(device))
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "harris.csv"), rows, list(rows[0].keys()))
    text = racecheck()
    if text:
        with open(os.path.join(out_dir, "harris_racecheck.txt"), "w") as f:
            f.write(text)
    progress(f"measured in {time.time() - t0:.0f} s")
    return out_dir


# ---- tables -------------------------------------------------------------------
def ratio(a, b):
    """a / b as 2.33×, or empty where either is missing."""
    return f"{a / b:.2f}×" if a and b else ""


class Runs:
    """harris.csv, indexed by label, n and L2 state."""

    def __init__(self, out_dir):
        self.rows = read_csv(os.path.join(out_dir, "harris.csv"))
        self.by = {(r["label"], int(r["n"]), r["l2"]): r for r in self.rows}
        self.labels = list(dict.fromkeys(r["label"] for r in self.rows))
        self.sizes = sorted({int(r["n"]) for r in self.rows})
        first = self.rows[0]
        self.device, self.sms, self.cc = first["device"], first["sms"], first["cc"]
        # The GPU's nominal peak as every table of the course gives it: from
        # compare.csv beside this file where there is one (bench/peak.py).
        compare = os.path.join(out_dir, "compare.csv")
        self.peak = nominal_peak(read_csv(compare) if os.path.exists(compare) else self.rows)

    def time(self, label, n=MAIN_N, l2="cold"):
        r = self.by.get((label, n, l2))
        return float(r["median_us"]) if r and r["status"] == "OK" else None

    def cell(self, label, n=MAIN_N, l2="cold", what="time"):
        """One measured value as the tables show it: time, gbps, pct or grid."""
        r = self.by.get((label, n, l2))
        if r is None:
            return "-"
        if what == "grid":
            return r["grid"]
        if r["status"] != "OK":
            return "WRONG"
        return {"time": fmt_time(float(r["median_us"])), "gbps": gbps_text(gbps_of(r)),
                "pct": f"{float(r['pct_peak']):.1f}%"}[what]

    def measured(self, label, prev):
        """time, GB/s, % of peak, step (prev's time / this), cumulative (kernel 1's / this), blocks."""
        t = self.time(label)
        return [self.cell(label), self.cell(label, what="gbps"), self.cell(label, what="pct"),
                ratio(self.time(prev), t) if prev else "", ratio(self.time("harris_1"), t) if prev else "",
                self.cell(label, what="grid")]


def g80_cells(g):
    """The slides' figures for one kernel: time, step, cumulative (their GB/s
    and share of the G80's peak are in lab/harris/harris_g80.csv, and in the
    appendix's table of the slides)."""
    return [f"{float(g['time_ms']):.3f} ms", g["step"] and g["step"] + "×",
            g["cumulative"] and g["cumulative"] + "×"]


def kernel_table(runs, g80):
    """Each kernel at 2^22, input not in L2, then the G80's figures beside
    it. The slides give one figure per kernel: kernel 7's stands in the row
    of its first grid."""
    body, shown = [], set()
    for label in [l for l in runs.labels if l.startswith("harris_")]:
        k = int(label.split("_")[1])
        name = str(k)
        if k == 7:
            name = f"7, grid {runs.cell(label, what='grid')}" + (", the GPU full" if label == "harris_7" else "")
        g = g80[k - 1]
        theirs = g80_cells(g) if k not in shown else [""] * 3
        shown.add(k)
        prev = f"harris_{min(k - 1, 6)}" if k > 1 else None
        body.append([name, g["technique"]] + runs.measured(label, prev) + theirs)
    head = ["kernel", "technique", "time", "GB/s", "% of peak", "step", "cumulative", "blocks",
            "G80 time", "G80 step", "G80 cumulative"]
    return md_table(head, body, ["---"] * 2 + ["--:"] * 9)


def step_table(runs):
    """The course's steps at 2^22, input not in L2, against kernel 1 and kernel 7 on a full GPU."""
    body = []
    for label in [l for l in runs.labels if not l.startswith("harris_")]:
        t = runs.time(label)
        body.append([label, runs.cell(label), runs.cell(label, what="gbps"), runs.cell(label, what="pct"),
                     ratio(runs.time("harris_1"), t), ratio(runs.time("harris_7"), t)])
    head = ["step", "time", "GB/s", "% of peak", "kernel 1's time / this", "kernel 7's (GPU full) / this"]
    return md_table(head, body, ["---"] + ["--:"] * 5)


def size_table(runs, what):
    """Every program at every size, cold and warm L2."""
    cols = [(n, l2) for n in runs.sizes for l2 in ("cold", "warm")]
    body = [[label] + [runs.cell(label, n, l2, what) for n, l2 in cols] for label in runs.labels]
    return md_table(["program"] + [f"{power_label(n)} {l2}" for n, l2 in cols], body, ["---"] + ["--:"] * len(cols))


def render(runs):
    g80 = read_csv(G80)
    g = g80[0]
    return "\n".join([
        f"# Harris's seven kernels on {runs.device}", "",
        f"- {runs.device}: {runs.sms} SMs, compute capability {runs.cc}, nominal peak {runs.peak:.0f} GB/s",
        "- every program in the exact build (uint32, like the slides' ints); the kernels with 128 threads per block",
        f"- G80: the slides' own figures ({g['device']}, nominal peak {g['peak_gbps']} GB/s, "
        f"n = {power_label(int(g['n']))}), from lab/harris/harris_g80.csv",
        "- step: the time of the kernel before (kernel 6 for each kernel 7) / this time; "
        "cumulative: kernel 1's time / this time", "",
        f"## {power_label(MAIN_N)} elements, input not in L2, beside the G80", "", kernel_table(runs, g80), "",
        f"## The course's steps at {power_label(MAIN_N)}, input not in L2", "", step_table(runs), "",
        "## Median time per sum, input not in L2 (cold) and left in L2 (warm)", "", size_table(runs, "time"), "",
        "## Bandwidth, GB/s (4n bytes / median time)", "", size_table(runs, "gbps")]) + "\n"


def summary(runs):
    """harris_summary.csv's rows, from harris.csv and the slides' figures."""
    g80 = {g["kernel"]: float(g["time_ms"]) for g in read_csv(G80)}
    out = []
    for label in runs.labels:
        rows = [r for r in runs.rows if r["label"] == label]
        wrong = [f"{power_label(int(r['n']))} {r['l2']}" for r in rows if r["status"] != "OK"]
        k, t = label[len("harris_"):][:1] if label.startswith("harris_") else "", runs.time(label)
        out.append({"label": label, "runs": sum(int(r["runs"]) for r in rows), "wrong_at": ", ".join(wrong) or "none",
                    "vs_g80": f"{1000 * g80[k] / t:.6g}" if k in g80 and t else ""})
    return out


def g80_markdown():
    """The slides' own figures as a table (lab/harris/harris_g80.md, for the appendix)."""
    rows = read_csv(G80)
    pct = lambda p: f"{p:.2f}%" if p < 1 else f"{p:.1f}%"
    x = lambda v: v + "×" if v else ""
    body = [[g["kernel"], g["technique"], g["time_ms"], g["gbps"], pct(100 * float(g["gbps"]) / float(g["peak_gbps"])),
             x(g["step"]), x(g["cumulative"])] for g in rows]
    g = rows[0]
    n = int(g["n"])
    size = f"2^{n.bit_length() - 1}^" if n & (n - 1) == 0 else str(n)
    return (md_table(["kernel", "technique", "time (ms)", "GB/s", "% of peak", "step", "cumulative"], body,
                     ["--:", ":--", "--:", "--:", "--:", "--:", "--:"]) +
            f"\n\nTable: The slides' figures: {g['device']} (nominal peak {g['peak_gbps']} GB/s), n = {size} "
            f"32-bit integers (`{os.path.relpath(G80, ROOT)}`).\n")


def racecheck_markdown(out_dir, device):
    """Of each run in harris_racecheck.txt: the command, its first warning and its summary line."""
    lines = open(os.path.join(out_dir, "harris_racecheck.txt")).read().split("\n")
    out, first = [], False
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            out.append(line)
            first = True
        elif first and "Warning: Race reported" in line:
            out.append(line)
            if i + 1 < len(lines) and re.match(r"=========\s+and ", lines[i + 1]):
                out.append(lines[i + 1])
            out.append("========= ...")
            first = False
        elif "RACECHECK SUMMARY" in line:
            out += [line, ""]
    path = os.path.relpath(out_dir, ROOT) + "/harris_racecheck.txt"
    return f"On {device} (`{path}`):\n\n```console\n" + "\n".join(out).rstrip() + "\n```\n"


def main():
    ap = argparse.ArgumentParser(description="Harris's seven kernels beside the course's steps")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--from", dest="from_dir", help="only harris.md and harris_summary.csv, from a saved harris.csv")
    ap.add_argument("--g80", default=os.path.join(ROOT, "lab", "harris", "harris_g80.md"),
                    help="where the slides' table goes (lab/harris/harris_g80.md)")
    a = ap.parse_args()
    out_dir = a.from_dir or measure(a.out)
    runs = Runs(out_dir)
    text = render(runs)
    with open(os.path.join(out_dir, "harris.md"), "w") as f:
        f.write(text)
    write_csv(os.path.join(out_dir, "harris_summary.csv"), summary(runs), ["label", "runs", "wrong_at", "vs_g80"])
    if os.path.exists(os.path.join(out_dir, "harris_racecheck.txt")):
        with open(os.path.join(out_dir, "harris_racecheck.md"), "w") as f:
            f.write(racecheck_markdown(out_dir, runs.device))
    with open(a.g80, "w") as f:
        f.write(g80_markdown())
    print(text)
    wrong = sorted({f"{r['label']} at {power_label(int(r['n']))}" for r in runs.rows if r["status"] != "OK"})
    if wrong:
        print("WRONG results: " + ", ".join(wrong), file=sys.stderr)
    print(f"(written to {os.path.relpath(out_dir, ROOT)}/)", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
