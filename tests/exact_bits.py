#!/usr/bin/env python3
"""exact_bits.py: checks that step 10's sums are the correctly rounded exact
sums, bit for bit, from its --csv output (stdin); prints one PASS or FAIL line.

    ./step10 --check-only --csv --n 1,2,3 | python3 tests/exact_bits.py NAME [--rows N]

The harness's reference for its inputs is exact (a sum of integers times
2^-23, printed with 17 digits: every such double is read back exactly while
the sum of the integers stays below 2^53, as it does for its inputs at any
n it takes), so the float nearest to it, ties to even, is one rounding of
that double: what step 10 must give. Rows of the same n and seed must also
agree with each other, whatever the block or the grid. Until the harness
checks these bits itself (COMBINE_EXACT), this does.
"""
import argparse
import csv
import struct
import sys


def f32_bits(x):
    """The bits of the float32 nearest to the double x (ties to even); inf beyond range."""
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0x7F800000 if x > 0 else 0xFF800000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--rows", type=int, help="exactly this many result rows")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(sys.stdin) if r["step"] != "step"]
    problems = []
    if a.rows is not None and len(rows) != a.rows:
        problems.append("%d rows, expected %d" % (len(rows), a.rows))
    if not rows:
        problems.append("no rows")
    seen = {}
    for r in rows:
        got = f32_bits(float(r["sum"]))            # %.9g: a float32 read back exactly
        want = f32_bits(float(r["reference"]))
        where = "n=%s seed=%s block=%s grid=%s" % (r["n"], r["seed"], r["block"], r["grid"])
        if r["status"] != "OK":
            problems.append("WRONG at " + where)
        if got != want:
            problems.append("0x%08x at %s, the exact sum rounds to 0x%08x" % (got, where, want))
        first = seen.setdefault((r["n"], r["seed"]), got)
        if got != first:
            problems.append("0x%08x at %s, another launch gave 0x%08x" % (got, where, first))
    if problems:
        print("FAIL %s: %s" % (a.name, "; ".join(problems[:5])))
        return 1
    print("PASS %s (%d rows, every sum the exact sum rounded once)" % (a.name, len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
