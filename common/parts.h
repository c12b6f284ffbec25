/* parts.h: the harness's inner pieces, shared by its files and the unit
 * tests. Steps include harness.h only.
 *
 * In layers: a part uses only the parts above it in this list.
 *   fail.c    failing clearly: one line, one exit, the hooks run before it
 *   args.c    options and their errors (no GPU needed)
 *   data.c    the input, the exact reference sum, the error bound
 *   order.c   step 08's order of additions, replayed on the CPU
 *   shard.c   which part of the array each of several GPUs holds
 *   report.c  the report line, human and CSV
 *   device.c  the GPU: which one, what it can do
 *   input.c   the input, drawn on the CPU and copied to one GPU or several
 *   timing.c  timing device work
 *   check.c   is a run's result right?
 *   harness.c run_step: one GPU, every size and seed
 * and, for step 09 only (built with NCCL and MPI):
 *   ranks.c   the ranks of a run on several GPUs, their communicators
 *   phases.c  one run on several GPUs, phase by phase
 *   multi.c   run_multi: several GPUs, every size and seed
 */
#ifndef PARTS_H
#define PARTS_H

#include <stdint.h>
#include <stdio.h>
#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

#define POISON 0xFF   /* what the harness fills outputs with before a run: every
                         byte 0xFF, a float NaN, or 0xFFFFFFFF in the exact build */

/* ---- fail.c -------------------------------------------------------------- */
extern const char *g_step;     /* the program's name, first in every message */

/* Ends the program with this exit status, after the hooks registered with
 * on_exit_cleanly (newest first, each once). */
NORETURN void exit_cleanly(int code);
void on_exit_cleanly(void (*hook)(void));
/* Waits for the stream; a failure there is the step's GPU work failing, WHEN. */
void sync_or_fail(cudaStream_t stream, const char *when);
/* cudaMalloc, or stop saying how much was needed and how much is free. */
void *device_alloc(size_t bytes, const char *what);
/* Stops: n needs more GPU memory than is free on the GPU named gpu. */
NORETURN void memory_fail(size_t n, size_t need, size_t free_b, const char *gpu);

/* ---- args.c -------------------------------------------------------------- */
#define MAX_LIST 64                   /* values in one --n or --seed list */
#define MAX_N ((size_t)1 << 40)       /* largest n accepted (4 TiB of floats) */
#define MAX_REPS 100000
#define MAX_GPUS_ASKED 1024                /* --gpus, --virtual-ranks */
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
    int gpus;          /* 0: every GPU (programs on several GPUs only) */
    int virtual_ranks; /* 0: real ranks; else that many, on one GPU (for the tests) */
    int combine_only;  /* time the all-gather and the total alone */
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
/* Lets parse_args take --gpus and --virtual-ranks (step 09's harness). */
void allow_several_gpus(void);

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

/* ---- shard.c ------------------------------------------------------------- */
/* Rank r of `ranks` holds a contiguous run of whole chunks (see shard.c). */
typedef struct {
    size_t chunks;          /* in the whole array */
    size_t per_rank;        /* chunk-sum slots per rank in the gathered array */
    size_t first_chunk;     /* this rank's slots start here: rank * per_rank (clipped) */
    size_t chunk_count;     /* chunks it holds (0 for an empty shard) */
    size_t first, count;    /* elements [first, first + count) of the array */
} shard_t;
void shard_of(size_t n, size_t chunk, int ranks, int rank, shard_t *s);

/* ---- report.c ------------------------------------------------------------ */
typedef struct {
    const char *step;
    const char *technique;
    const char *device;
    size_t n;
    uint64_t seed;
    int block, grid;
    int gpus;                 /* a step on several GPUs: how many (0: a one-GPU step) */
    int reps;                 /* timed runs; 0 for --check-only */
    int runs;                 /* all checked runs: the first, the warm-up, the timed */
    int warm;                 /* timed with the input left in L2 (--warm) */
    int combine_only;         /* step 09 --combine-only: no element was read in the timed runs */
    double median_us, min_us; /* valid when reps > 0 */
    double peak_gbps;         /* nominal, from the device attributes */
    elem_t sum;               /* the result of the last run */
    double reference;         /* float build: the exact sum; exact build: unused */
    uint32_t reference_u32;   /* exact build: the exact sum */
    double error, bound;      /* float build */
    double depth;             /* additions an element goes through at most, as the bound counts them */
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

/* Opens the GPU (the first one CUDA lists) or stops with one clear line. */
void open_device(device_t *d);
/* How many GPUs CUDA shows (at least 1), or stop with one clear line. */
int count_devices(void);
/* Opens GPU id (0 <= id < count_devices()). */
void open_device_id(device_t *d, int id);

/* ---- input.c ------------------------------------------------------------- */
/* Where the input goes: elements [first, first + count) of the array, to d on
 * the GPU `device`, through `stream`. */
typedef struct {
    elem_t *d;
    size_t first, count;
    int device;
    cudaStream_t stream;
} part_t;
/* Draws the input for seed, copies it to the parts, and computes the
 * reference; with chunk > 0, also the CPU replica of step 08's order. */
void fill_parts(uint64_t seed, size_t n, size_t chunk, const part_t *parts, int count,
                reference_t *ref);

/* ---- timing.c ------------------------------------------------------------ */
/* The streams one run of the work uses, one per GPU (device[i] owns
 * stream[i]), and how to wait for them all (NULL: sync_or_fail each). */
#define MAX_GPUS 64
typedef struct streams streams_t;
struct streams {
    int count;
    cudaStream_t stream[MAX_GPUS];
    int device[MAX_GPUS];
    void (*wait)(const streams_t *on, const char *when);
};
/* Times reps runs of timed(ctx, r), each between CUDA events on every stream,
 * and stores each run's device time in us[r] (microseconds): the time of its
 * slowest stream. prepare (may be NULL) runs before each start event,
 * untimed. Runs are queued in batches behind a gate so that the GPUs never
 * wait for the host between them. */
typedef void (*work_fn)(void *ctx, int r);
void time_device_work(work_fn prepare, work_fn timed, void *ctx, int reps, double *us,
                      const streams_t *on);

/* ---- check.c ------------------------------------------------------------- */
/* Checks every run's result (h_results[0..runs)) against the reference and
 * res->bound's inputs (res->n, grid, block), the step's declared determinism,
 * and its state (h_state, which must be all zero again). Says on stderr what
 * is wrong; fills sum, reference, bound, error, ok, distinct and spread. */
void check_runs(const step_t *step, const elem_t *h_results, int runs,
                const unsigned char *h_state, const reference_t *ref, uint64_t seed,
                result_t *res);

/* ---- ranks.c (step 09) ---------------------------------------------------- */
typedef struct {
    int ranks;                /* in the whole run */
    int local;                /* ranks this process drives: every one, or one under mpirun */
    int first;                /* the rank of this process's first local rank */
    int device[MAX_GPUS];     /* each local rank's GPU */
    void *comm[MAX_GPUS];     /* each local rank's ncclComm_t (NULL for virtual ranks) */
    int mpi;                  /* started by mpirun: one process a GPU */
    int virtual_ranks;        /* --virtual-ranks: every rank on GPU 0, gathered by copies */
} team_t;
/* Starts the ranks and their communicators, or stops with one clear line. */
void team_start(team_t *t, const options_t *opt);
void team_finish(team_t *t);
void team_group_start(const team_t *t);     /* around the gathers of every local rank */
void team_group_end(const team_t *t);
/* Waits for every stream, watching NCCL too; never hangs (streams_t.wait). */
void team_wait(const streams_t *on, const char *when);
/* v[0..count) becomes the largest value over every rank. */
void team_max(const team_t *t, double *v, int count);

/* ---- phases.c, multi.c (step 09) --------------------------------------------- */
/* Everything one run over every local rank needs. */
typedef struct {
    const multi_step_t *step;
    const team_t *team;
    int local;                   /* local ranks */
    rank_t R[MAX_GPUS];
    elem_t *d_in[MAX_GPUS];      /* each rank's shard, `copies` times */
    elem_t *d_slots[MAX_GPUS];   /* each rank's result of every run */
    size_t stride;               /* elements between copies of a shard */
    int copies;
    size_t sums_bytes[MAX_GPUS];
    int combine_only;            /* time the gather and the total alone */
    int timed;                   /* 0: the checked and warm-up runs, 1: the timed runs */
    streams_t on;                /* a stream per local rank (one for virtual ranks) */
} multi_run_t;
/* Local rank i's stream (virtual ranks share one). */
static inline cudaStream_t rank_stream(const multi_run_t *c, int i)
{
    return c->on.stream[c->on.count == 1 ? 0 : i];
}
void poison_sums(void *ctx, int r);      /* a work_fn: poison every rank's chunk sums */
void run_phases(void *ctx, int r);       /* a work_fn: one run, phase by phase */

#ifdef __cplusplus
}
#endif
#endif
