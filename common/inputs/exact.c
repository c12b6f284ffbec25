/* exact.c: the exact sum of floats, rounded once (see exact.h for the API).
 *
 * Contents
 *   1. why about 320 bits suffice
 *   2. digits: adding a shifted integer, carrying
 *   3. adding floats: one at a time, and the fast binned loop
 * Reading the sum (rounding it) is in exact_round.c.
 *
 * ---- 1. why about 320 bits suffice -------------------------------------------
 * A float's bits are a sign s, an exponent field E (8 bits) and a fraction f
 * (23 bits). For E from 1 to 254 the value is (2^23 + f) * 2^(E - 150); for
 * E = 0 (zero and the subnormals) it is f * 2^-149. Either way it is
 *
 *     (-1)^s * m * 2^p * 2^-149,   m < 2^24, p = max(E - 1, 0) in [0, 253],
 *
 * an integer m * 2^p in units of 2^-149, below 2^(24 + 253) = 2^277. A sum of
 * up to 2^40 of them is an integer below 2^317 in those units: with a sign,
 * 318 bits. We keep it in ten 32-bit digits (320 bits), each in an int64_t
 * so that digits can take many additions before they must carry: the
 * lowest nine in [0, 2^32) once carried, the tenth signed (it carries the
 * sign of the whole sum). Integers add exactly and in any order, so no term
 * is ever rounded, and threads or GPUs can merge their sums as they like.
 *
 * Infinities and NaNs are not numbers we can add; we count them instead and
 * let IEEE's rules decide at the end (exact_round.c).
 *
 * The fast loop does not shift anything per element. It sorts each term into
 * one of 512 bins by its top 9 bits (sign and exponent): every term in a bin
 * has the same sign and p, so the bin only needs the sum of the m's, a 64-bit
 * integer that holds 2^40 of them (2^40 * 2^24 = 2^64). Once per pass each
 * bin is shifted into the digits: 512 shifts instead of one per element. The
 * sum of magnitudes comes from the same bins for free.
 */
#include <string.h>

#include "exact.h"

#define DIGIT_MASK INT64_C(0xffffffff)
#define DIGIT ((int64_t)1 << 32)

/* ---- 2. digits ----------------------------------------------------------------
 * Adds (or subtracts) v * 2^p, v < 2^64, p <= 253, to the digits. The shifted
 * value spans three 32-bit digits from p / 32 on; each gets a piece below
 * 2^33, so a digit can take millions of these before it needs carrying. */
static void add_shifted(int64_t *d, uint64_t v, int p, int negative)
{
    int j = p >> 5, s = p & 31;
    uint64_t lo = (v & 0xffffffffu) << s;     /* < 2^63 */
    uint64_t hi = (v >> 32) << s;             /* < 2^63 */
    int64_t d0 = (int64_t)(lo & 0xffffffffu);
    int64_t d1 = (int64_t)(lo >> 32) + (int64_t)(hi & 0xffffffffu);
    int64_t d2 = (int64_t)(hi >> 32);
    if (negative) { d0 = -d0; d1 = -d1; d2 = -d2; }
    d[j] += d0;
    d[j + 1] += d1;
    d[j + 2] += d2;    /* j + 2 <= 9: p <= 253 */
}

/* Carries: digits 0..8 end in [0, 2^32), the rest goes up to digit 9. The
 * mask takes the low 32 bits of the two's complement form (int64_t is two's
 * complement by definition), so a negative digit borrows from the next one;
 * the subtraction leaves an exact multiple of 2^32 to divide. */
static void carry(int64_t *d)
{
    for (int j = 0; j < EXACT_LIMBS - 1; j++) {
        int64_t low = d[j] & DIGIT_MASK;
        d[j + 1] += (d[j] - low) / DIGIT;
        d[j] = low;
    }
}

/* ---- 3. adding floats ------------------------------------------------------------ */
void exact_init(exact_sum_t *acc)
{
    memset(acc, 0, sizeof *acc);
}

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Counts an infinity or a NaN (exponent field 255). */
static void add_special(exact_sum_t *acc, uint32_t u)
{
    if (u & 0x7fffffu) acc->nans++;
    else if (u >> 31) acc->neg_infs++;
    else acc->pos_infs++;
}

void exact_add_float(exact_sum_t *acc, float x)
{
    uint32_t u = float_bits(x);
    uint32_t e = (u >> 23) & 255;
    acc->terms++;
    if (e == 255) {
        add_special(acc, u);
        return;
    }
    acc->not_neg_zero |= u != 0x80000000u;
    uint64_t m = (u & 0x7fffffu) | (uint64_t)(e != 0) << 23;
    int p = e ? (int)e - 1 : 0;
    add_shifted(acc->sum, m, p, (int)(u >> 31));
    add_shifted(acc->abs, m, p, 0);
    carry(acc->sum);
    carry(acc->abs);
}

/* The fast loop's bins: LANES copies of 512, element j going to copy j % LANES,
 * so that neighbours with the same exponent (the common case) do not wait
 * for each other's add to the same memory. */
#define BINS 512
#define LANES 4
#define PASS ((size_t)1 << 32)   /* elements per pass: bins stay below 2^56 */

/* Adds x's m to the bin of its top 9 bits. Specials go in too, to bins 255
 * and 511 with m >= 2^23, which fold_bins never shifts into the digits. */
static inline void add_to_bin(uint64_t *bin, const float *x)
{
    uint32_t u;
    memcpy(&u, x, sizeof u);
    uint32_t top = u >> 23;
    bin[top] += (u & 0x7fffffu) | (uint32_t)((top & 255) != 0) << 23;
}

enum { FOUND_FINITE = 1, FOUND_SPECIAL = 2 };

/* Shifts each bin into the digits: bin t holds the m's of sign t >> 8 and
 * exponent field t & 255. Says what it found: a nonzero finite term, or
 * specials (a nonzero bin 255 or 511). */
static int fold_bins(exact_sum_t *acc, uint64_t bins[LANES][BINS])
{
    int found = 0;
    for (int t = 0; t < BINS; t++) {
        uint64_t v = 0;
        for (int k = 0; k < LANES; k++) v += bins[k][t];
        if (v == 0) continue;
        int e = t & 255;
        if (e == 255) {
            found |= FOUND_SPECIAL;
            continue;
        }
        int p = e ? e - 1 : 0;
        add_shifted(acc->sum, v, p, t >> 8);
        add_shifted(acc->abs, v, p, 0);
        found |= FOUND_FINITE;
    }
    carry(acc->sum);
    carry(acc->abs);
    return found;
}

/* One pass: n <= PASS elements into fresh bins, then into the digits. The
 * loop does one add per element and nothing else; the rare cases show in
 * the bins afterwards. Nonzero special bins mean an infinity or a NaN: count
 * them one by one. All bins zero means every term was +0 or -0: only then
 * does the sign of a zero sum need a look at each term. */
static void add_pass(exact_sum_t *acc, const float *x, size_t n)
{
    uint64_t bins[LANES][BINS];
    memset(bins, 0, sizeof bins);
    size_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int k = 0; k < LANES; k++) add_to_bin(bins[k], &x[j + k]);
    for (; j < n; j++) add_to_bin(bins[0], &x[j]);
    acc->terms += n;
    int found = fold_bins(acc, bins);
    for (j = 0; j < n && (found & FOUND_SPECIAL); j++) {
        uint32_t u = float_bits(x[j]);
        if ((u >> 23 & 255) == 255) add_special(acc, u);
    }
    if (found) acc->not_neg_zero = 1;
    for (j = 0; j < n && !found; j++) acc->not_neg_zero |= float_bits(x[j]) != 0x80000000u;
}

void exact_add_floats(exact_sum_t *acc, const float *x, size_t n)
{
    for (size_t done = 0; done < n; done += PASS)
        add_pass(acc, x + done, n - done < PASS ? n - done : PASS);
}

void exact_add_floats_parallel(exact_sum_t *acc, const float *x, size_t n)
{
    /* Pieces of 2^20 elements: many per thread, so threads stay busy, and
     * each pass's fixed cost (the bins) is small beside its 4 MB. */
    const size_t piece = (size_t)1 << 20;
    const long long pieces = (long long)((n + piece - 1) / piece);
    #pragma omp parallel
    {
        exact_sum_t mine;
        exact_init(&mine);
        #pragma omp for schedule(static)
        for (long long b = 0; b < pieces; b++) {
            size_t lo = (size_t)b * piece;
            exact_add_floats(&mine, x + lo, n - lo < piece ? n - lo : piece);
        }
        #pragma omp critical(exact_merge)
        exact_merge(acc, &mine);
    }
}

void exact_merge(exact_sum_t *into, const exact_sum_t *from)
{
    for (int j = 0; j < EXACT_LIMBS; j++) {
        into->sum[j] += from->sum[j];
        into->abs[j] += from->abs[j];
    }
    carry(into->sum);
    carry(into->abs);
    into->terms += from->terms;
    into->not_neg_zero |= from->not_neg_zero;
    into->nans += from->nans;
    into->pos_infs += from->pos_infs;
    into->neg_infs += from->neg_infs;
}
