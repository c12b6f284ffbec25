/* parts.h: the harness's inner pieces, shared by its files and the unit
 * tests. Steps include harness.h only.
 *
 *   args.c    options and their errors (no GPU needed)
 *   data.c    the input, the exact reference sum, the error bound
 *   order.c   step 08's order of additions, replayed on the CPU
 *   device.c  the GPU, and failing clearly
 *   check.c   is a run's result right?
 *   timing.c  timing device work
 *   report.c  the report line, human and CSV
 */
#ifndef PARTS_H
#define PARTS_H

#include <stdint.h>
#include <stdio.h>
#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- args.c -------------------------------------------------------------- */
#define MAX_LIST 64                   /* values in one --n or --seed list */
#define MAX_N ((size_t)1 << 40)       /* largest n accepted (4 TiB of floats) */
#define MAX_REPS 100000
#define DEFAULT_N ((size_t)1 << 28)   /* 1 GiB of floats: 18x a 60 MB L2 */
#define DEFAULT_REPS 20

typedef struct {
    size_t n[MAX_LIST];
    int n_count;
    uint64_t seed[MAX_LIST];
    int seed_count;
    int reps;          /* 0: automatic (DEFAULT_REPS, fewer for a slow step) */
    int block;         /* 0: the step's default */
    int grid;          /* 0: the step's choice */
    int csv;
    int check_only;
    int warm;          /* let the input stay in L2 between timed runs */
    int help;
} options_t;

/* Parses argv into *opt. Returns 0, or EXIT_USAGE with a one-line reason in
 * err (no trailing newline). rule says which --block values are allowed. */
int parse_args(int argc, char **argv, block_rule_t rule, options_t *opt,
               char *err, size_t errlen);

/* Parses one size: 1000, 64K, 1M, 2G (K, M, G are 2^10, 2^20, 2^30), 2^24,
 * 1e8, 3*2^30, 10^8+7. Returns 0 and sets *out, or -1 with a reason in err. */
int parse_size(const char *s, size_t *out, char *err, size_t errlen);

void print_help(FILE *f, const char *prog, const step_t *step);

/* ---- data.c -------------------------------------------------------------- */
/* Element i of the input for a seed. Counter-based, so any slice of the input
 * can be drawn on its own, in parallel, and every run sees the same numbers.
 * Floats are k / 2^23 for a random integer k in [-2^23, 2^23): uniform in
 * [-1, 1). Exact-build elements are random 32-bit integers. */
elem_t input_value(uint64_t seed, size_t i);

/* The reference, accumulated exactly. Float inputs are integers k times 2^-23,
 * so their sum is (sum of k) times 2^-23 and a 64-bit integer holds the sum of
 * k exactly for any n up to MAX_N: the reference has no rounding error at all. */
typedef struct {
    int64_t k_sum;      /* float build: sum of k */
    uint64_t k_abs;     /* float build: sum of |k| */
    uint32_t u_sum;     /* exact build: sum modulo 2^32 */
    int has_replica;    /* a COMBINE_FIXED_ORDER step: replica is set */
    elem_t replica;     /* the step's order replayed on the CPU (order.c) */
} reference_t;

/* Writes elements [first, first + count) into buf and adds them to *ref. */
void draw_input(uint64_t seed, size_t first, size_t count, elem_t *buf, reference_t *ref);
double reference_sum(const reference_t *ref);        /* the sum, as a double */
double reference_abs_sum(const reference_t *ref);    /* sum of |x| */

/* The most additions any one element goes through on its way into the result,
 * for a step that combines partials as `combine` with this launch shape. */
double summation_depth(combine_t combine, size_t n, int grid, int block);

/* The error bound for a float result (see data.c for the derivation). */
double error_bound(double depth, double abs_sum);

/* Distance between two floats in units in the last place (0 if equal). */
double ulp_distance(float a, float b);

/* ---- order.c ------------------------------------------------------------- */
/* Step 08's order of additions, on the CPU (see order.c for the order).
 * chunk: elements per chunk, a multiple of 128. */
elem_t order_chunk_sum(const elem_t *p, size_t len, size_t chunk);       /* len <= chunk */
void order_chunk_sums(const elem_t *x, size_t len, size_t chunk, elem_t *sums);
elem_t order_combine(const elem_t *sums, size_t m, size_t chunk);       /* m >= 1 sums */
elem_t order_sum(const elem_t *x, size_t n, size_t chunk);
double order_depth(size_t n, size_t chunk);      /* additions per element, for the bound */

/* ---- device.c ------------------------------------------------------------ */
typedef struct {
    int id;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int l2_bytes;
    int max_grid_x;
    double peak_gbps;    /* nominal, 0 if the driver does not say */
} device_t;

extern const char *g_step;     /* the program's name, first in every message */

/* Opens the GPU (the first one CUDA lists) or stops with one clear line. */
void open_device(device_t *d);
/* Ends the program with this exit status, releasing a waiting stream first. */
NORETURN void exit_cleanly(int code);
/* Waits for the stream; a failure there is the step's GPU work failing, WHEN. */
void sync_or_fail(cudaStream_t stream, const char *when);
/* cudaMalloc, or stop saying how much was needed and how much is free. */
void *device_alloc(size_t bytes, const char *what);
/* Stops: n needs more GPU memory than is free. */
NORETURN void memory_fail(size_t n, size_t need, size_t free_b, const device_t *dev);

/* ---- timing.c ------------------------------------------------------------ */
/* Times reps runs of timed(ctx, r, stream), each between two CUDA events, and
 * stores each run's device time in us[r] (microseconds). prepare (may be NULL)
 * runs before each start event, untimed. Runs are queued in batches behind a
 * gate so that the GPU never waits for the host between them. */
typedef void (*work_fn)(void *ctx, int r, cudaStream_t stream);
void time_device_work(work_fn prepare, work_fn timed, void *ctx, int reps, double *us,
                      cudaStream_t stream);
/* Opens the gate, so that a stream waiting behind it goes on (before exiting). */
void gate_release(void);

/* ---- report.c ------------------------------------------------------------ */
typedef struct {
    const char *step;
    const char *technique;
    const char *device;
    size_t n;
    uint64_t seed;
    int block, grid;
    int reps;                 /* timed runs; 0 for --check-only */
    int runs;                 /* all checked runs: the first, the warm-up, the timed */
    int warm;                 /* timed with the input left in L2 (--warm) */
    double median_us, min_us; /* valid when reps > 0 */
    double peak_gbps;         /* nominal, from the device attributes */
    elem_t sum;               /* the result of the last run */
    double reference;         /* float build: the exact sum; exact build: unused */
    uint32_t reference_u32;   /* exact build: the exact sum */
    double error, bound;      /* float build */
    int ok;                   /* every run correct */
    int declared_deterministic;
    int replica_checked;      /* compared with the CPU replica of the order */
    int replica_equal;        /* every run had the replica's bits */
    elem_t replica;
    int distinct;             /* different bit patterns among the runs */
    double spread_ulp;        /* largest minus smallest result, in ulps */
} result_t;

double result_gbps(const result_t *r);     /* bytes read / median time */
void format_report(char *buf, size_t len, const result_t *r);
void format_csv_header(char *buf, size_t len);
void format_csv(char *buf, size_t len, const result_t *r);

/* ---- check.c ------------------------------------------------------------- */
/* Checks every run's result (h_results[0..runs)) against the reference and
 * res->bound's inputs (res->n, grid, block), the step's declared determinism,
 * and its state (h_state, which must be all zero again). Says on stderr what
 * is wrong; fills sum, reference, bound, error, ok, distinct and spread. */
void check_runs(const step_t *step, const elem_t *h_results, int runs,
                const unsigned char *h_state, const reference_t *ref, uint64_t seed,
                result_t *res);

#ifdef __cplusplus
}
#endif
#endif
