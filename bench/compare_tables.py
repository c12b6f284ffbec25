#!/usr/bin/env python3
"""compare_tables.py: tables of make compare's CSVs that the chapters include, as Markdown.

    python3 bench/compare_tables.py [--results results]

For every RESULTS/<gpu>/ with a compare.csv (bench/compare.py calls this after measuring), it
writes results/<gpu>/:
    grid_median.md, grid_vs_cub.md   every program against the sizes (the comparison chapter):
                                     median time (then the floor's rows, floor.csv) or CUB's time
                                     over the program's, input not in L2
    grid_warm_vs_cub.md              the same from compare-warm.csv (input left in L2)
    ceiling.md                       what the GPU can read, copy and launch (ceiling.csv)
    determinism.md                   distinct results per program (determinism.csv); a chapter
                                     that includes it shows its own step's row in bold
    compare_summary.csv              what=below, of=floor or empty, cache=cold or warm: how far the
                                     programs' medians fall below the read-only (or empty) kernel's,
                                     as a clause ([]{.m ... fmt="clause"} in the comparison chapter)
    peak.csv                         the nominal peak (bench/peak.py, from every row of compare.csv),
                                     which the pages' captions and []{.m v="peak"} give
    report.md                        the line step 03 prints at 2^28, rebuilt from its row
                                     (report.c's format), for the introduction
Only the standard library.
"""
import argparse
import glob
import os

from lib import pipe_table, ratio_text, read_csv, size_md, time_text, write_csv
from peak import gbps_text, nominal_peak

K = lambda *ks: [2 ** k for k in ks]  # noqa: E731
# file, the CSV, the metric, the sizes.
GRIDS = [("grid_median.md", "compare.csv", "median", K(10, 12, 14, 16, 20, 24, 28)),
         ("grid_vs_cub.md", "compare.csv", "vs_cub", K(10, 12, 14, 16, 20, 24, 28)),
         ("grid_warm_vs_cub.md", "compare-warm.csv", "vs_cub", K(10, 12, 14, 18, 22, 24, 28))]
SHORT = {"cub": "CUB", "cub_segmented": "CUB offsets", "cub_segmented_fixed": "CUB fixed-size"}
CEILING = {"read": "read only (the ceiling for a sum)", "copy": "copy (bytes read + written)",
           "empty": "empty kernel (one launch)"}


def find_row(rows, prog, n):
    """The first row of prog ("03" names 03_warp_shuffle; "cub" only CUB's default) at n."""
    return next((r for r in rows if (r["step"] == prog or (prog != "cub" and r["step"].startswith(prog + "_")))
                 and int(r["n"]) == n), None)


def caption(d, rows, file, what, name):
    full = read_csv(os.path.join(d, "compare.csv")) if os.path.exists(os.path.join(d, "compare.csv")) else []
    peak = nominal_peak(full or rows)
    return (f"Table: {what} on {rows[0]['device']}" + (f", nominal peak {gbps_text(peak)} GB/s" if peak else "") +
            f" (`{name}/{file}`).")


def grid(d, name, file, metric, sizes):
    rows = read_csv(os.path.join(d, file))
    body = []
    for prog in dict.fromkeys(r["step"] for r in rows):
        line = [SHORT.get(prog, prog)]
        for n in sizes:
            r, cub = find_row(rows, prog, n), find_row(rows, "cub", n)
            if r and metric == "vs_cub":
                line.append(ratio_text(float(cub["median_us"]) / float(r["median_us"])) if cub else "–")
            else:
                line.append(time_text(float(r["median_us"])) if r else "–")
        body.append(line)
    warm = file != "compare.csv"
    floor = read_csv(os.path.join(d, "floor.csv")) if os.path.exists(os.path.join(d, "floor.csv")) else []
    at = {int(r["bytes"]) // 4: float(r["median_us"]) for r in floor if r["kind"] == ("floor_warm" if warm else "floor")}
    empty = next((float(r["median_us"]) for r in floor if r["kind"] == "empty"), None)
    if metric == "median" and at:
        body.append(["*floor: read-only kernel*"] + [time_text(at[n]) if n in at else "–" for n in sizes])
        if empty is not None:
            body.append(["*floor: empty kernel*"] + [time_text(empty)] * len(sizes))
    what = ("Speed relative to CUB (CUB's median time ÷ the program's)" if metric == "vs_cub" else
            "Median time by program and n") + (", input in L2 (warm)" if warm else "")
    return pipe_table(["program"] + [size_md(n) for n in sizes], [":--"] + ["--:"] * len(sizes), body,
                      caption(d, rows, file, what, name))


def bytes_text(b):
    units, u = ["B", "KiB", "MiB", "GiB", "TiB"], 0
    while b >= 1024 and u < len(units) - 1:
        b, u = b / 1024, u + 1
    return f"{int(b)} {units[u]}" if u == 0 or b == int(b) else f"{b:.1f} {units[u]}"


def ceiling(d, name):
    rows = read_csv(os.path.join(d, "ceiling.csv"))
    body = [[CEILING.get(r["kind"], r["kind"]), bytes_text(float(r["bytes"])) if float(r["bytes"] or 0) > 0 else "–",
             time_text(float(r["median_us"])), gbps_text(float(r["gbps"])) if float(r["gbps"] or 0) > 0 else "–"]
            for r in rows]
    return pipe_table(["kernel", "bytes", "median time", "GB/s"], [":--", "--:", "--:", "--:"], body,
                      f"Table: What {rows[0]['device']} can do at all (`{name}/ceiling.csv`).")


def determinism(d, name):
    rows = read_csv(os.path.join(d, "determinism.csv"))
    body = [[SHORT.get(r["step"], r["step"]), r["deterministic"], size_md(int(r["n"])), r["runs"], r["distinct"],
             f"{float(r['spread_ulp'] or 0):.0f}" if float(r["spread_ulp"] or 0) > 0 else "0"] for r in rows]
    return pipe_table(["program", "declared deterministic", "n", "runs", "distinct results", "spread (ulp)"],
                      [":--", ":--", "--:", "--:", "--:", "--:"], body,
                      f"Table: The same input summed again and again on {rows[0]['device']} (`{name}/determinism.csv`): "
                      "how many different float results came out, and how far apart the extremes are in units in "
                      "the last place.")


def human(x, units, step, fmt):
    u = 0
    while x >= step and u < len(units) - 1:
        x, u = x / step, u + 1
    return f"{x:.0f} {units[0]}" if u == 0 and fmt else f"{x:.2f} {units[u]}"


def report(d, name, step="03", n=2 ** 28):
    """What ./step03 --n 2^28 prints for its row of compare.csv, as a listing."""
    r = find_row(read_csv(os.path.join(d, "compare.csv")), step, n)
    if not r:
        return None
    t = lambda us: f"{us:.2f} us" if us < 10000 else f"{us / 1000:.2f} ms"  # noqa: E731
    runs, distinct = int(r["runs"]), int(r["distinct"])
    if r["replica"] in ("equal", "differs"):
        det = (f"same bits on any GPU, grid and block: {'yes' if r['replica'] == 'equal' else 'NO'} ({runs} runs, "
               f"{'equal to' if r['replica'] == 'equal' else 'not all equal to'} the CPU replica of the order)")
    elif distinct == 1:
        det = f"deterministic: {r['deterministic']} ({runs} runs, all identical)"
    else:
        det = (f"deterministic: {r['deterministic']} ({runs} runs, {distinct} distinct, "
               f"spread {float(r['spread_ulp']):.0f} ulp)")
    f = lambda k: float(r[k])  # noqa: E731
    line = (f"{r['step']} | {r['technique']} | n {r['n']} ({human(f('bytes'), ['B', 'KB', 'MB', 'GB', 'TB'], 1000, 1)}) | "
            f"median {t(f('median_us'))}, min {t(f('min_us'))} | {f('gbps'):.0f} GB/s, {f('pct_peak'):.1f}% of peak | "
            f"sum {f('sum'):.9g} (exact {f('reference'):.9g}) err {f('error'):.1e}, bound {f('bound'):.1e} | "
            f"{r['status']} | {det}")
    prog = "./build/bench/cub_sum" if r["step"] == "cub" else "./step" + r["step"][:2]
    cmd = f"$ {prog} --n {size_md(n).rstrip('^')}" + ("" if r["reps"] == "20" else f" --reps {r['reps']}")
    return f"One line of `{name}/compare.csv`, as the program prints it on {r['device']}:\n\n```console\n{cmd}\n{line}\n```\n"


def below(d, of, cache):
    """How far any program's median falls below the floor (of: floor, the read-only kernel at
    the same n, or empty, the empty kernel), in words; None if either file is missing."""
    rows_file = "compare.csv" if cache == "cold" else "compare-warm.csv"
    if not all(os.path.exists(os.path.join(d, f)) for f in (rows_file, "floor.csv")):
        return None
    floor = read_csv(os.path.join(d, "floor.csv"))
    at = {int(r["bytes"]) // 4: float(r["median_us"]) for r in floor if r["kind"] == ("floor" if cache == "cold" else "floor_warm")}
    empty = next((float(r["median_us"]) for r in floor if r["kind"] == "empty"), None)
    if (of == "floor" and not at) or (of == "empty" and empty is None):
        return None
    what, worst = "the read-only kernel’s" if of == "floor" else "the empty kernel’s", None
    for r in read_csv(os.path.join(d, rows_file)):
        f = at.get(int(r["n"])) if of == "floor" else empty
        if r["status"] == "OK" and f is not None and f - float(r["median_us"]) > (worst[1] if worst else 0):
            worst = (r["step"], f - float(r["median_us"]), int(r["n"]), f)
    if not worst:
        return "no program’s median is below " + what
    p = 100 * worst[1] / worst[3]
    pct = f"{p:.2f}%" if p < 1 else f"{p:.1f}%"
    return (f"the median of {SHORT.get(worst[0], worst[0])} at {size_md(worst[2])} is {time_text(worst[1])} "
            f"({pct}) below {what}, the most of any program")


def write_tables(d, name):
    """The files above, in d (name: results/<gpu>, as the captions cite it)."""
    files = [(f, grid(d, name, csv, metric, sizes)) for f, csv, metric, sizes in GRIDS
             if os.path.exists(os.path.join(d, csv)) and read_csv(os.path.join(d, csv))]
    for f, build in (("ceiling", ceiling), ("determinism", determinism)):
        if os.path.exists(os.path.join(d, f + ".csv")) and read_csv(os.path.join(d, f + ".csv")):
            files.append((f + ".md", build(d, name)))
    if report(d, name):
        files.append(("report.md", report(d, name)))
    summary = [{"what": "below", "of": of, "cache": c, "text": below(d, of, c)}
               for c in ("cold", "warm") for of in ("floor", "empty") if below(d, of, c)]
    write_csv(os.path.join(d, "compare_summary.csv"), summary, ["what", "of", "cache", "text"])
    peak = nominal_peak(read_csv(os.path.join(d, "compare.csv")))
    files.append(("peak.csv", f"nominal_peak_gbps\n{peak!r}\n" if peak else "nominal_peak_gbps\n\n"))
    for f, text in files:
        with open(os.path.join(d, f), "w") as out:
            out.write(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="the tables of make compare's CSVs that the chapters include")
    ap.add_argument("--results", default="results", help="the folder of the results/<gpu>/ folders (results)")
    for f in sorted(glob.glob(os.path.join(ap.parse_args().results, "*", "compare.csv"))):
        write_tables(os.path.dirname(f), os.path.dirname(f))
