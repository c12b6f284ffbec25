#!/usr/bin/env python3
"""clusters.py: the measurements of the appendix on small sizes (this is `make clusters`).

    python3 lab/small-sizes/clusters.py                 # measure on this GPU, write results/<gpu>/
    python3 lab/small-sizes/clusters.py --from results/nvidia-h100-80gb-hbm3   # the tables again, from the CSVs

In one go (about three and a half minutes on an H100), input not in L2, 200 timed runs a size:
  - the pieces of a small one-launch sum (build/clusters/latency) at 2^14 to 2^22;
  - the flag-word sum (build/clusters/flag_sum) at every power of two from 2^10
    to 2^24 as it chooses, and with blocks of 256, 512 and 1024 from 2^14 to 2^22;
  - the cluster program as it chooses, and with every --cluster size at the
    even powers of two (at 2^24 its grid is what fits at once), its other
    ways for clusters to meet (clusters_wait, clusters_pdl) and its
    memcpy_async loads (clusters_async);
  - step 07, CUB, and torch.sum and cupy.sum where python3 can import them
    (bench/torch_sum.py; a SKIP line otherwise);
  - the floor at each size: the read-only kernel (build/bench/ceiling --floor).
It writes, in results/<gpu>/:
    latency.csv          one row per probe, block, cluster size and n
    clusters.csv         one row per program and size: a label, then the harness's columns
    clusters_floor.csv   the read-only kernel at each size (cold, warm), the empty kernel
    clusters.md          the tables (lab/small-sizes/clusters_tables.py)
    clusters_*.md, clusters_summary.csv   the appendix's tables and numbers (the same)
and prints the pieces' table, the programs' table and, last, whether the
flag-word sum and the cluster program, each as it chooses, meet the targets (within 1.35x
the floor from 2^14 to 2^22; at least 1.3x CUB's speed from 2^14 to 2^20).
Only the Python standard library is used.
"""
import argparse
import importlib.util
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))  # bench/lib.py
from array_libs import LIBS  # noqa: E402
from lib import ROOT, gpu_turn, progress, run_csv, slug, write_csv  # noqa: E402
from clusters_tables import REPS, SIZES, PROBE_SIZES, Saved, render, verdict, write_page  # noqa: E402

CL = "build/clusters/"
VARIANT_SIZES = [2 ** k for k in range(14, 23)]       # where the flag-word sum's blocks are varied
EVEN_SIZES = [2 ** k for k in range(10, 25, 2)]       # where the cluster sizes are (2^24: occupancy)


def programs():
    """(label, command, sizes) of every program measured, in the order of the tables."""
    found = [("flag_sum", [CL + "flag_sum"], SIZES)]
    found += [(f"flag_sum --block {b}", [CL + "flag_sum", "--block", str(b)], VARIANT_SIZES)
              for b in (256, 512, 1024)]
    found += [("clusters", [CL + "clusters"], SIZES)]
    found += [(f"clusters --cluster {k}", [CL + "clusters", "--cluster", str(k)], EVEN_SIZES)
              for k in (1, 2, 4, 8, 16)]
    found += [(p, [CL + p], SIZES) for p in ("clusters_wait", "clusters_pdl", "clusters_async")]
    found += [("07_cooperative", ["./step07"], SIZES), ("cub", ["./build/bench/cub_sum"], SIZES)]
    for name, lib in LIBS.items():
        if importlib.util.find_spec(lib) is None:
            progress(f"SKIP {name}: python3 cannot import {lib}")
        else:
            found.append((name, ["python3", "bench/torch_sum.py", "--lib", lib], SIZES))
    return found


def peak(rows):
    """The nominal peak bandwidth the harness's rows give (for torch_sum.py's % of peak)."""
    for r in rows:
        if float(r["pct_peak"]) > 0:
            return float(r["gbps"]) / float(r["pct_peak"]) * 100
    return 0.0


def measure(out_root):
    t0 = time.time()
    gpu_turn()
    progress("[probes] the pieces of a small sum")
    probes, _ = run_csv([CL + "latency", "--n", ",".join(map(str, PROBE_SIZES)), "--reps", str(REPS)], "latency")
    rows, notes = [], []
    progs = programs()
    for i, (label, cmd, sizes) in enumerate(progs):
        progress(f"[{i + 1}/{len(progs)}] {label}")
        extra = ["--peak-gbps", f"{peak(rows):.1f}"] if cmd[0] == "python3" else []
        got, note = run_csv(cmd + ["--csv", "--n", ",".join(map(str, sizes)), "--reps", str(REPS)] + extra, label)
        rows += [{"label": label, **r} for r in got]
        if note:
            notes.append(f"{label}: {note}")
    progress("[floor] the read-only kernel at every size")
    floor, _ = run_csv(["./build/bench/ceiling", "--floor", ",".join(map(str, SIZES))], "floor")
    if not rows:
        sys.exit("make clusters: no program gave results (is there a GPU?)")
    out_dir = os.path.join(out_root, slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    fields = list(dict.fromkeys(k for r in rows for k in r))   # torch_sum.py's rows have the same columns
    write_csv(os.path.join(out_dir, "clusters.csv"), rows, fields)
    for name, got in (("latency.csv", probes), ("clusters_floor.csv", floor)):
        if got:
            write_csv(os.path.join(out_dir, name), got, list(got[0].keys()))
    with open(os.path.join(out_dir, "clusters_notes.txt"), "w") as f:
        f.write("".join(n + "\n" for n in notes))
    progress(f"measured in {time.time() - t0:.0f} s")
    return out_dir


def main():
    ap = argparse.ArgumentParser(description="the measurements of the appendix on small sizes")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--from", dest="from_dir", help="only the tables, from saved CSVs")
    a = ap.parse_args()
    out_dir = a.from_dir or measure(a.out)
    saved = Saved(out_dir)
    with open(os.path.join(out_dir, "clusters.md"), "w") as f:
        f.write(render(saved, True))
    write_page(saved, out_dir, os.path.relpath(out_dir, ROOT))
    print(render(saved, False))
    wrong = saved.wrong()
    if wrong:
        print("WRONG results: " + ", ".join(wrong), file=sys.stderr)
    print(f"(written to {os.path.relpath(out_dir, ROOT)}/)", file=sys.stderr)
    print("\n".join(verdict(saved)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
