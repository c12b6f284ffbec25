/* unit_exact_sum.c: the exact sum (common/inputs/exact.c, exact_round.c) against
 * answers worked out by hand: IEEE's special cases one by one, ties both
 * ways, the edge of overflow, and accumulators merged in pieces.
 *
 * Contents
 *   1. small sums with known answers (the table also goes to the oracle)
 *   2. the double, the sum of magnitudes, the error of a result
 *   3. the fast loop and merging against one float at a time
 *   4. the largest sums: 2^40 terms of FLT_MAX
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit_inputs.h"

#define QNAN 0x7fc00000u
#define PINF 0x7f800000u
#define NINF 0xff800000u
#define NEG0 0x80000000u
#define FMAX 0x7f7fffffu

/* ---- 1. small sums with known answers ---------------------------------------------- */
const known_case_t known_cases[] = {
    { "NaN first", 3, { NAN, 1, 2 }, QNAN },
    { "NaN last, after cancelling terms", 3, { 1e30f, -1e30f, NAN }, QNAN },
    { "NaN with both infinities", 3, { INFINITY, NAN, -INFINITY }, QNAN },
    { "+inf and -inf give NaN", 3, { INFINITY, 1, -INFINITY }, QNAN },
    { "one +inf among finite terms", 3, { 1, INFINITY, -FLT_MAX }, PINF },
    { "-inf twice", 3, { -INFINITY, -INFINITY, 5 }, NINF },
    { "FLT_MAX + FLT_MAX overflows to +inf", 2, { FLT_MAX, FLT_MAX }, PINF },
    { "-FLT_MAX - FLT_MAX + 1 overflows to -inf", 3, { -FLT_MAX, -FLT_MAX, 1 }, NINF },
    { "FLT_MAX + 2^103 (a tie, even is 2^128) rounds to +inf", 2, { FLT_MAX, 0x1p103f }, PINF },
    { "FLT_MAX + 2^103 - 2^-149 rounds to FLT_MAX", 3, { FLT_MAX, 0x1p103f, -0x1p-149f }, FMAX },
    { "-FLT_MAX - 2^103 rounds to -inf", 2, { -FLT_MAX, -0x1p103f }, NINF },
    { "FLT_MAX + FLT_MAX - FLT_MAX is FLT_MAX", 3, { FLT_MAX, FLT_MAX, -FLT_MAX }, FMAX },
    { "every term -0 gives -0", 3, { -0.0f, -0.0f, -0.0f }, NEG0 },
    { "one -0 gives -0", 1, { -0.0f }, NEG0 },
    { "-0 and +0 give +0", 3, { -0.0f, 0.0f, -0.0f }, 0 },
    { "-1 + 1 gives +0", 2, { -1, 1 }, 0 },
    { "-0 - 1 + 1 gives +0", 3, { -0.0f, -1, 1 }, 0 },
    { "subnormals: 3 x 2^-149", 3, { 0x1p-149f, 0x1p-149f, 0x1p-149f }, 3 },
    { "largest subnormal + 2^-149 is FLT_MIN", 2, { 0x1.fffffcp-127f, 0x1p-149f }, 0x00800000u },
    { "FLT_MIN - 2^-149 is the largest subnormal", 2, { FLT_MIN, -0x1p-149f }, 0x007fffffu },
    { "negative subnormals", 2, { -0x1p-140f, -0x1p-149f }, 0x80000201u },
    { "tie 1 + 2^-24 goes down to even 1", 2, { 1, 0x1p-24f }, 0x3f800000u },
    { "tie (1 + 2^-23) + 2^-24 goes up to even", 2, { 1 + 0x1p-23f, 0x1p-24f }, 0x3f800002u },
    { "tie -1 - 2^-24 goes to -1", 2, { -1, -0x1p-24f }, 0xbf800000u },
    { "tie -(1 + 2^-23) - 2^-24 goes up in magnitude", 2, { -1 - 0x1p-23f, -0x1p-24f }, 0xbf800002u },
    { "tie (2^24 - 1) + 0.5 goes up a binade to 2^24", 2, { 16777215.0f, 0.5f }, 0x4b800000u },
    { "tie 2^24 + 1 stays 2^24", 2, { 16777216.0f, 1 }, 0x4b800000u },
    { "tie 2^24 + 3 goes to 2^24 + 4", 2, { 16777216.0f, 3 }, 0x4b800002u },
    { "just above a tie rounds up", 3, { 1, 0x1p-24f, 0x1p-60f }, 0x3f800001u },
    { "just below a tie rounds down", 3, { 1 + 0x1p-23f, 0x1p-24f, -0x1p-60f }, 0x3f800001u },
    { "1e30 + 1 - 1e30 is 1", 3, { 1e30f, 1, -1e30f }, 0x3f800000u },
    { "2^127 + 2^-149 - 2^127 is 2^-149", 3, { 0x1p127f, 0x1p-149f, -0x1p127f }, 1 },
};
const int known_count = sizeof known_cases / sizeof known_cases[0];

static void test_known(void)
{
    for (int c = 0; c < known_count; c++) {
        const known_case_t *k = &known_cases[c];
        uint32_t got = bits_of(exact_of(k->x, k->n));
        int ok = k->bits == QNAN ? isnan(float_of(got)) : got == k->bits;
        check(ok, "exact/%s: 0x%08x (got 0x%08x)", k->name, k->bits, got);
    }
    check(bits_of(exact_of(NULL, 0)) == 0, "exact/an empty sum is +0");
    float z[1001];                     /* zeros in the fast loop, and its tail */
    for (int j = 0; j < 1001; j++) z[j] = -0.0f;
    check(bits_of(exact_of(z, 1001)) == NEG0, "exact/1001 terms of -0 give -0");
    z[1000] = 0.0f;
    check(bits_of(exact_of(z, 1001)) == 0, "exact/1000 terms of -0 and a +0 last give +0");
    z[1000] = -0.0f;
    z[500] = -INFINITY;
    check(bits_of(exact_of(z, 1001)) == NINF, "exact/1000 terms of -0 and a -inf give -inf");
}

/* ---- 2. the double, the sum of magnitudes, the error ----------------------------------- */
static void test_reading(void)
{
    exact_sum_t a;
    exact_init(&a);
    exact_add_float(&a, 1);
    exact_add_float(&a, 0x1p-40f);
    check(exact_to_double(&a) == 1 + 0x1p-40, "exact/to_double: 1 + 2^-40 exactly");
    exact_add_float(&a, 0x1p-149f);
    check(exact_abs_sum(&a) == nextafter(1 + 0x1p-40, 2), "exact/abs_sum rounds up: 1 + 2^-40 + "
          "2^-149 gives the next double above 1 + 2^-40");
    check(exact_to_double(&a) == 1 + 0x1p-40, "exact/to_double rounds to nearest");
    exact_init(&a);
    exact_add_float(&a, FLT_MAX);
    exact_add_float(&a, FLT_MAX);
    check(exact_to_double(&a) == 2.0 * FLT_MAX, "exact/to_double: FLT_MAX + FLT_MAX is finite");
    check(exact_error(&a, FLT_MAX) == -(double)FLT_MAX, "exact/error: FLT_MAX against 2 FLT_MAX");
    check(isinf(exact_error(&a, INFINITY)), "exact/error: inf against a finite sum is inf");
    exact_init(&a);
    exact_add_float(&a, 1);
    exact_add_float(&a, -0x1p-24f);
    check(exact_error(&a, 1) == 0x1p-24, "exact/error: 1 against 1 - 2^-24 is 2^-24");
    check(exact_abs_sum(&a) == 1 + 0x1p-24, "exact/abs_sum: |1| + |-2^-24|");
    exact_add_float(&a, NAN);
    check(exact_error(&a, NAN) == 0 && isnan(exact_error(&a, 1)),
          "exact/error: a NaN sum wants NaN");
    check(isinf(exact_abs_sum(&a)), "exact/abs_sum: inf when a term is NaN");
    exact_init(&a);
    exact_add_float(&a, -INFINITY);
    check(exact_error(&a, -INFINITY) == 0 && isnan(exact_error(&a, INFINITY)),
          "exact/error: a -inf sum wants -inf");
    exact_init(&a);
    exact_add_float(&a, -0.0f);
    check(signbit(exact_to_double(&a)) && exact_to_double(&a) == 0, "exact/to_double: -0 stays -0");
}

/* ---- 3. the fast loop and merging -------------------------------------------------------- */
static uint64_t rng = 88172645463325252ULL;
static uint32_t next32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Random bit patterns: every sign, exponent and fraction, specials when asked. */
static void random_floats(float *x, size_t n, int specials)
{
    for (size_t j = 0; j < n; j++) {
        uint32_t u = next32();
        if (!specials && ((u >> 23) & 255) == 255) u &= ~(1u << 30);
        x[j] = float_of(u);
    }
}

static void test_loop_and_merge(void)
{
    const size_t n = 100003;
    float *x = malloc(n * sizeof *x);
    for (int specials = 0; specials < 2; specials++) {
        random_floats(x, n, specials);
        exact_sum_t one, bulk, par, pieces;
        exact_init(&one);
        exact_init(&bulk);
        exact_init(&par);
        exact_init(&pieces);
        for (size_t j = 0; j < n; j++) exact_add_float(&one, x[j]);
        exact_add_floats(&bulk, x, n);
        exact_add_floats_parallel(&par, x, n);
        for (size_t lo = 0, len; lo < n; lo += len) {      /* random pieces, merged */
            len = 1 + next32() % 5000;
            if (len > n - lo) len = n - lo;
            exact_sum_t piece;
            exact_init(&piece);
            exact_add_floats(&piece, x + lo, len);
            exact_merge(&pieces, &piece);
        }
        const char *what = specials ? "with infs and NaNs" : "finite";
        check(memcmp(&one, &bulk, sizeof one) == 0,
              "exact/add_floats equals add_float one at a time (%s)", what);
        check(memcmp(&one, &par, sizeof one) == 0,
              "exact/add_floats_parallel equals add_float (%s)", what);
        check(memcmp(&one, &pieces, sizeof one) == 0,
              "exact/random pieces merged equal the whole (%s)", what);
    }
    free(x);
}

/* ---- 4. the largest sums ------------------------------------------------------------------ */
static void test_largest(void)
{
    const size_t n = (size_t)1 << 20;
    float *x = malloc(n * sizeof *x);
    for (int sign = 1; sign >= -1; sign -= 2) {
        for (size_t j = 0; j < n; j++) x[j] = (float)sign * FLT_MAX;
        exact_sum_t a;
        exact_init(&a);
        exact_add_floats(&a, x, n);
        for (int k = 0; k < 24; k++) {       /* 2^20 terms doubled 24 times: 2^44 */
            exact_sum_t copy = a;
            exact_merge(&a, &copy);
        }
        double want = sign * ldexp(FLT_MAX, 44);
        check(exact_to_double(&a) == want && exact_abs_sum(&a) == fabs(want),
              "exact/2^44 terms of %sFLT_MAX sum to exactly %g", sign > 0 ? "" : "-", want);
        check(exact_round(&a) == (float)sign * INFINITY, "exact/2^44 terms of %sFLT_MAX round to %sinf",
              sign > 0 ? "" : "-", sign > 0 ? "+" : "-");
        exact_sum_t b;
        exact_init(&b);
        for (size_t j = 0; j < n; j++) x[j] = -x[j];
        exact_add_floats(&b, x, n);
        for (int k = 0; k < 24; k++) {
            exact_sum_t copy = b;
            exact_merge(&b, &copy);
        }
        exact_merge(&a, &b);
        exact_add_float(&a, 0x1p-149f);
        check(bits_of(exact_round(&a)) == 1, "exact/2^44 x %sFLT_MAX, their negatives and 2^-149 "
              "leave 2^-149", sign > 0 ? "" : "-");
    }
    free(x);
}

void test_exact_sum(void)
{
    test_known();
    test_reading();
    test_loop_and_merge();
    test_largest();
}
