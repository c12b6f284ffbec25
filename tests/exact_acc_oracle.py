#!/usr/bin/env python3
"""exact_acc_oracle.py: checks step 10's sums against an exact sum and a
rounding of its own, with nothing but Python's standard library.

    python3 tests/exact_acc_oracle.py CASES_FILE

CASES_FILE comes from tests/exact_acc_test.cu: for each input, its name
(uint32 length, then the bytes), n (uint64), the bits of the sum that the
accumulator gave (uint32), then the n float32 elements, all little-endian.

The oracle shares no code and no method with steps/exact_acc.cuh: Python
decodes each float (struct), the sum is a Fraction, and the rounding to
float32 finds the binade and the ulp and rounds the quotient to even.
IEEE's special cases: a NaN, or +inf with -inf, gives NaN; one infinity
gives itself; an exact zero is -0 only if every term is -0. Before the
cases, the rounding checks itself against the definition (self_test).

Prints a FAIL line per wrong sum, then "N passed, N failed"; exits 1 if any failed.
"""
import math
import random
import struct
import sys
from fractions import Fraction

F32_MAX_EXP = 128       # every finite float32 is below 2^128
F32_MIN_EXP = -126      # the smallest normal binade
F32_MANT = 23           # fraction bits


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def round_to_f32(q):
    """The bits of the float32 nearest to the nonzero Fraction q, ties to even."""
    sign = 0x80000000 if q < 0 else 0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()    # 2^e <= a < 2^(e + 1), after:
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    ulp = Fraction(2) ** (max(e, F32_MIN_EXP) - F32_MANT)
    r = a / ulp
    k = math.floor(r)
    rest = r - k
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and k % 2 == 1):
        k += 1
    value = k * ulp
    if value >= Fraction(2) ** F32_MAX_EXP:
        return sign | 0x7F800000
    return sign | f32_bits(float(value))        # exact: value is a float32


def expected(data):
    """'nan' or the bits of the correctly rounded sum of the float32s in data."""
    total = Fraction(0)
    ints, den = 0, 2 ** 149                     # finite floats are multiples of 2^-149
    pos_inf = neg_inf = nan = False
    all_neg_zero = True
    for (x,) in struct.iter_unpack("<f", data):
        if math.isnan(x):
            nan = True
        elif math.isinf(x):
            pos_inf |= x > 0
            neg_inf |= x < 0
        else:
            num, d = x.as_integer_ratio()
            ints += num * (den // d)
        if not (x == 0 and math.copysign(1.0, x) < 0):
            all_neg_zero = False
    if nan or (pos_inf and neg_inf):
        return "nan"
    if pos_inf:
        return 0x7F800000
    if neg_inf:
        return 0xFF800000
    total = Fraction(ints, den)
    if total == 0:
        return 0x80000000 if all_neg_zero else 0
    return round_to_f32(total)


def f32_value(bits):
    """The Fraction a float32's bits stand for (2^128 for +inf: the overflow threshold's reference)."""
    if bits & 0x7FFFFFFF == 0x7F800000:
        return Fraction(2) ** F32_MAX_EXP
    return Fraction(struct.unpack("<f", struct.pack("<I", bits))[0])


def self_test(count=3000):
    """round_to_f32 against the definition, by another route: its result is
    no farther from q than either neighbouring float, and on a tie it is the
    even one; at or past 2^128 - 2^103 it is infinity. Returns the failures."""
    rng = random.Random(149)
    failures = 0
    for _ in range(count):
        b = rng.getrandbits(31) % 0x7F800000 or 1
        q = f32_value(b)
        choice = rng.randrange(3)
        if choice == 0:          # the midpoint to the next float up: a tie
            q = (q + f32_value(b + 1)) / 2
        elif choice == 1:        # anywhere near it
            q += Fraction(rng.randint(-2 ** 30, 2 ** 30), 2 ** rng.randint(0, 320))
        if q <= 0:
            continue
        r = round_to_f32(q) & 0x7FFFFFFF
        if r == 0x7F800000:
            failures += q < Fraction(2) ** 128 - Fraction(2) ** 103
            continue
        d = abs(q - f32_value(r))
        for other in (r - 1, r + 1):
            if other < 0:
                continue
            e = abs(q - f32_value(other))
            if e < d or (e == d and other % 2 == 0):
                failures += 1
                break
    return failures


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    passed = failed = 0
    wrong = self_test()
    if wrong:
        print("FAIL exact-acc-oracle/self-test: %d roundings are not the nearest float, ties to even"
              % wrong)
        failed += 1
    with open(sys.argv[1], "rb") as f:
        blob = f.read()
    at = 0
    while at < len(blob):
        (length,) = struct.unpack_from("<I", blob, at)
        name = blob[at + 4:at + 4 + length].decode()
        at += 4 + length
        n, got = struct.unpack_from("<QI", blob, at)
        at += 12
        data = blob[at:at + 4 * n]
        at += 4 * n
        want = expected(data)
        got_nan = (got & 0x7F800000) == 0x7F800000 and (got & 0x7FFFFF) != 0
        ok = got_nan if want == "nan" else got == want
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL exact-acc-oracle/%s n=%d: got 0x%08x, the exact sum rounds to %s"
                  % (name, n, got, want if want == "nan" else "0x%08x" % want))
    print("exact-acc-oracle: %d passed, %d failed" % (passed, failed))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
