#!/usr/bin/env python3
"""compare_rows.py: step 11 beside what a user would call instead, a sum for
every row of a matrix of 2^28 floats at every row length, cold L2.

    python3 bench/compare_rows.py                  measure, write results/<gpu>/rows.*
    python3 bench/compare_rows.py --from DIR       only the table and the plot, from DIR/rows.csv
    python3 bench/compare_rows.py --only 11_rows   measure these programs again (comma-separated
                                                   names of rows.csv), keep the others' rows

Programs: ./step11; CUB's DeviceSegmentedReduce::Sum with offsets
(build/bench/cub_rows) and with fixed-size segments (build/bench/cub_rows_fixed,
where the CCCL in use has them: make bench); torch.sum(x, dim=1) and
cupy.sum(x, axis=1) (bench/torch_rows.py), where they import. Shapes: R x L
with R L = 2^28 for L = 1, 4, 32, 100, 1000, 4096, 2^16, 2^20, 2^24, 2^28
(100 and 1000 do not divide 2^28: R is rounded down), and the 2048 x 2^18 of
the blog post the course began from. Writes rows.csv (every program's rows),
rows.md (the table) and rows.svg (GB/s against L).
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import time

from lib import ROOT, power_label, progress, read_csv, slug, write_csv

N = 1 << 28
LENGTHS = [1, 4, 32, 100, 1000, 4096, 1 << 16, 1 << 20, 1 << 24, 1 << 28]
SHAPES = [(N // L, L) for L in LENGTHS] + [(2048, 1 << 18)]
PROGRAMS = [          # (name in rows.csv, label, command)
    ("11_rows", "step 11", ["./step11"]),
    ("cub_segmented", "CUB offsets", ["build/bench/cub_rows"]),
    ("cub_segmented_fixed", "CUB fixed-size", ["build/bench/cub_rows_fixed"]),
    ("torch.sum(dim=1)", "torch.sum(dim=1)", ["python3", "bench/torch_rows.py", "--lib", "torch"]),
    ("cupy.sum(axis=1)", "cupy.sum(axis=1)", ["python3", "bench/torch_rows.py", "--lib", "cupy"]),
]
# Each series its own colour, line and marker, so that one drawn over another
# still shows: CUB fixed-size and cupy lie on each other for short rows, cupy
# and CUB offsets for long ones, so those three differ in width and dashes too
# (the wide lines drawn first), and their markers in shape and size.
STYLES = {            # name in rows.csv: gnuplot's line colour, width, dash type, point type, point size
    "11_rows": ("#d62728", 3, 1, 7, 1.0),              # red, solid, filled circle
    "cub_segmented": ("#000000", 5, 1, 4, 1.5),        # black, wide, open square
    "cub_segmented_fixed": ("#56b4e9", 7, 1, 6, 1.9),  # light blue, widest, large open circle
    "torch.sum(dim=1)": ("#009e73", 2, 2, 8, 1.3),     # green, dashed, open triangle
    "cupy.sum(axis=1)": ("#e69f00", 2, 4, 13, 1.0),    # orange, dotted, filled pentagon
}
DRAW_ORDER = ["cub_segmented_fixed", "cub_segmented", "11_rows", "torch.sum(dim=1)", "cupy.sum(axis=1)"]


def save(rows, fields, replaced):
    """rows.csv: the rows measured so far, after the old rows of every program not in replaced."""
    out = os.path.join(ROOT, "results", slug(rows[0]["device"]))
    os.makedirs(out, exist_ok=True)
    old = os.path.join(out, "rows.csv")
    if os.path.exists(old):
        rows = [r for r in read_csv(old) if r["step"] not in replaced] + rows
    write_csv(old, rows, fields, extrasaction="ignore")
    return out


def measure(only):
    """Every program (or those named in only) at every shape; rows.csv is
    written after each program, so that a run cut short keeps what it measured.
    A program that is not built or gives no rows keeps its rows from before.
    Returns the results directory."""
    shapes = ",".join(f"{r}x{l}" for r, l in SHAPES)
    rows, fields, out = [], None, None
    unknown = set(only) - {name for name, _, _ in PROGRAMS}
    if unknown:
        sys.exit(f"compare-rows: --only: no program named {', '.join(sorted(unknown))} "
                 f"(names: {', '.join(n for n, _, _ in PROGRAMS)})")
    replaced = set()          # the programs that gave rows: their old rows go, the others' stay
    for name, _, cmd in PROGRAMS:
        if only and name not in only:
            continue
        if not cmd[0].startswith("python3") and not os.path.exists(os.path.join(ROOT, cmd[0])):
            progress(f"SKIP {name}: {cmd[0]} is not built (make step11 bench); its rows in rows.csv are kept")
            continue
        t0 = time.time()
        p = subprocess.run(cmd + ["--csv", "--shape", shapes], cwd=ROOT, capture_output=True, text=True)
        got = list(csv.DictReader(io.StringIO(p.stdout))) if p.stdout.strip() else []
        note = (p.stderr.strip().splitlines() or [""])[0] if p.returncode or p.stderr.startswith("SKIP") else ""
        progress(f"  {name}: {len(got)} rows in {time.time() - t0:.0f} s {note}"
                 + ("" if got else "; its rows in rows.csv are kept"))
        if got:
            replaced.add(name)
            rows += got
            fields = fields or list(got[0].keys())
            out = save(rows, fields, replaced)
    if not rows:
        sys.exit("compare-rows: nothing was measured")
    return out


def load(out):
    rows = [r for r in read_csv(os.path.join(out, "rows.csv")) if r["status"] == "OK"]
    by = {(r["step"], int(r["len"])): r for r in rows}
    ceiling = 0.0
    path = os.path.join(out, "ceiling.csv")
    if os.path.exists(path):
        ceiling = next((float(r["gbps"]) for r in read_csv(path) if r["kind"] == "read"), 0.0)
    return rows, by, ceiling


def table(out):
    """rows.md: median time per program and row length, and step 11's share of the read ceiling."""
    rows, by, ceiling = load(out)
    lengths = sorted({int(r["len"]) for r in rows})
    names = [(n, label) for n, label, _ in PROGRAMS if any(k[0] == n for k in by)]
    head = "| R × L | " + " | ".join(label for _, label in names) + (" | step 11 / read ceiling |" if ceiling else " |")
    lines = [head, "|" + "---|" * (len(names) + 1 + bool(ceiling))]
    for L in lengths:
        r11 = by.get(("11_rows", L))
        shape = f"{by[next(k for k in by if k[1] == L)]['rows']} × {power_label(L, 4096)}"
        cells = [f"{float(by[(n, L)]['median_us']):,.1f}" if (n, L) in by else "–" for n, _ in names]
        pct = f"{100 * float(r11['gbps']) / ceiling:.0f}%" if r11 and ceiling else "–"
        lines.append(f"| {shape} | " + " | ".join(cells) + (f" | {pct} |" if ceiling else " |"))
    dev = rows[0]["device"]
    lines += ["", f"(median µs of the timed runs, cold L2, every row checked; {dev}; "
              f"`{os.path.relpath(os.path.join(out, 'rows.csv'), ROOT)}`)"]
    with open(os.path.join(out, "rows.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return "\n".join(lines)


def plot(out):
    """rows.svg: GB/s (bytes read and written) against L, one line a program. Drawn to be read on
    a phone: 480 px wide at 16 px, a phone shows it at about 11 px."""
    if not shutil.which("gnuplot"):
        return "compare-rows: gnuplot is not installed (apt-get install gnuplot-nox); no rows.svg"
    rows, by, ceiling = load(out)
    data = os.path.join(out, "rows.dat")
    labels = {name: label for name, label, _ in PROGRAMS}
    plots = []
    with open(data, "w") as f:
        index = 0
        for name in DRAW_ORDER:
            pts = sorted((L, float(r["gbps"])) for (n, L), r in by.items() if n == name and int(r["rows"]) * L <= N)
            if not pts:
                continue
            f.write("".join(f"{L} {g}\n" for L, g in pts) + "\n\n")
            colour, width, dashes, point, size = STYLES[name]
            plots.append(f"'{data}' index {index} with linespoints lc rgb '{colour}' lw {width} dt {dashes} "
                         f"pt {point} ps {size} title '{labels[name]}'")
            index += 1
    if ceiling:
        plots.append(f"{ceiling} with lines lc rgb '#888888' dt 3 lw 2 title 'read ceiling'")
    script = [
        "set terminal svg size 480,620 fixed enhanced font 'sans,16' background rgb 'white'",
        f"set output '{os.path.join(out, 'rows.svg')}'",
        f"set title 'A sum a row, 2^28 floats in all, {short_device(rows[0]['device'])}' noenhanced",
        "set logscale x 2", "set xtics ('1' 1, '2^8' 2**8, '2^16' 2**16, '2^24' 2**24) noenhanced", "set xlabel 'L (elements a row)'",
        "set logscale y 10", "set format y '%g'", "set ylabel 'GB/s (read + written)' offset 1,0",
        "set yrange [8:12000]", "set lmargin 9", "set rmargin 2",
        "set key outside below center horizontal Left reverse maxcols 2 samplen 1.5 width -5",
        "set grid", "plot " + ", ".join(plots),
    ]
    p = subprocess.run(["gnuplot"], input="\n".join(script), text=True, capture_output=True)
    os.remove(data)
    return "compare-rows: rows.svg drawn" if p.returncode == 0 else f"compare-rows: gnuplot failed: {p.stderr[:200]}"


def short_device(device):
    """"NVIDIA H200" -> "H200"."""
    return device.replace("NVIDIA ", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="from_dir", help="only the table and the plot, from DIR/rows.csv")
    ap.add_argument("--only", default="", help="measure only these programs (names as in rows.csv, "
                    "comma-separated); the others' rows are kept from rows.csv")
    a = ap.parse_args()
    out = a.from_dir or measure([n for n in a.only.split(",") if n])
    print(table(out))
    print(plot(out))


if __name__ == "__main__":
    main()
