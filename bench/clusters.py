#!/usr/bin/env python3
"""clusters.py: the measurements of the appendix on thread block clusters (this is `make clusters`).

    python3 bench/clusters.py                 # measure on this GPU, write results/<gpu>/
    python3 bench/clusters.py --from results/nvidia-h100-80gb-hbm3   # the tables again, from the CSVs

In one go (about three minutes on an H100), input not in L2, 200 timed runs a size:
  - the pieces of a small one-launch sum (build/clusters/latency) at 2^14 to 2^22;
  - the cluster program at every power of two from 2^10 to 2^24: as it chooses,
    with every --cluster size, with blocks of 256, 512 and 1024; its other ways
    for clusters to meet (clusters_wait, clusters_pdl) and its memcpy_async
    loads (clusters_async); step 07 and CUB beside it;
  - the floor at each size: the read-only kernel (build/bench/ceiling --floor).
It writes, in results/<gpu>/:
    latency.csv          one row per probe, block, cluster size and n
    clusters.csv         one row per program and size: a label, then the harness's columns
    clusters_floor.csv   the read-only kernel at each size (cold, warm), the empty kernel
    clusters.md          the tables below
and prints the pieces' table, then the summary: each program's time, its
time over the floor's, CUB's time over its, and the targets (within 1.35x
the floor from 2^14 to 2^22; at least 1.3x CUB's speed from 2^14 to 2^20).
Only the Python standard library is used.
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import fmt_time, gpu_turn, power_label, progress, read_csv, slug, write_csv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [2 ** k for k in range(10, 25)]
PROBE_SIZES = [2 ** k for k in (14, 16, 18, 20, 22)]
REPS = 200
TARGET_FLOOR = (2 ** 14, 2 ** 22, 1.35)      # sizes, and at most this times the floor's time
TARGET_CUB = (2 ** 14, 2 ** 20, 1.3)         # sizes, and at least this times CUB's speed
CL = "build/clusters/"


def programs():
    """(label, command) of every program measured, in the order of the tables."""
    found = [("clusters", [CL + "clusters"])]
    found += [(f"clusters --cluster {k}", [CL + "clusters", "--cluster", str(k)]) for k in (1, 2, 4, 8, 16)]
    found += [(f"clusters --block {b}", [CL + "clusters", "--block", str(b)]) for b in (256, 512, 1024)]
    found += [(p, [CL + p]) for p in ("clusters_wait", "clusters_pdl", "clusters_async")]
    return found + [("07_cooperative", ["./step07"]), ("cub", ["./build/bench/cub_sum"])]


def run(cmd, what):
    """Runs a program that prints CSV; its rows, and the last line it said on stderr if it failed."""
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.stdout.strip() else []
    note = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1] if p.returncode else ""
    progress(f"  {what}: {len(rows)} rows in {time.time() - t0:.1f} s" + (f" ({note})" if note else ""))
    return rows, note


def measure(out_root):
    t0 = time.time()
    gpu_turn()
    sizes = ",".join(map(str, SIZES))
    progress("[probes] the pieces of a small sum")
    probes, note = run([CL + "latency", "--n", ",".join(map(str, PROBE_SIZES)), "--reps", str(REPS)], "latency")
    rows, notes = [], []
    for i, (label, cmd) in enumerate(programs()):
        progress(f"[{i + 1}/{len(programs())}] {label}")
        got, note = run(cmd + ["--csv", "--n", sizes, "--reps", str(REPS)], label)
        rows += [{"label": label, **r} for r in got]
        if note:
            notes.append(f"{label}: {note}")
    progress("[floor] the read-only kernel at every size")
    floor, _ = run(["./build/bench/ceiling", "--floor", sizes], "floor")
    if not rows:
        sys.exit("make clusters: no program gave results (is there a GPU of compute capability 9.0 or newer?)")
    out_dir = os.path.join(out_root, slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    write_csv(os.path.join(out_dir, "clusters.csv"), rows, list(rows[0].keys()))
    for name, got in (("latency.csv", probes), ("clusters_floor.csv", floor)):
        if got:
            write_csv(os.path.join(out_dir, name), got, list(got[0].keys()))
    with open(os.path.join(out_dir, "clusters_notes.txt"), "w") as f:
        f.write("".join(n + "\n" for n in notes))
    progress(f"measured in {time.time() - t0:.0f} s")
    return out_dir


# ---- tables -------------------------------------------------------------------------
def table(head, body, markdown):
    if markdown:
        return "\n".join(["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|"]
                         + ["| " + " | ".join(r) + " |" for r in body])
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(head)] + [fmt(r) for r in body])


class Saved:
    """The CSVs of one GPU, indexed."""

    def __init__(self, out_dir):
        self.rows = read_csv(os.path.join(out_dir, "clusters.csv"))
        self.labels = list(dict.fromkeys(r["label"] for r in self.rows))
        self.by = {(r["label"], int(r["n"])): r for r in self.rows}
        self.device = self.rows[0]["device"]
        path = os.path.join(out_dir, "latency.csv")
        self.probes = read_csv(path) if os.path.exists(path) else []
        path = os.path.join(out_dir, "clusters_floor.csv")
        self.floor = {int(r["bytes"]) // 4: float(r["median_us"])
                      for r in (read_csv(path) if os.path.exists(path) else []) if r["kind"] == "floor"}

    def time(self, label, n):
        r = self.by.get((label, n))
        return float(r["median_us"]) if r and r["status"] == "OK" else None

    def best(self, n):
        """The fastest of the cluster program's rows at n (any option, any way of meeting)."""
        got = [(self.time(l, n), l) for l in self.labels if l.startswith("clusters") and self.time(l, n)]
        return min(got) if got else (None, "-")


def probe_table(saved, markdown, block="512"):
    """Each probe's median at every probe size: plain ones with blocks of `block` threads (the
    steps' at these sizes), cluster ones at their best cluster size and block (shown)."""
    sizes = sorted({int(r["n"]) for r in saved.probes})
    names = list(dict.fromkeys(r["probe"] for r in saved.probes))
    body = []
    for name in names:
        cells = []
        for n in sizes:
            mine = [r for r in saved.probes if r["probe"] == name and int(r["n"]) == n and
                    r["check"] in ("ok", "-") and (name.startswith("c_") or r["block"] == block or name == "empty")]
            if not mine:
                wrong = [r["check"] for r in saved.probes if r["probe"] == name and int(r["n"]) == n]
                cells.append("WRONG" if "WRONG" in wrong else "refused" if wrong else "-")
                continue
            r = min(mine, key=lambda r: float(r["median_us"]))
            where = f" ({r['cluster']}x{r['block']})" if name.startswith("c_") else ""
            cells.append(f"{float(r['median_us']):.2f}{where}")
        body.append([name] + cells)
    return table(["probe, median us"] + [power_label(n) for n in sizes], body, markdown)


TEXT_SIZES = [2 ** k for k in (12, 14, 16, 18, 20, 22, 24)]
TEXT_LABELS = ("clusters", "clusters_wait", "clusters_pdl", "clusters_async", "07_cooperative", "cub")


def short(label):
    """"clusters --cluster 4" -> "K=4", "clusters --block 256" -> "B=256", "clusters_pdl" -> "pdl"."""
    return (label.replace("clusters --cluster ", "K=").replace("clusters --block ", "B=")
            .replace("clusters_", "").replace("clusters", "as chosen"))


def summary(saved, markdown):
    """Each program's time, the floor's; the best cluster program; over the floor, CUB over it, the targets."""
    sizes = SIZES if markdown else TEXT_SIZES
    labels = saved.labels if markdown else [l for l in saved.labels if l in TEXT_LABELS]
    body = [["floor: read-only kernel"] + [f"{saved.floor[n]:.2f}" if n in saved.floor else "-" for n in sizes]]
    for label in labels:
        body.append([label] + [f"{saved.time(label, n):.2f}" if saved.time(label, n) else
                               ("WRONG" if (label, n) in saved.by else "-") for n in sizes])
    best = {n: saved.best(n) for n in sizes}
    body.append(["best cluster program"] + [f"{best[n][0]:.2f}" if best[n][0] else "-" for n in sizes])
    body.append(["  which"] + [short(best[n][1]) for n in sizes])
    for label, of in (("clusters", "clusters"), ("best", None)):
        t = {n: saved.time(of, n) if of else best[n][0] for n in sizes}
        body.append([f"{label}: time / floor's"] + [f"{t[n] / saved.floor[n]:.2f}" if t[n] and n in saved.floor
                                                      else "-" for n in sizes])
        body.append([f"{label}: CUB's time / its"] + [f"{saved.time('cub', n) / t[n]:.2f}"
                                                      if t[n] and saved.time("cub", n) else "-" for n in sizes])
        body.append([f"{label}: targets"] + [target(saved, n, t[n]) for n in sizes])
    return table(["program, median us"] + [power_label(n) for n in sizes], body, markdown)


def target(saved, n, t):
    """"ok", or what it misses: F (over 1.35x the floor), C (under 1.3x CUB's speed); blank outside."""
    if not t:
        return "-"
    miss = ""
    lo, hi, most = TARGET_FLOOR
    if lo <= n <= hi and n in saved.floor and t > most * saved.floor[n]:
        miss += "F"
    lo, hi, least = TARGET_CUB
    if lo <= n <= hi and saved.time("cub", n) and saved.time("cub", n) < least * t:
        miss += "C"
    inside = TARGET_FLOOR[0] <= n <= TARGET_FLOOR[1]
    return (miss or "ok") if inside else ""


def render(saved, markdown):
    head = f"{'# ' if markdown else ''}Thread block clusters on {saved.device} (input not in L2, median of {REPS})"
    return "\n\n".join([head,
                        ("## " if markdown else "") + "The pieces of a small sum (latency.csv)",
                        probe_table(saved, markdown),
                        ("## " if markdown else "") + "Summary (clusters.csv, clusters_floor.csv); targets: "
                        "F = over 1.35x the floor (2^14..2^22), C = under 1.3x CUB's speed (2^14..2^20)",
                        summary(saved, markdown)]) + "\n"


def main():
    ap = argparse.ArgumentParser(description="the measurements of the appendix on thread block clusters")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    ap.add_argument("--from", dest="from_dir", help="only the tables, from saved CSVs")
    a = ap.parse_args()
    out_dir = a.from_dir or measure(a.out)
    saved = Saved(out_dir)
    with open(os.path.join(out_dir, "clusters.md"), "w") as f:
        f.write(render(saved, True))
    print(render(saved, False))
    wrong = sorted({f"{r['label']} at {power_label(int(r['n']))}" for r in saved.rows if r["status"] != "OK"})
    wrong += [f"probe {r['probe']} ({r['cluster']}x{r['block']}) at {power_label(int(r['n']))}"
              for r in saved.probes if r["check"] == "WRONG"]
    if wrong:
        print("WRONG results: " + ", ".join(wrong), file=sys.stderr)
    print(f"(written to {os.path.relpath(out_dir, ROOT)}/)", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
