/* dexact.c: the exact sum of doubles, rounded once (typed.h, section 2).
 *
 * The float accumulator's idea (inputs/exact.c) with a wider integer. A
 * double's bits are a sign, an exponent field E (11 bits) and a fraction f
 * (52 bits): for E from 1 to 2046 it is (2^52 + f) * 2^(E - 1075), for E = 0
 * f * 2^-1074. Either way (-1)^s * m * 2^p units of 2^-1074, with m < 2^53 and
 * p = max(E - 1, 0) <= 2045: below 2^2098. A sum of up to 2^40 of them is
 * below 2^2138 units: 68 digits of 32 bits (2176 bits) hold it with its sign.
 * Each digit is an int64_t, so that it can take 2^28 additions (each below
 * 2^33) before it must carry. Integers add exactly and in any order.
 *
 * Infinities and NaNs are counted, and IEEE's rules decide at the end.
 */
#include <math.h>
#include <string.h>

#include "typed.h"

#define DIGIT_MASK INT64_C(0xffffffff)
#define DIGIT ((int64_t)1 << 32)
#define CARRY_EVERY ((uint64_t)1 << 28)

/* v * 2^p added to (or taken from) the digits: three digits from p / 32. */
static void add_shifted(int64_t *d, uint64_t v, int p, int negative)
{
    int j = p >> 5, s = p & 31;
    uint64_t lo = (v & 0xffffffffu) << s, hi = (v >> 32) << s;   /* each < 2^63 */
    int64_t d0 = (int64_t)(lo & 0xffffffffu);
    int64_t d1 = (int64_t)(lo >> 32) + (int64_t)(hi & 0xffffffffu);
    int64_t d2 = (int64_t)(hi >> 32);
    if (negative) d0 = -d0, d1 = -d1, d2 = -d2;
    d[j] += d0, d[j + 1] += d1, d[j + 2] += d2;        /* j + 2 <= 65 */
}

/* Digits 0..66 into [0, 2^32), the rest up into digit 67 (signed). */
static void carry(int64_t *d)
{
    for (int j = 0; j < DEXACT_DIGITS - 1; j++) {
        int64_t low = d[j] & DIGIT_MASK;
        d[j + 1] += (d[j] - low) / DIGIT;
        d[j] = low;
    }
}

void dexact_init(dexact_t *a)
{
    memset(a, 0, sizeof *a);
}

void dexact_add(dexact_t *a, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    int negative = (int)(u >> 63);
    unsigned e = (unsigned)(u >> 52 & 0x7ff);
    uint64_t m = u & ((UINT64_C(1) << 52) - 1);
    a->not_neg_zero |= u != UINT64_C(1) << 63;
    if (e == 0x7ff) {
        if (m) a->nans++;
        else if (negative) a->neg_infs++;
        else a->pos_infs++;
        return;
    }
    if (e) m |= UINT64_C(1) << 52;
    int p = e ? (int)e - 1 : 0;
    add_shifted(a->sum, m, p, negative);
    add_shifted(a->abs, m, p, 0);
    if (++a->pending == CARRY_EVERY) carry(a->sum), carry(a->abs), a->pending = 0;
}

void dexact_merge(dexact_t *into, const dexact_t *from)
{
    carry(into->sum), carry(into->abs);
    dexact_t f = *from;
    carry(f.sum), carry(f.abs);
    for (int j = 0; j < DEXACT_DIGITS; j++) into->sum[j] += f.sum[j], into->abs[j] += f.abs[j];
    into->pending = 1;                  /* each digit below 2^33 now: far from full */
    into->not_neg_zero |= f.not_neg_zero;
    into->nans += f.nans, into->pos_infs += f.pos_infs, into->neg_infs += f.neg_infs;
}

/* ---- reading ----------------------------------------------------------------------
 * The magnitude's bits, the top 53 kept and the rest rounded: to nearest even
 * (up = 0), or up (up = 1) for the sum of magnitudes. */
static double round_digits(const int64_t *digits, int up, int *negative)
{
    int64_t d[DEXACT_DIGITS];
    memcpy(d, digits, sizeof d);
    carry(d);
    *negative = d[DEXACT_DIGITS - 1] < 0;
    if (*negative) {                   /* two's complement: the magnitude */
        for (int j = 0; j < DEXACT_DIGITS; j++) d[j] = -d[j];
        carry(d);
    }
    int top = -1;                      /* the highest bit set */
    for (int j = DEXACT_DIGITS - 1; j >= 0 && top < 0; j--)
        for (int b = 31; b >= 0 && top < 0; b--)
            if (d[j] >> b & 1) top = 32 * j + b;
    if (top < 0) return 0;
#define BIT(k) ((k) >= 0 && (d[(k) >> 5] >> ((k) & 31) & 1))
    int low = top >= 52 ? top - 52 : 0;     /* the lowest bit kept */
    uint64_t q = 0;
    for (int k = top; k >= low; k--) q = q << 1 | (uint64_t)BIT(k);
    int half = BIT(low - 1), sticky = 0;
    for (int k = low - 2; k >= 0 && !sticky; k--) sticky = BIT(k);
#undef BIT
    if (up ? half || sticky : half && (sticky || (q & 1))) q++;
    return ldexp((double)q, low - 1074);   /* inf past the range */
}

double dexact_round(const dexact_t *a)
{
    if (a->nans || (a->pos_infs && a->neg_infs)) return NAN;
    if (a->pos_infs) return INFINITY;
    if (a->neg_infs) return -INFINITY;
    int negative;
    double v = round_digits(a->sum, 0, &negative);
    if (v == 0) return a->not_neg_zero ? 0.0 : -0.0;
    return negative ? -v : v;
}

double dexact_abs_up(const dexact_t *a)
{
    int negative;
    return dexact_special(a) ? INFINITY : round_digits(a->abs, 1, &negative);
}

double dexact_error(const dexact_t *a, double result)
{
    if (dexact_special(a)) {
        double want = dexact_round(a);
        return (isnan(want) && isnan(result)) || want == result ? 0 : NAN;
    }
    if (!isfinite(result)) return result;           /* inf or NaN: infinitely far */
    dexact_t d = *a;
    dexact_add(&d, -result);
    return -dexact_round(&d);
}

int dexact_special(const dexact_t *a)
{
    return a->nans || a->pos_infs || a->neg_infs;
}
