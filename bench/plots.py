#!/usr/bin/env python3
"""plots.py: the comparison's plots, drawn by gnuplot from saved CSVs.

    python3 bench/plots.py results/nvidia-h200     (also run by make compare)

bandwidth.svg   GB/s against n for every step and CUB, with the floor (the
                read-only kernel at each n) and, as horizontal lines, the
                measured read-only ceiling and the nominal peak
bars.svg        GB/s of every program at the largest size
"""
import collections
import os
import shutil
import subprocess
import sys
import tempfile

from array_libs import LIBS
from lib import read_csv
from peak import gbps_of, nominal_peak

# What the plots show, from one results/<gpu>/ directory; big is the largest
# n that every program but step 00 has (the bars' size).
Measured = collections.namedtuple("Measured", "programs sizes gbps peak ceiling device floor big")

# Every series its own colour and marker (a gnuplot point type), the same in
# every plot: these plots, the accuracy plots and the scaling plot. No two
# colours are closer than tests/plotcheck.py allows (CIEDE2000 10; these are
# at least 17 apart), so a reader tells the lines apart by colour alone.
STYLE = {
    "00_naive": ("#2200ff", 1), "01_shared_memory": ("#00cc00", 2), "02_grid_stride": ("#006600", 3),
    "03_warp_shuffle": ("#ff22ff", 4), "04_tile_partitions": ("#ff8800", 5), "05_two_pass": ("#770044", 6),
    "06_last_block": ("#775500", 8), "07_cooperative": ("#0088ff", 9), "08_fixed_order": ("#ff7788", 10),
    "09_multi_gpu": ("#aa9900", 11), "10_exact": ("#00bbaa", 12), "cub": ("#000000", 7),
    "cub_gpu_to_gpu": ("#005555", 13), "torch.sum": ("#555577", 14), "cupy.sum": ("#552211", 15),
    "07_compensated": ("#dd0077", 4), "07_compensated_front": ("#00bbee", 6),
}
# The lines without markers: the floor, the read ceiling, the nominal peak,
# and the accuracy plots' line of the correctly rounded sum.
LINES = {"floor": "#aa99dd", "ceiling": "#888888", "peak": "#cc0000", "exact": "#779966"}
# For a program that STYLE does not know yet, in turn.
SPARE = ["#333311", "#aa7755", "#008899", "#885555", "#9933aa", "#7766ee", "#bbaa88"]


def styles(names):
    """(colour, point type) of each of names, as STYLE gives them, a name it
    does not know taking the next spare colour."""
    spare = iter(SPARE)
    return [STYLE.get(p) or (next(spare, "#808080"), 1 + k % 15) for k, p in enumerate(names)]


def label(name):
    """A program's name in a plot: CUB, or the name with spaces for underscores."""
    return "CUB" if name == "cub" else name.replace("_", " ")


def measured(out_dir):
    """What the plots show, read from out_dir's compare.csv, ceiling.csv and floor.csv."""
    every = read_csv(os.path.join(out_dir, "compare.csv"))
    rows = [r for r in every if r["status"] == "OK"]
    programs = []
    for r in rows:
        if r["step"] not in programs:
            programs.append(r["step"])
    sizes = sorted({int(r["n"]) for r in rows})
    gbps = {(r["step"], int(r["n"])): gbps_of(r) for r in rows}
    peak = nominal_peak([r for r in every if r["step"] not in LIBS])   # not torch.sum's or cupy.sum's
    ceiling_path = os.path.join(out_dir, "ceiling.csv")
    ceiling = 0.0
    if os.path.exists(ceiling_path):
        ceiling = next((float(r["gbps"]) for r in read_csv(ceiling_path) if r["kind"] == "read"), 0.0)
    device = rows[0]["device"]
    floor_path = os.path.join(out_dir, "floor.csv")     # the read-only kernel at each n (cold)
    floor = {}
    if os.path.exists(floor_path):
        floor = {int(r["bytes"]) // 4: float(r["gbps"]) for r in read_csv(floor_path) if r["kind"] == "floor"}
    big = max(n for n in sizes if all((p, n) in gbps for p in programs if p != "00_naive"))
    return Measured(programs, sizes, gbps, peak, ceiling, device, floor, big)


def write_data(m, lines_dat, bars_dat):
    """gnuplot's two data files: GB/s of every program (and the floor) at
    each n, and GB/s of every program at the largest size all have."""
    with open(lines_dat, "w") as f:
        f.write("n " + " ".join(f'"{label(p)}"' for p in m.programs) + ' "floor"\n')
        for n in m.sizes:
            f.write(f"{n} " + " ".join(f"{m.gbps[(p, n)]:.1f}" if (p, n) in m.gbps else "NaN"
                                       for p in m.programs)
                    + (f" {m.floor[n]:.1f}" if n in m.floor else " NaN") + "\n")
    with open(bars_dat, "w") as f:
        for p in m.programs:
            if (p, m.big) in m.gbps:
                f.write(f'"{label(p)}" {m.gbps[(p, m.big)]:.1f}\n')


def gnuplot_script(m, out_dir, lines_dat, bars_dat):
    """The gnuplot commands that draw bandwidth.svg and bars.svg into out_dir."""
    lines = []
    for i, (p, (colour, pt)) in enumerate(zip(m.programs, styles(m.programs))):
        dashes = "dt 2 lw 3" if p == "cub" else "lw 2"
        lines.append(f"set style line {i + 1} lc rgb '{colour}' {dashes} pt {pt} ps 0.7")
    return f"""
set terminal svg size 820,780 dynamic enhanced font 'sans,17' background rgb 'white'
set output '{os.path.join(out_dir, "bandwidth.svg")}'
peak = {m.peak:.1f}
ceiling = {m.ceiling:.1f}
set title 'Sum of n floats on {m.device}: GB/s against n'
set logscale x 2
set format x '2^{{%L}}'
set xlabel 'n (elements)' offset 0,0.4
set ylabel 'GB/s (4n bytes / median time)'
# The key below the plot, three columns of titles kept short: gnuplot sizes a
# column by its longest title, and one column of 15 entries would leave the
# plot a sixth of the height (tests/bench.sh checks that it keeps half).
set key outside below center horizontal reverse Left maxcols 3 samplen 1.5 width -4 font ',15'
set grid
set logscale y 10
set yrange [0.5:peak * 1.6]
{chr(10).join(lines)}
plot for [i=2:{len(m.programs) + 1}] '{lines_dat}' using 1:i with linespoints ls (i-1) title columnheader(i), \\
     {"'" + lines_dat + "' using 1:" + str(len(m.programs) + 2) + " with lines lc rgb '" + LINES["floor"] + "' dt 2 lw 3 title 'floor: read-only at n', " + chr(92) if m.floor else chr(92)}
     (ceiling > 0 ? ceiling : 1/0) with lines lc rgb '{LINES["ceiling"]}' dt 3 lw 2 title sprintf('read ceiling %.0f GB/s', ceiling), \\
     peak with lines lc rgb '{LINES["peak"]}' dt 4 lw 2 title sprintf('nominal peak %.0f GB/s', peak)

set output '{os.path.join(out_dir, "bars.svg")}'
unset logscale x
set format x '%g'
set title 'Each program on {m.device}, n = 2^{{{m.big.bit_length() - 1}}}'
set style fill solid 0.8
set boxwidth 0.7
set xtics rotate by 30 right
set xlabel ''
unset logscale y
set key outside below center horizontal reverse Left maxcols 2 samplen 1.5 font ',15'
set yrange [0:peak * 1.15]
plot '{bars_dat}' using 0:2:xtic(1) with boxes lc rgb '#4477aa' notitle, \\
     '' using 0:2:(sprintf('%.0f', $2)) with labels offset 0,0.8 notitle, \\
     (ceiling > 0 ? ceiling : 1/0) with lines lc rgb '{LINES["ceiling"]}' dt 3 lw 2 title sprintf('read ceiling %.0f GB/s', ceiling), \\
     peak with lines lc rgb '{LINES["peak"]}' dt 4 lw 2 title sprintf('nominal peak %.0f GB/s', peak)
"""


def draw(out_dir):
    """Writes the two SVGs into out_dir; returns one line saying what happened."""
    if shutil.which("gnuplot") is None:
        return ("plots: gnuplot not found; install it (e.g. apt-get install gnuplot-nox) and run "
                f"python3 bench/plots.py {out_dir}")
    m = measured(out_dir)
    with tempfile.TemporaryDirectory() as tmp:
        lines_dat, bars_dat = os.path.join(tmp, "lines.dat"), os.path.join(tmp, "bars.dat")
        write_data(m, lines_dat, bars_dat)
        script = gnuplot_script(m, out_dir, lines_dat, bars_dat)
        p = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
        if p.returncode != 0:
            return "plots: gnuplot failed: " + p.stderr.strip()
    return f"plots: wrote {out_dir}/bandwidth.svg and bars.svg"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plots.py results/<gpu>")
    print(draw(sys.argv[1]))
