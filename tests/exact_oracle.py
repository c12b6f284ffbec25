#!/usr/bin/env python3
"""exact_oracle.py: a second, independent opinion on the exact sum.

`build/tests/unit_inputs --dump DIR` writes arrays as raw float32 files and a
manifest of what common/inputs/exact.c says about each: the rounded float's bits,
the nearest double, the sum of magnitudes rounded up. This script works each
one out again with Python's integers and fractions (standard library only):
every float32 is an exact fraction (float.as_integer_ratio), their sum is an
exact Fraction, and rounding it to float32 is done here from scratch.

    python3 tests/exact_oracle.py DIR            one PASS or FAIL line per case
    python3 tests/exact_oracle.py DIR --mutant   one line: PASS if some case differs

It also checks two claims the C side cannot judge alone: a `ties` array's exact
sum lies exactly halfway between two floats, and a `cancel` array's condition
number sum|x| / |sum x| is at least 10^6.

Contents: reading a case, rounding a Fraction to float32, checking, main.
"""
import math
import struct
import sys
from array import array
from fractions import Fraction

SCALE = 2 ** 149          # every float32 is a whole multiple of 2^-149


def read_floats(path):
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder == "big":
        a.byteswap()      # the files are little-endian
    return a


def exact_terms(values):
    """The exact sum and sum of magnitudes of the finite terms (in units of
    2^-149), and what the special terms were."""
    total = magnitudes = 0
    nan = pos_inf = neg_inf = False
    neg_zero_only = len(values) > 0
    for x in values:
        if math.isnan(x):
            nan = True
        elif math.isinf(x):
            pos_inf, neg_inf = pos_inf or x > 0, neg_inf or x < 0
        else:
            num, den = x.as_integer_ratio()
            k = num * (SCALE // den)
            total += k
            magnitudes += abs(k)
        if not (x == 0 and math.copysign(1, x) < 0):
            neg_zero_only = False
    return total, magnitudes, (nan, pos_inf, neg_inf), neg_zero_only


def round_float32(q):
    """The float32 nearest the Fraction q (ties to even), as (value, was_tie).
    Floats from 2^-126 up have 24 significant bits; below, the spacing stays
    2^-149 (subnormals). Anything that rounds to 2^128 or more is infinite."""
    if q == 0:
        return 0.0, False
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()   # 2^e <= a < 2^(e+2)
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)                 # the spacing of floats there
    m = a / quantum
    whole = m.numerator // m.denominator
    rest = m - whole
    tie = rest == Fraction(1, 2)
    if rest > Fraction(1, 2) or (tie and whole % 2 == 1):
        whole += 1
    value = whole * quantum
    if value >= Fraction(2) ** 128:
        return math.copysign(math.inf, q), tie
    return math.copysign(float(value), q), tie


def bits32(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def round_up_double(q):
    d = float(q)            # correctly rounded by Python
    return math.nextafter(d, math.inf) if Fraction(d) < q else d


def expected(values):
    """(bits of the float32 sum, the nearest double, the magnitudes rounded up, tie, condition)."""
    total, magnitudes, (nan, pos_inf, neg_inf), neg_zero_only = exact_terms(values)
    if nan or (pos_inf and neg_inf):
        return None, math.nan, math.inf, False, None
    if pos_inf or neg_inf:
        v = math.inf if pos_inf else -math.inf
        return bits32(v), v, math.inf, False, None
    q = Fraction(total, SCALE)
    v, tie = round_float32(q)
    if total == 0:
        v = -0.0 if neg_zero_only else 0.0
    d = float(q) if total else v
    condition = magnitudes / abs(total) if total else None
    return bits32(v), d, round_up_double(Fraction(magnitudes, SCALE)), tie, condition


def check_case(folder, line):
    """Returns (name, list of problems) for one manifest line."""
    name, file, n, bits, dbl, mag = line.rstrip("\n").split("|")
    values = read_floats(f"{folder}/{file}")
    problems = []
    if len(values) != int(n):
        return name, [f"{len(values)} floats in {file}, the manifest says {n}"]
    want_bits, want_d, want_mag, tie, condition = expected(values)
    got_bits, got_d, got_mag = int(bits, 16), float.fromhex(dbl), float.fromhex(mag)
    if want_bits is None:
        if not math.isnan(struct.unpack("<f", struct.pack("<I", got_bits))[0]):
            problems.append(f"bits {bits}, want a NaN")
    elif got_bits != want_bits:
        problems.append(f"bits {bits}, want {want_bits:08x}")
    same_d = got_d == want_d and math.copysign(1, got_d) == math.copysign(1, want_d)
    if not (same_d or (math.isnan(got_d) and math.isnan(want_d))):
        problems.append(f"double {dbl}, want {float.hex(want_d)}")
    if got_mag != want_mag:
        problems.append(f"sum of magnitudes {mag}, want {float.hex(want_mag)}")
    if name.startswith("ties/") and int(n) >= 2 and not tie:
        problems.append("the exact sum is not halfway between two floats")
    if name.startswith("cancel/") and int(n) >= 2 and not (condition and condition >= 10 ** 6):
        problems.append(f"condition number {condition}, want at least 10^6")
    return name, problems


def main():
    if len(sys.argv) < 2:
        print("usage: exact_oracle.py DIR [--mutant]", file=sys.stderr)
        return 2
    folder, mutant = sys.argv[1], "--mutant" in sys.argv[2:]
    with open(f"{folder}/manifest.txt") as f:
        results = [check_case(folder, line) for line in f if line.strip()]
    if mutant:
        wrong = [name for name, problems in results if problems]
        ok = len(wrong) > 0
        print(f"{'PASS' if ok else 'FAIL'} inputs/oracle: the truncating mutant of exact_round is "
              f"caught ({len(wrong)} of {len(results)} cases differ, e.g. {wrong[:1]})")
        return 0 if ok else 1
    failed = 0
    for name, problems in results:
        extra = " (a tie)" if name.startswith("ties/") else ""
        if problems:
            failed += 1
            print(f"FAIL inputs/oracle/{name}: {'; '.join(problems)}")
        else:
            print(f"PASS inputs/oracle/{name}: the same sum as exact fractions{extra}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
