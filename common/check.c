/* check.c: is a run's result right? What it must be is rule_t's (parts.h).
 *
 * Where the bound says nothing: once the magnitudes add up to float's range
 * (huge, or a user's file), a partial sum may overflow, and then any order of
 * float additions may end in an infinity, or in NaN where +inf met -inf. Such
 * a result is accepted and the report says why; a finite one must still be
 * within the bound. Infinities and NaNs in the input have IEEE's answer,
 * which every float sum gives (exact.h lists them).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"

_Static_assert(sizeof(elem_t) == sizeof(uint32_t), "an element is 32 bits");
static uint32_t bits_of(elem_t v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Is one result right? In the exact build, the sum modulo 2^32. */
int result_right(elem_t got, const rule_t *rule, const reference_t *ref, const result_t *res,
                     double *error)
{
#ifdef REDUCE_EXACT
    (void)rule, (void)res;
    *error = got == ref->u_sum ? 0 : 1;
    return got == ref->u_sum;
#else
    float want = exact_round(&ref->exact);
    int same = bits_of(got) == bits_of(want) || (isnan(got) && isnan(want));
    *error = exact_error(&ref->exact, got);
    if (rule->combine == COMBINE_EXACT) return same;         /* the correctly rounded sum */
    if (isnan(want)) return isnan(got);                      /* a NaN term, or +inf with -inf */
    if (exact_special(&ref->exact)) return same || (res->overflow && isnan(got));
    if (!isfinite(got)) return res->overflow;                /* a partial sum overflowed */
    return fabs(*error) <= res->bound;
#endif
}

/* Counts distinct bit patterns among the results and their spread in ulps:
 * sorted copies of the bits, so that 100000 runs take milliseconds, not the
 * seconds that comparing every pair would. */
static int compare_bits(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void determinism(const elem_t *h, int runs, int *distinct, double *spread)
{
    *distinct = 0;
    *spread = 0;
    uint32_t *sorted = (uint32_t *)malloc((size_t)runs * sizeof *sorted);
    if (!sorted) {
        device_fail("out of host memory for the results");
        return;                            /* not reached; for the analysers */
    }
    for (int i = 0; i < runs; i++) sorted[i] = bits_of(h[i]);
    qsort(sorted, (size_t)runs, sizeof *sorted, compare_bits);
    for (int i = 0; i < runs; i++)
        if (i == 0 || sorted[i] != sorted[i - 1]) (*distinct)++;
    free(sorted);
#ifndef REDUCE_EXACT
    /* The widest pair is the smallest and the largest; a NaN is infinitely far. */
    if (runs < 2) return;
    float lo = h[0], hi = h[0];
    for (int i = 1; i < runs; i++) {
        if (isnan(h[i]) || isnan(lo)) { *spread = INFINITY; return; }
        if (h[i] < lo) lo = h[i];
        if (h[i] > hi) hi = h[i];
    }
    *spread = ulp_distance(lo, hi);
#endif
}

/* A step that fixes its order of additions must give the replica's bits in
 * every run: not close to them, the same. */
static void check_replica(const elem_t *h_results, int runs, const reference_t *ref, result_t *res)
{
    res->replica_checked = 1;
    res->replica_equal = 1;
    res->replica = ref->replica;
    for (int r = 0; r < runs && res->replica_equal; r++) {
        if (bits_of(h_results[r]) == bits_of(ref->replica)) continue;
#ifndef REDUCE_EXACT
        if (isnan(h_results[r]) && isnan(ref->replica)) continue;   /* NaN's bits are the machine's */
#endif
        res->replica_equal = 0;
#ifdef REDUCE_EXACT
        fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %u, the CPU replica of the "
                "order %u\n", g_step, res->n, (unsigned long long)res->seed, r + 1, runs,
                h_results[r], ref->replica);
#else
        fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %.9g (bits 0x%08x), the CPU "
                "replica of the order %.9g (bits 0x%08x): %.0f ulp apart\n", g_step, res->n,
                (unsigned long long)res->seed, r + 1, runs, (double)h_results[r],
                (unsigned)bits_of(h_results[r]), (double)ref->replica,
                (unsigned)bits_of(ref->replica), ulp_distance(h_results[r], ref->replica));
#endif
    }
    res->ok &= res->replica_equal;
}

/* The first wrong run, in one line. */
static void say_wrong(elem_t got, int r, int runs, const reference_t *ref, double e, const result_t *res)
{
#ifdef REDUCE_EXACT
    (void)e, (void)res;
    fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %u, expected %u\n", g_step, res->n,
            (unsigned long long)res->seed, r + 1, runs, got, ref->u_sum);
#else
    float want = exact_round(&ref->exact);
    if (res->bound > 0 && isfinite(e) && isfinite(got))
        fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %.9g (bits 0x%08x), the exact sum "
                "is %.9g (rounded: 0x%08x): error %.3g is over the bound %.3g\n", g_step, res->n,
                (unsigned long long)res->seed, r + 1, runs, (double)got, bits_of(got),
                exact_to_double(&ref->exact), bits_of(want), fabs(e), res->bound);
    else
        fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %.9g (bits 0x%08x), the correctly "
                "rounded sum is %.9g (bits 0x%08x)\n", g_step, res->n, (unsigned long long)res->seed,
                r + 1, runs, (double)got, bits_of(got), (double)want, bits_of(want));
#endif
}

void check_runs(const rule_t *rule, const elem_t *h_results, int runs, const reference_t *ref,
                result_t *res)
{
    res->sum = h_results[0];
    res->declared_deterministic = rule->deterministic;
    res->depth = rule->combine == COMBINE_FIXED_ORDER
                     ? order_depth(res->n, rule->chunk)
                     : summation_depth(rule->combine, res->n, res->grid, res->block);
#ifdef REDUCE_EXACT
    res->reference_bits = ref->u_sum;
#else
    double abs_sum = res->abs_sum = exact_abs_sum(&ref->exact);
    res->reference = exact_to_double(&ref->exact);
    res->reference_bits = bits_of(exact_round(&ref->exact));
    res->bound = error_bound(res->depth, abs_sum, ref->from_file);
    res->overflow = !(abs_sum + res->bound < FLT_MAX);       /* some partial sum may overflow */
#endif
    res->ok = 1;
    for (int r = 0; r < runs; r++) {
        double e;
        int ok = result_right(h_results[r], rule, ref, res, &e);
        if (fabs(e) > res->error || isnan(e)) res->error = fabs(e);
        if (!ok && res->ok) say_wrong(h_results[r], r, runs, ref, e, res);
        res->ok &= ok;
    }
    if (res->error != res->error) res->error = INFINITY;
    if (rule->combine == COMBINE_FIXED_ORDER) check_replica(h_results, runs, ref, res);
    determinism(h_results, runs, &res->distinct, &res->spread_ulp);
    if (rule->deterministic && res->distinct > 1) {
        fprintf(stderr, "%s: declared deterministic, but %d runs gave %d different results\n",
                g_step, runs, res->distinct);
        res->ok = 0;
    }
}
