/* exact_round.c: reading an exact sum (see exact.h): the float it rounds
 * to, a double near it, the sum of magnitudes, the error of a result.
 *
 * Contents
 *   1. the magnitude's bits
 *   2. rounding to a given number of bits
 *   3. the special cases, and the results
 *
 * The exact sum is an integer in units of 2^-149 (exact.c). Rounding reads
 * its magnitude's highest set bit h. At most 24 bits from h down survive
 * into a float; the next bit down is the "half" bit and the OR of all bits
 * below it is the "sticky" bit. Round to nearest,
 * ties to even: add one to the kept bits if half is set and (sticky is set,
 * or the kept bits are odd). Worked example, in units of 2^-149: 2^24 + 1 has
 * h = 24, keeps 2^23 (the top 24 bits, shifted right by one), half = 1,
 * sticky = 0, kept bits even: a tie, it stays 2^24. 2^24 + 3 keeps
 * 2^23 + 1, half = 1, odd: it rounds up to 2^24 + 4.
 */
#include <math.h>
#include <string.h>

#include "exact.h"

/* ---- 1. the magnitude's bits ---------------------------------------------------------- */
#define MAG 11    /* 32-bit digits of a magnitude: the ten, the last one's high half */

/* The magnitude of carried digits d as MAG unsigned digits, lowest first;
 * returns 1 if the sum is negative. A negative sum is negated in two's
 * complement: flip every bit, add one. */
static int magnitude(const int64_t *d, uint32_t *mag)
{
    uint64_t top = (uint64_t)d[EXACT_LIMBS - 1];
    for (int j = 0; j < EXACT_LIMBS - 1; j++) mag[j] = (uint32_t)d[j];
    mag[EXACT_LIMBS - 1] = (uint32_t)top;
    mag[EXACT_LIMBS] = (uint32_t)(top >> 32);
    int negative = d[EXACT_LIMBS - 1] < 0;
    if (negative) {
        uint64_t c = 1;
        for (int j = 0; j < MAG; j++) {
            c += (uint32_t)~mag[j];
            mag[j] = (uint32_t)c;
            c >>= 32;
        }
    }
    return negative;
}

/* Bit k of the magnitude (0 outside it). */
static int bit_at(const uint32_t *mag, int k)
{
    return k >= 0 && k < 32 * MAG ? (int)(mag[k >> 5] >> (k & 31)) & 1 : 0;
}

/* Is any bit below position k set? */
static int any_below(const uint32_t *mag, int k)
{
    for (int j = 0; j < MAG && 32 * j < k; j++) {
        int bits = k - 32 * j;        /* of this digit, those below k */
        uint32_t m = bits >= 32 ? mag[j] : mag[j] & ((1u << bits) - 1);
        if (m) return 1;
    }
    return 0;
}

static int highest_bit(const uint32_t *mag)
{
    for (int k = 32 * MAG - 1; k >= 0; k--)
        if (bit_at(mag, k)) return k;
    return -1;
}

/* ---- 2. rounding to a given number of bits ---------------------------------------------- */
enum { NEAREST_EVEN, UPWARD };

/* Rounds a nonzero magnitude to prec bits: the result is q * 2^s (units of
 * 2^-149), q < 2^prec, s >= 0. A magnitude below 2^prec keeps every bit
 * (s = 0): for a float, the subnormals and the lowest binade, all exact. */
static uint64_t round_bits(const uint32_t *mag, int prec, int mode, int *s_out)
{
    int h = highest_bit(mag);
    int s = h - (prec - 1) > 0 ? h - (prec - 1) : 0;
    uint64_t q = 0;
    for (int k = s + prec - 1; k >= s; k--) q = q << 1 | (uint64_t)bit_at(mag, k);
    int half = bit_at(mag, s - 1), sticky = any_below(mag, s - 1);
    if (mode == NEAREST_EVEN ? half && (sticky || (q & 1)) : half || sticky) q++;
    if (q >> prec) {           /* rounded up to the next power of two */
        q >>= 1;
        s++;
    }
    *s_out = s;
    return q;
}

/* ---- 3. the special cases, and the results ---------------------------------------------- */
/* A float from its bits. */
static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* NaN, +inf, -inf when the terms decide the sum alone; 0 when they don't. */
static int special_result(const exact_sum_t *acc, float *out)
{
    if (acc->nans || (acc->pos_infs && acc->neg_infs)) *out = bits_float(0x7fc00000u);
    else if (acc->pos_infs) *out = bits_float(0x7f800000u);
    else if (acc->neg_infs) *out = bits_float(0xff800000u);
    else return 0;
    return 1;
}

float exact_round(const exact_sum_t *acc)
{
    float special;
    if (special_result(acc, &special)) return special;
    uint32_t mag[MAG];
    uint32_t sign = (uint32_t)magnitude(acc->sum, mag) << 31;
    if (highest_bit(mag) < 0)
        return acc->terms > 0 && !acc->not_neg_zero ? -0.0f : 0.0f;
    int s;
    uint64_t q = round_bits(mag, 24, NEAREST_EVEN, &s);
    /* q * 2^(s - 149) with q in [2^23, 2^24) has exponent field s + 1, and
     * q's leading bit adds that 1: its bits are s * 2^23 + q. With s = 0 and
     * q < 2^23 it is a subnormal, whose bits are q. */
    uint64_t bits = ((uint64_t)s << 23) + q;
    if (bits >= 0x7f800000u) return bits_float(sign | 0x7f800000u);   /* overflow */
    return bits_float(sign | (uint32_t)bits);
}

/* The digits d as a double, rounded as mode says. */
static double digits_to_double(const int64_t *d, int mode)
{
    uint32_t mag[MAG];
    int negative = magnitude(d, mag);
    if (highest_bit(mag) < 0) return 0.0;
    int s;
    uint64_t q = round_bits(mag, 53, mode, &s);
    double v = ldexp((double)q, s - 149);      /* exact: q < 2^53 */
    return negative ? -v : v;
}

double exact_to_double(const exact_sum_t *acc)
{
    float special;
    if (special_result(acc, &special)) return (double)special;
    if (acc->terms > 0 && !acc->not_neg_zero) return -0.0;
    return digits_to_double(acc->sum, NEAREST_EVEN);
}

double exact_abs_sum(const exact_sum_t *acc)
{
    if (acc->nans || acc->pos_infs || acc->neg_infs) return INFINITY;
    return digits_to_double(acc->abs, UPWARD);
}

double exact_error(const exact_sum_t *acc, float result)
{
    float special;
    if (special_result(acc, &special)) {
        if (isnan(special)) return isnan(result) ? 0.0 : NAN;
        return result == special ? 0.0 : NAN;
    }
    if (!isfinite(result)) return (double)result;
    exact_sum_t diff = *acc;        /* result - sum, exactly, then rounded once */
    for (int j = 0; j < EXACT_LIMBS; j++) diff.sum[j] = -diff.sum[j];
    diff.terms = diff.not_neg_zero = 0;
    exact_add_float(&diff, result);
    return digits_to_double(diff.sum, NEAREST_EVEN);
}

int exact_special(const exact_sum_t *acc)
{
    return acc->nans || acc->pos_infs || acc->neg_infs;
}
