#!/usr/bin/env python3
"""profile.py: the evidence behind the chapters' "why" (make profile).

For every step (and CUB) at a few sizes, Nsight Compute reads, per kernel
launch: the time, DRAM throughput, achieved and theoretical occupancy,
registers per thread, L2 atomics, and the warp stall reasons (cycles a warp
spends stalled, per instruction issued, for each reason); cuobjdump's SASS
adds the kernel's load instructions by width and the other instructions the
chapters talk about. One row per kernel launch goes to
results/<gpu>/profile.csv, which the chapters quote through the page filter.

    python3 bench/profile.py                 every program below
    python3 bench/profile.py --only 07,08    those steps alone; other rows kept
    python3 bench/profile.py --only 12_bf16_max,12_float_argmax    step 12's pairs (12_TYPE_OP)
    python3 bench/profile.py --list          the runs, without running them

Nsight Compute runs with --clock-control none (the GPU's own clocks, as in
make compare) and flushes the caches before each pass (cold L2, as make
compare times). Where the GPU's counters cannot be read (ERR_NVGPUCTRPERM),
the rows keep the SASS and register columns and say so in `note`.
"""
import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys

from lib import ROOT, progress, read_csv, slug, write_csv

SIZES = ["2^16", "2^20", "2^28"]
# (program, command, sizes or shapes); a program's kernels are all profiled.
RUNS = [(f"{nn}", f"./step{nn}", SIZES) for nn in ["00", "01", "02", "03", "04", "05", "06", "07", "08", "10"]]
RUNS += [("09", "./step09 --gpus 1", ["2^20", "2^24", "2^28"]),
         ("11", "./step11", ["1x268435456", "16x16777216", "65536x4096", "268435x1000", "2684354x100",
                             "8388608x32"]),
         ("cub", "./build/bench/cub_sum", SIZES)]
# Step 12: a pair a program (12_TYPE_OP), at the sizes where it stands against CUB.
RUNS += [(f"12_{t}_{o}", f"./step12 --type {t} --op {o}", ["2^16", "2^22", "2^24", "2^28"])
         for t, o in [("float", "sum"), ("bf16", "sum"), ("float", "max"), ("bf16", "max"), ("float", "argmax"),
                      ("bf16", "argmax")]]

STALLS = ["long_scoreboard", "barrier", "membar", "lg_throttle", "wait", "short_scoreboard",
          "no_instruction", "math_pipe_throttle", "mio_throttle", "not_selected", "selected",
          "branch_resolving", "dispatch_stall", "drain", "sleeping", "misc"]
METRICS = {  # column: ncu metric
    "time_us": "gpu__time_duration.sum",
    "dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_read_bytes": "dram__bytes_read.sum",
    "occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "occupancy_theory_pct": "sm__maximum_warps_per_active_cycle_pct",
    "registers": "launch__registers_per_thread",
    "grid": "launch__grid_size",
    "block": "launch__block_size",
    "l2_atomic_requests": "lts__t_requests_op_red.sum",
    "l2_atom_requests": "lts__t_requests_op_atom.sum",
    "sm_active_pct": "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
}
METRICS.update({f"stall_{s}": f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS})
# Nsight Compute measures these but does not list them in --query-metrics.
UNLISTED = ("launch__", "sm__maximum_warps_per_active_cycle_pct")
SASS = {  # column: opcode pattern (the first word of the instruction, predicate removed)
    "sass_ldg128": r"LDG\.E.*\.128", "sass_ldg64": r"LDG\.E.*\.64", "sass_ldg32": r"LDG\.E(\.[A-Z0-9]+)*$",
    "sass_lds": r"LDS", "sass_sts": r"STS", "sass_shfl": r"SHFL", "sass_redux": r"REDUX",
    "sass_atomic": r"(ATOMG?|REDG?|RED)(\.|$)", "sass_bar": r"BAR\.", "sass_membar": r"(MEMBAR|FENCE)",
    "sass_fadd": r"FADD", "sass_dadd": r"DADD", "sass_iadd": r"(IADD3|IADD)(\.|$)",
}
FIELDS = (["program", "size", "kernel", "launch"] + list(METRICS) + ["top_stall", "top_stall_2"]
          + list(SASS) + ["sass_registers", "ldg128_runs", "note"])


def gpu_slug():
    p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"],
                       capture_output=True, text=True)
    return slug(p.stdout.strip() or "unknown-gpu")


def available_metrics():
    """The metric names this GPU's Nsight Compute knows (their bases)."""
    p = subprocess.run(["ncu", "--query-metrics", "--csv"], capture_output=True, text=True)
    return {line.split(",")[0].strip('"') for line in p.stdout.splitlines()[1:]}


def base(metric):
    return metric.split(".")[0]


def number(text):
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def kernel_base(name):
    """'void reduce_kernel<true>(const float *, ...)' -> 'reduce_kernel<true>'."""
    name = re.sub(r"^void ", "", name.strip())
    depth, out = 0, []
    for ch in name:
        if ch == "(" and depth == 0:
            break
        depth += ch == "<"
        depth -= ch == ">"
        out.append(ch)
    return "".join(out).strip()


def ncu_rows(cmd, size, metrics):
    """Runs the program once (--check-only) under Nsight Compute; one dict per
    kernel launch, and a note when the counters could not be read."""
    flag = "--shape" if "x" in size else "--n"
    args = ["ncu", "--clock-control", "none", "--cache-control", "all", "--csv", "--page", "raw",
            "--print-units", "base", "--metrics", ",".join(metrics.values())]
    args += cmd.split() + [flag, size, "--check-only"]
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    text = p.stdout
    start = text.find('"ID"')
    if start < 0:
        why = (p.stdout + p.stderr).strip().splitlines()
        err = [w for w in why if "ERR_" in w or "==ERROR==" in w] or why[-1:] or [f"exit {p.returncode}"]
        return [], err[0][:160]
    table = list(csv.reader(io.StringIO(text[start:])))
    head, rows = table[0], table[2:]          # row 1: units
    out = []
    for r in rows:
        if len(r) != len(head):
            continue
        d = dict(zip(head, r))
        name = kernel_base(d.get("Kernel Name", ""))
        if name.startswith("nccl"):               # NCCL's own kernels (step 09)
            continue
        row = {"kernel": name}
        for col, m in metrics.items():
            v = number(d.get(m, ""))
            if v is None:
                row[col] = ""
            elif col == "time_us":
                row[col] = f"{v / 1000:.3f}"       # base unit: ns
            elif col in ("registers", "grid", "block", "dram_read_bytes", "l2_atomic_requests",
                         "l2_atom_requests"):
                row[col] = f"{v:.0f}"
            else:
                row[col] = f"{v:.2f}" if col.endswith("pct") else f"{v:.3f}"
        stalls = sorted(((number(row.get(f"stall_{s}", "")) or 0, s) for s in STALLS
                         if s not in ("selected", "not_selected")), reverse=True)
        row["top_stall"] = stalls[0][1] if stalls and stalls[0][0] > 0 else ""
        row["top_stall_2"] = stalls[1][1] if len(stalls) > 1 and stalls[1][0] > 0 else ""
        out.append(row)
    return out, ""


def sass_counts(binary):
    """Per kernel (by its base name): the SASS instruction counts of SASS, and
    the runs of LDG.E.128 between two FADDs, in program order ("9 1 1 2")."""
    exe = os.path.join(ROOT, binary.split()[0])
    if not shutil.which("cuobjdump") or not os.path.exists(exe):
        return {}
    # One architecture is enough to read: the newest in the file (this GPU's,
    # where make built for it).
    listing = subprocess.run(["cuobjdump", "-sass", exe], capture_output=True, text=True).stdout
    parts = [t for t in re.split(r"\n(?=Fatbin \w+ code)", listing) if t.startswith("Fatbin elf")]
    arch = lambda t: int((re.search(r"arch = sm_(\d+)", t) or [0, 0])[1])
    newest = max(map(arch, parts), default=0)
    sass = "\n".join(t for t in parts if arch(t) == newest)
    names = re.findall(r"Function : (\S+)", sass)
    plain = {}
    if names and shutil.which("c++filt"):
        dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
        plain = {m: kernel_base(d) for m, d in zip(names, dem)}
    usage = subprocess.run(["cuobjdump", "-res-usage", exe], capture_output=True, text=True).stdout
    regs = {}
    for block in [t for t in re.split(r"\n(?=Fatbin \w+ code)", usage) if t.startswith("Fatbin elf")]:
        if arch(block) == newest:
            regs.update(re.findall(r"Function (\S+?):\s*\n\s*REG:(\d+)", block))
    result = {}
    for part in re.split(r"\n\s*Function : ", "\n" + sass)[1:]:
        mangled = part.split()[0]
        counts = {col: 0 for col in SASS}
        runs, run = [], 0
        for line in part.splitlines()[1:]:
            m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
            if not m:
                continue
            op = m.group(2)
            for col, pat in SASS.items():
                if re.match(pat, op):
                    counts[col] += 1
            if re.match(SASS["sass_ldg128"], op):
                run += 1
            elif op.startswith("FADD") and run:
                runs.append(run)
                run = 0
        if run:
            runs.append(run)
        counts["ldg128_runs"] = " ".join(map(str, runs[:12])) + (" ..." if len(runs) > 12 else "")
        counts["sass_registers"] = regs.get(mangled, "")
        result[plain.get(mangled, mangled)] = counts
    return result


def chosen_runs(a, ap):
    """The runs --only and --extra ask for, and the programs whose rows they replace."""
    only = set(a.only.split(",")) if a.only else None
    runs = [r for r in RUNS if not only or r[0] in only]
    for e in a.extra:
        name, _, cmd = e.partition("=")
        if not cmd:
            ap.error(f"--extra {e}: give NAME=COMMAND")
        runs.append((name, cmd, SIZES))
        only = only | {name} if only else None
    return runs, only


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="programs to profile (e.g. 07,08,cub); the other rows are kept")
    ap.add_argument("--out", help="the CSV to write (default results/<gpu>/profile.csv)")
    ap.add_argument("--list", action="store_true", help="print the runs and exit")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=COMMAND",
                    help="also profile COMMAND (a lab variant) as program NAME, at 2^16, 2^20 and 2^28")
    a = ap.parse_args()
    runs, only = chosen_runs(a, ap)
    if a.list:
        for prog, cmd, sizes in runs:
            print(prog, cmd, " ".join(sizes))
        return 0
    if not shutil.which("ncu"):
        progress("profile: Nsight Compute (ncu) is not on the PATH; it comes with the CUDA Toolkit")
        return 2
    known = available_metrics()
    metrics = {c: m for c, m in METRICS.items() if not known or base(m) in known or m.startswith(UNLISTED)}
    dropped = sorted(set(METRICS) - set(metrics))
    if dropped:
        progress(f"profile: this Nsight Compute lacks {', '.join(dropped)}; those columns stay empty")
    out = a.out or os.path.join(ROOT, "results", gpu_slug(), "profile.csv")
    kept = []
    if only and os.path.exists(out):
        kept = [r for r in read_csv(out) if r["program"] not in only]
    rows = []

    def write():                                      # after each program: a run cut short keeps its rows
        os.makedirs(os.path.dirname(out), exist_ok=True)
        write_csv(out, kept + rows, FIELDS, extrasaction="ignore", lineterminator="\r\n")   # as csv's default
    for prog, cmd, sizes in runs:
        if not os.path.exists(os.path.join(ROOT, cmd.split()[0])):
            progress(f"SKIP {prog}: {cmd.split()[0]} is not built")
            continue
        sass = sass_counts(cmd)
        for size in sizes:
            got, note = ncu_rows(cmd, size, metrics)
            if not got and "metric" in note.lower():     # one of the unlisted ones refused: without them
                metrics = {c: m for c, m in metrics.items() if not m.startswith(UNLISTED)}
                got, note = ncu_rows(cmd, size, metrics)
            progress(f"  {prog} {size}: {len(got)} launches" + (f" ({note})" if note else ""))
            if not got:                                  # counters unreadable: SASS alone
                got = [{"kernel": k} for k in sass]
            for i, g in enumerate(got):
                row = {"program": prog, "size": size, "launch": i, "note": note, **g}
                row.update(sass.get(g["kernel"], {}))
                rows.append(row)
        write()
    progress(f"wrote {os.path.relpath(out, ROOT)}: {len(kept) + len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
