#!/usr/bin/env python3
"""accuracy_tables.py: the comparison chapter's tables of accuracy, from results/<gpu>/accuracy.csv.

    python3 bench/accuracy_tables.py [--results results]

For every RESULTS/<gpu>/ with an accuracy.csv (make accuracy, bench/accuracy.py), and for each
table of TABLES, it writes results/<gpu>/accuracy_<input>.md: a row per program, its median
error in ulp of the correctly rounded sum over the seeds at each size, the worst seed's at the
last size, the median relative error |error| / sum|x| at the sizes of rel and, for uniform, the
depth the harness's bound counted; and accuracy_<input>_seeds.md: at one size, a column per
seed, what each program returned (its ulp error, or NaN, +inf, -inf) under what the correctly
rounded sum is. A file without an input column holds uniform only. Only the standard library.
"""
import argparse
import glob
import math
import os

from lib import pipe_table, read_csv, size_md

K = lambda *ks: [2 ** k for k in ks]  # noqa: E731
# input, sizes, sizes of the relative error, depth; or input and one size, by seed.
TABLES = [("uniform", K(10, 14, 18, 22, 24, 28), K(24, 28), True)] + \
         [(i, K(10, 14, 18, 22, 24), K(10, 24), False) for i in ("wide", "cancel", "ties")]
SEEDS = [("ties", 2 ** 20), ("huge", 2 ** 20)]
SHORT = {"cub": "CUB", "cub_segmented": "CUB offsets", "cub_segmented_fixed": "CUB fixed-size"}


def num(text):
    if text in ("inf", "-inf"):
        return math.inf if text == "inf" else -math.inf
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def median(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def sci(x):
    m, e = f"{x:.1e}".split("e")
    return f"{m}e{'-' if e[0] == '-' else ''}{int(e[1:])}"


def ulp_text(u):
    if u is None:
        return "–"
    if u == math.inf:
        return "inf"
    if u < 1e6 and u == math.floor(u):
        return f"{u:.0f}"
    return f"{u:.2g}" if u < 10 else f"{u:.1f}" if u < 100 else f"{u:.0f}" if u < 1e6 else sci(u)


def rel_text(r):
    return "–" if r is None else "inf" if r == math.inf else "0" if r == 0 else sci(r)


def kind(hexbits, text=None):
    """What a float holds: finite, NaN, +inf or −inf (from its bits, else its text)."""
    if hexbits:
        b = int(hexbits, 0)
        return "finite" if b & 0x7f800000 != 0x7f800000 else "NaN" if b & 0x7fffff else \
            "−inf" if b & 0x80000000 else "+inf"
    text = (text or "").lower()
    return "NaN" if "nan" in text else "+inf" if text in ("inf", "+inf") else "−inf" if text == "-inf" else "finite"


def distinct(rows, col):
    out = list(dict.fromkeys(r[col] for r in rows))
    return sorted(out, key=float) if all(num(v) is not None for v in out) else out


def medians(rows, name, sizes, rel, depth):
    last = sizes[-1]
    values = lambda p, n, col: [num(r.get(col)) for r in rows if r["step"] == p and int(r["n"]) == n]  # noqa: E731
    head = ["program"] + [size_md(n) for n in sizes] + [f"worst seed, {size_md(last)}"] + \
        [f"relative, {size_md(n)}" for n in rel] + ([f"depth, {size_md(last)}"] if depth else [])
    body = []
    for p in dict.fromkeys(r["step"] for r in rows):
        line = [SHORT.get(p, p)] + [ulp_text(median(values(p, n, "ulp_error"))) for n in sizes]
        worst = [x for x in values(p, last, "ulp_error") if x is not None]
        line.append(ulp_text(max(worst) if worst else None))
        line += [rel_text(median(values(p, n, "rel_error"))) for n in rel]
        if depth:
            r = next((r for r in rows if (r["step"] == p or r["step"].startswith(p + "_")) and int(r["n"]) == last), None)
            d = num(r.get("depth")) if r else None
            line.append("not known" if p[:3] == "cub" else f"{d:.0f}" if d is not None else "–")
        body.append(line)
    r0 = rows[0]
    return pipe_table(head, [":--"] + ["--:"] * (len(head) - 1), body, (
        f"Table: Input {r0.get('input') or 'uniform'}: each program's error in ulp of the correctly rounded sum "
        f"(0: the same bits), the median of {len(distinct(rows, 'seed'))} seeds, and its relative error "
        f"|error| / Σ|x| (median), on {r0['device']} (`{name}/accuracy.csv`). inf: a sum that overflowed, or NaN, "
        "where the correctly rounded sum is not that." +
        (" (A file from before the inputs: its ulp are those of the exact sum, and it has no relative errors.)"
         if "reference_hex" not in r0 else "") +
        (" Depth: the most additions an element goes through, as the harness's error bound counts them; "
         "CUB's order is not known to the harness." if depth else "")))


def seeds(rows, name, n):
    at = [r for r in rows if int(r["n"]) == n]
    if not at:
        return None
    ss = distinct(at, "seed")
    body = [["*correctly rounded sum*"] + [f"*{kind(next(r for r in at if r['seed'] == s).get('reference_hex'))}*"
                                           for s in ss]]
    for p in dict.fromkeys(r["step"] for r in at):
        line = [SHORT.get(p, p)]
        for s in ss:
            mine = [r for r in at if r["step"] == p and r["seed"] == s]
            if not mine:
                line.append("–")
                continue
            r = mine[-1]
            k, u = kind(r.get("sum_hex"), r["sum"]), num(r["ulp_error"])
            line.append(k if k != "finite" else "finite" if u == math.inf else ulp_text(u))
        body.append(line)
    return pipe_table(["program"] + [f"seed {s}" for s in ss], [":--"] + ["--:"] * len(ss), body,
                      f"Table: Input {at[0].get('input') or 'uniform'} at n = {size_md(n)}: what each program "
                      "returned, seed by seed: its error in ulp of the correctly rounded sum where it is finite (0: "
                      f"the same bits), or NaN, +inf or −inf, on {at[0]['device']} (`{name}/accuracy.csv`).")


def write_tables(out_dir, name):
    """accuracy_<input>.md and accuracy_<input>_seeds.md in out_dir (name: the folder the captions cite)."""
    rows = read_csv(os.path.join(out_dir, "accuracy.csv"))
    of = lambda i: [r for r in rows if (r.get("input") or "uniform") == i]  # noqa: E731
    files = [(f"accuracy_{i}.md", of(i) and medians(of(i), name, sizes, rel, depth)) for i, sizes, rel, depth in TABLES]
    files += [(f"accuracy_{i}_seeds.md", of(i) and seeds(of(i), name, n)) for i, n in SEEDS]
    for f, text in files:
        if text:
            with open(os.path.join(out_dir, f), "w") as out:
                out.write(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="the comparison chapter's tables of accuracy")
    ap.add_argument("--results", default="results", help="the folder of the results/<gpu>/ folders (results)")
    for d in sorted(os.path.dirname(f) for f in glob.glob(os.path.join(ap.parse_args().results, "*", "accuracy.csv"))):
        write_tables(d, d)
