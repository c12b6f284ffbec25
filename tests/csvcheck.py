#!/usr/bin/env python3
"""csvcheck.py: checks the --csv output of a step (stdin) and prints one line,
PASS or FAIL, for tests/run to count.

    ./step03 --csv --n 1,2,3 | python3 tests/csvcheck.py NAME --rows 3 --ok all

Several programs' output may be concatenated: their header lines are skipped.
"""
import argparse
import csv
import sys


def arguments():
    """The command line: the test's name and what to ask of the rows."""
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--rows", type=int, help="exactly this many result rows")
    ap.add_argument("--ok", choices=["all", "none", "some-wrong"], default="all",
                    help="all rows OK / every row WRONG / at least one row WRONG")
    ap.add_argument("--distinct", type=int, help="every row has this many distinct results")
    ap.add_argument("--rc", type=int, help="the program's exit code, to check too")
    ap.add_argument("--want-rc", type=int, default=None)
    ap.add_argument("--same-sum", action="store_true",
                    help="rows of the same n and seed have the same sum, whatever block or grid")
    ap.add_argument("--exact-bits", action="store_true",
                    help="every row's sum has the bits of the correctly rounded sum (sum_hex = reference_hex)")
    ap.add_argument("--replica", choices=["equal"],
                    help="every row's result was the CPU replica of the order, bit for bit")
    return ap.parse_args()


def label(r):
    """Which run a row is, for a FAIL line."""
    return f"n={r['n']} seed={r['seed']}"


def status_problems(rows, a):
    """What is wrong with the number of rows, their OK/WRONG and their distinct results."""
    problems = []
    if a.rows is not None and len(rows) != a.rows:
        problems.append(f"{len(rows)} rows, expected {a.rows}")
    if not rows:
        problems.append("no rows")
    wrong = [r for r in rows if r["status"] != "OK"]
    if a.ok == "all" and wrong:
        problems.append("WRONG at " + ", ".join(label(r) for r in wrong[:5]))
    if a.ok == "none" and len(wrong) != len(rows):
        ok = [r for r in rows if r["status"] == "OK"]
        problems.append("not caught at " + ", ".join(label(r) for r in ok[:5]))
    if a.ok == "some-wrong" and not wrong:
        problems.append("no row WRONG")
    if a.distinct is not None:
        bad = [r for r in rows if int(r["distinct"]) != a.distinct]
        if bad:
            problems.append("distinct results " + ", ".join(
                f"{r['distinct']} at {label(r)}" for r in bad[:5]))
    return problems


def bits_problems(rows, a):
    """What is wrong with the sums' bits: one sum per input, the correctly rounded one, the replica's."""
    problems = []
    if a.same_sum:
        sums = {}
        for r in rows:
            sums.setdefault((r["n"], r["seed"], r.get("input", "")), set()).add(r.get("sum_hex", r["sum"]))
        split = [f"n={n} seed={s} {i}: {sorted(v)}" for (n, s, i), v in sums.items() if len(v) > 1]
        if split:
            problems.append("different sums for one input: " + "; ".join(split[:3]))
    if a.exact_bits:
        off = [r for r in rows if r.get("sum_hex") is None or r["sum_hex"] != r["reference_hex"]]
        if off:
            problems.append("not the correctly rounded sum at " + ", ".join(
                f"{label(r)} {r.get('input', '')}: {r.get('sum_hex')} vs {r.get('reference_hex')}" for r in off[:5]))
    if a.replica:
        off = [r for r in rows if r.get("replica") != "equal"]
        if off:
            problems.append("not the replica's bits at " + ", ".join(
                f"{label(r)} block={r['block']} grid={r['grid']}" for r in off[:5]))
    return problems


def main():
    a = arguments()
    rows = [r for r in csv.DictReader(sys.stdin) if r["step"] != "step"]
    problems = status_problems(rows, a) + bits_problems(rows, a)
    if a.want_rc is not None and a.rc != a.want_rc:
        problems.append(f"exit code {a.rc}, expected {a.want_rc}")

    wrong = [r for r in rows if r["status"] != "OK"]
    detail = f"{len(rows)} runs, {len(wrong)} WRONG"
    if problems:
        print(f"FAIL {a.name}: {'; '.join(problems)}")
        return 1
    print(f"PASS {a.name} ({detail})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
