/* check.c: is a run's result right? Against the exact reference and its
 * error bound, the CPU replica of the order for a step that fixes it, and the
 * step's declared determinism (check_runs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"

/* Is one result right? For floats: finite and within the bound. */
static int result_ok(elem_t got, const reference_t *ref, double bound, double *error)
{
#ifdef REDUCE_EXACT
    *error = got == ref->u_sum ? 0 : 1;
    (void)bound;
    return got == ref->u_sum;
#else
    *error = fabs((double)got - reference_sum(ref));
    return isfinite(got) && *error <= bound;
#endif
}

/* Counts distinct bit patterns among the results and their spread in ulps:
 * sorted copies of the bits, so that 100000 runs take milliseconds, not the
 * seconds that comparing every pair would. */
static int compare_bits(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

static void determinism(const elem_t *h, int runs, int *distinct, double *spread)
{
    _Static_assert(sizeof(elem_t) == sizeof(uint32_t), "compare_bits compares 32-bit elements");
    *distinct = 0;
    *spread = 0;
    elem_t *sorted = (elem_t *)malloc((size_t)runs * sizeof(elem_t));
    if (!sorted) {
        device_fail("out of host memory for the results");
        return;                            /* not reached; for the analysers */
    }
    memcpy(sorted, h, (size_t)runs * sizeof(elem_t));
    qsort(sorted, (size_t)runs, sizeof(elem_t), compare_bits);
    for (int i = 0; i < runs; i++)
        if (i == 0 || compare_bits(&sorted[i], &sorted[i - 1]) != 0) (*distinct)++;
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

static uint32_t bits_of(elem_t v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* A step that fixes its order of additions must give the replica's bits in
 * every run: not close to them, the same. */
static void check_replica(const elem_t *h_results, int runs, const reference_t *ref,
                          uint64_t seed, result_t *res)
{
    res->replica_checked = 1;
    res->replica_equal = 1;
    res->replica = ref->replica;
    for (int r = 0; r < runs && res->replica_equal; r++) {
        if (bits_of(h_results[r]) == bits_of(ref->replica)) continue;
        res->replica_equal = 0;
#ifdef REDUCE_EXACT
        fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %u, the CPU replica of the "
                "order %u\n", g_step, res->n, (unsigned long long)seed, r + 1, runs,
                h_results[r], ref->replica);
#else
        fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %.9g (bits 0x%08x), the CPU "
                "replica of the order %.9g (bits 0x%08x): %.0f ulp apart\n", g_step, res->n,
                (unsigned long long)seed, r + 1, runs, (double)h_results[r],
                (unsigned)bits_of(h_results[r]), (double)ref->replica,
                (unsigned)bits_of(ref->replica), ulp_distance(h_results[r], ref->replica));
#endif
    }
    res->ok &= res->replica_equal;
}

/* Checks every run's result against the reference, the replica of the order
 * (if the step fixes one) and the declared determinism, saying on stderr what
 * is wrong; fills res. */
void check_runs(const rule_t *rule, const elem_t *h_results, int runs, const reference_t *ref,
                uint64_t seed, result_t *res)
{
    res->sum = h_results[0];
    res->reference = reference_sum(ref);
    res->reference_u32 = ref->u_sum;
    res->declared_deterministic = rule->deterministic;
    res->depth = rule->combine == COMBINE_FIXED_ORDER
                     ? order_depth(res->n, rule->chunk)
                     : summation_depth(rule->combine, res->n, res->grid, res->block);
    res->bound = error_bound(res->depth, reference_abs_sum(ref));
    res->ok = 1;
    for (int r = 0; r < runs; r++) {
        double e;
        int ok = result_ok(h_results[r], ref, res->bound, &e);
        if (e > res->error || isnan(e)) res->error = e;
        if (!ok && res->ok) {
#ifdef REDUCE_EXACT
            fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %u, expected %u\n",
                    g_step, res->n, (unsigned long long)seed, r + 1, runs, h_results[r], ref->u_sum);
#else
            fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %.9g, expected %.9g: "
                    "error %.3g is over the bound %.3g\n", g_step, res->n, (unsigned long long)seed,
                    r + 1, runs, (double)h_results[r], res->reference, e, res->bound);
#endif
        }
        res->ok &= ok;
    }
    if (res->error != res->error) res->error = INFINITY;
    if (ref->has_replica) check_replica(h_results, runs, ref, seed, res);
    determinism(h_results, runs, &res->distinct, &res->spread_ulp);
    if (rule->deterministic && res->distinct > 1) {
        fprintf(stderr, "%s: declared deterministic, but %d runs gave %d different results\n",
                g_step, runs, res->distinct);
        res->ok = 0;
    }
}
