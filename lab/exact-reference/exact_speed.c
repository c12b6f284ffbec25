/* exact_speed.c: how fast the exact sum is on the CPU, beside a plain loop.
 *
 *     make exact-speed && build/lab/exact_speed [n] [threads]
 *
 * (defaults: n = 2^28, every OpenMP thread). Prints nanoseconds per element
 * for, on the same array:
 *   plain int sum     the 32-bit patterns summed as integers (a floor: one
 *                     load and one add an element)
 *   plain float sum   the floats summed in float, in any order
 *   exact sum         exact_add_floats_parallel
 * and for drawing each distribution, alone and with its exact sum taken on
 * the way (dist_draw with and without an accumulator): the harness's cost per
 * element, for one size and seed.
 *
 * Contents: timing, the loops, main.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/inputs/exact.h"
#include "../../common/inputs/inputs.h"

static double best_ns(double seconds, size_t n) { return seconds * 1e9 / (double)n; }

/* The shorter of best and the time since t0. */
static double shorter(double best, double t0)
{
    double t = omp_get_wtime() - t0;
    return t < best ? t : best;
}

/* ---- the loops --------------------------------------------------------------------- */
static uint64_t int_sum(const float *x, size_t n)
{
    uint64_t s = 0;
    #pragma omp parallel for schedule(static) reduction(+ : s)
    for (long long j = 0; j < (long long)n; j++) {
        uint32_t u;
        memcpy(&u, &x[j], sizeof u);
        s += u;
    }
    return s;
}

static float float_sum(const float *x, size_t n)
{
    float s = 0;
    #pragma omp parallel for schedule(static) reduction(+ : s)
    for (long long j = 0; j < (long long)n; j++) s += x[j];
    return s;
}

/* ---- main ------------------------------------------------------------------------------ */
#define REPS 3

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)1 << 28;
    if (argc > 2) omp_set_num_threads((int)strtol(argv[2], NULL, 10));
    float *x = malloc(n * sizeof *x);
    if (!x) {
        fprintf(stderr, "exact_speed: no memory for %zu floats\n", n);
        return 3;
    }
    printf("n = %zu, %d threads, best of %d, ns per element\n", n, omp_get_max_threads(), REPS);
    for (int d = 0; d < DIST_COUNT; d++) {
        double t_draw = 1e30, t_both = 1e30, t_int = 1e30, t_float = 1e30, t_exact = 1e30;
        volatile double sink = 0;
        for (int r = 0; r < REPS; r++) {
            exact_sum_t acc;
            exact_init(&acc);
            double t0 = omp_get_wtime();
            dist_draw((dist_t)d, 1, 0, n, n, x, NULL);
            t_draw = shorter(t_draw, t0);
            t0 = omp_get_wtime();
            dist_draw((dist_t)d, 1, 0, n, n, x, &acc);
            t_both = shorter(t_both, t0);
            t0 = omp_get_wtime();
            sink += (double)int_sum(x, n);
            t_int = shorter(t_int, t0);
            t0 = omp_get_wtime();
            sink += float_sum(x, n);
            t_float = shorter(t_float, t0);
            exact_init(&acc);
            t0 = omp_get_wtime();
            exact_add_floats_parallel(&acc, x, n);
            t_exact = shorter(t_exact, t0);
            sink += exact_to_double(&acc);
        }
        printf("%-8s draw %.2f, draw + exact sum %.2f | on the drawn array: plain int sum %.2f, "
               "plain float sum %.2f, exact sum %.2f\n", dist_info[d].name, best_ns(t_draw, n),
               best_ns(t_both, n), best_ns(t_int, n), best_ns(t_float, n), best_ns(t_exact, n));
    }
    free(x);
    return 0;
}
