/* unit_claims.c: what each distribution promises in --help, checked over
 * sizes and seeds (see common/inputs/inputs.c for why each should hold).
 *
 * Contents
 *   1. cancel: the condition number lies in [2^24, 2^25] for n >= 2
 *   2. ties: the exact sum is halfway between two floats, both ways over seeds
 *   3. huge: a float sum left to right overflows, the exact sum only on
 *      seeds divisible by 4
 *   4. wide: subnormals to 2^87, spread over the exponents
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "unit_inputs.h"

static const size_t SIZES[] = { 2, 3, 4, 5, 31, 33, 1000, 4097, 100003 };
#define NSIZES (sizeof SIZES / sizeof SIZES[0])
#define SEEDS 16

/* Draws the array into x and its exact sum into acc. */
static void draw(dist_t d, uint64_t seed, size_t n, float *x, exact_sum_t *acc)
{
    exact_init(acc);
    dist_draw(d, seed, 0, n, n, x, acc);
}

/* ---- 1. cancel ----------------------------------------------------------------------- */
static void test_cancel(float *x)
{
    exact_sum_t acc;
    for (size_t k = 0; k < NSIZES; k++) {
        double lo = INFINITY, hi = 0;
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            draw(DIST_CANCEL, seed, SIZES[k], x, &acc);
            double sum = exact_to_double(&acc), c = exact_abs_sum(&acc) / sum;
            if (!(sum > 0)) c = 0;                     /* the sum must be positive */
            lo = fmin(lo, c);
            hi = fmax(hi, c);
        }
        check(lo >= 0x1p24 && hi <= 0x1p25, "cancel/n %zu: sum|x| / |sum x| in [2^24, 2^25] on "
              "seeds 1-%d (%.4g to %.4g), the sum positive", SIZES[k], SEEDS, lo, hi);
    }
    draw(DIST_CANCEL, 1, 1, x, &acc);
    check(bits_of(x[0]) == 0, "cancel/n 1: the one element is +0");
}

/* ---- 2. ties --------------------------------------------------------------------------------
 * The exact sum T needs at most 25 bits, so the double T is exact and the
 * hardware's own conversion to float (round to nearest even) is a second
 * opinion on exact_round. */
static void test_ties(float *x)
{
    int up = 0, down = 0;
    for (size_t k = 0; k < NSIZES; k++) {
        int ties = 1, agree = 1;
        for (uint64_t seed = 1; seed <= SEEDS; seed++) {
            exact_sum_t acc;
            draw(DIST_TIES, seed, SIZES[k], x, &acc);
            double t = exact_to_double(&acc);
            float r = exact_round(&acc);
            float other = nextafterf(r, t > r ? INFINITY : -INFINITY);
            ties &= (double)r + (double)other == 2 * t && t != r;
            agree &= bits_of(r) == bits_of((float)t);
            if (fabs((double)r) > fabs(t)) up++;
            else down++;
        }
        check(ties && agree, "ties/n %zu: on seeds 1-%d the exact sum is halfway between two "
              "floats, and exact_round agrees with the hardware's rounding", SIZES[k], SEEDS);
    }
    check(up > 0 && down > 0, "ties/round half to even went up in magnitude %d times and down "
          "%d times", up, down);
    exact_sum_t acc;
    draw(DIST_TIES, 3, 1, x, &acc);
    check(isfinite(x[0]) && x[0] != 0, "ties/n 1: the one element is B");
}

/* ---- 3. huge ------------------------------------------------------------------------- */
static void test_huge(float *x)
{
    static const size_t n[] = { 11, 12, 33, 1000, 4097, 100003 };
    for (size_t k = 0; k < sizeof n / sizeof n[0]; k++) {
        int ok = 1, overflowed = 0;
        for (uint64_t seed = 1; seed <= 8; seed++) {
            exact_sum_t acc;
            draw(DIST_HUGE, seed, n[k], x, &acc);
            float s = 0;
            int big = 1;
            for (size_t i = 0; i < n[k]; i++) {
                s += x[i];
                big &= fabsf(x[i]) >= 0x1p126f;
            }
            int over = dist_overflows(DIST_HUGE, seed, n[k]);
            float r = exact_round(&acc);
            overflowed += over;
            ok &= big && isinf(s) && isfinite(exact_to_double(&acc)) &&
                  (over ? isinf(r) : isfinite(r)) && over == (seed % 4 == 0);
        }
        check(ok && overflowed == 2, "huge/n %zu: every |x| >= 2^126; a float sum left to right "
              "overflows on seeds 1-8, the exact sum only on seeds 4 and 8", n[k]);
    }
    for (size_t m = 1; m <= 3; m++) {
        exact_sum_t acc;
        draw(DIST_HUGE, 4, m, x, &acc);
        check(m == 1 ? isfinite(exact_round(&acc)) : isinf(exact_round(&acc)),
              "huge/seed 4, n %zu: the exact sum %s", m,
              m == 1 ? "is finite (one term)" : "overflows");
    }
}

/* ---- 4. wide ------------------------------------------------------------------------- */
static void test_wide(float *x)
{
    const size_t n = 100003;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        exact_sum_t acc;
        draw(DIST_WIDE, seed, n, x, &acc);
        int seen[256] = { 0 }, distinct = 0, subnormal = 0, top = 0;
        size_t neg = 0;
        for (size_t i = 0; i < n; i++) {
            int e = (int)(bits_of(x[i]) >> 23 & 255);
            distinct += !seen[e]++;
            subnormal += e == 0 && x[i] != 0;
            top = e > top ? e : top;
            neg += x[i] < 0;
        }
        check(top == 213 && distinct == 214 && subnormal > 0 && neg > n / 3 && neg < 2 * n / 3,
              "wide/seed %d: all 214 exponent fields 0-213 (%d), %d subnormals, both signs",
              (int)seed, distinct, subnormal);
        check(exact_abs_sum(&acc) < 0x1p87 * (double)n, "wide/seed %d: every magnitude below "
              "2^87, so 2^40 of them sum below 2^127", (int)seed);
    }
}

void test_claims(void)
{
    float *x = malloc(SIZES[NSIZES - 1] * sizeof *x);
    test_cancel(x);
    test_ties(x);
    test_huge(x);
    test_wide(x);
    free(x);
}
