/* parts.h: the harness's inner pieces, shared by its files, the multi-GPU
 * part and the unit tests. Steps include harness.h (or multi/multi.h) only.
 *
 * The harness, file by file, in layers: a file uses only those above it.
 *   base.h     elem_t, exit codes, CUDA_CHECK, div_up: the bottom
 *   fail.c     failing clearly: one line, one exit, the hooks run before it
 *   inputs/    the arrays (distributions drawn from a seed, the user's file)
 *              and their exact sums, rounded once: plain C, no GPU, no harness
 *   args.c     options and their errors (no GPU needed)
 *   bound.c    the error bound of a float sum, distances in ulps
 *   order.c    step 08's order of additions, replayed on the CPU
 *   report.c   the report line, human and CSV
 *   device.c   the GPU: which one, what it can do
 *   input.c    the input, drawn on the CPU and copied to the GPU (or GPUs)
 *   timing.c   the driver: checked runs, warm-up, timed runs, median
 *   check.c    is a run's result right?
 *   harness.c  run_step (harness.h): one GPU, every size and seed
 * and, for steps on several GPUs only (built with NCCL and MPI), multi/:
 *   multi/multi.h   what such a step tells the harness (run_multi)
 *   multi/shard.c   which part of the array each rank holds
 *   multi/team.c    the processes, their GPUs, waiting without hanging
 *   multi/multi.c   run_multi: several GPUs, every size and seed
 * and, for step 11's matrices, rows/:
 *   rows/rows.h     what such a step tells the harness (run_rows)
 *   rows/rows.c     run_rows: a sum for every row, every row checked
 * and, for step 12's arrays of any type, types/ (types/typed.h has its map):
 *   types/types.h   what such a step tells the harness (run_types)
 *   types/types.c   run_types: any type, any operator, every run checked
 */
#ifndef PARTS_H
#define PARTS_H

#include <stdint.h>
#include <stdio.h>
#include "base.h"
#include "inputs/inputs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define POISON 0xFF   /* what the harness fills outputs with before a run: every
                         byte 0xFF, a float NaN, or 0xFFFFFFFF in the exact build */
#define MAX_STREAMS 64                /* GPUs one process can drive */

/* ---- fail.c -------------------------------------------------------------- */
extern const char *g_step;     /* the program's name, first in every message */

/* Ends the program with this exit status, after the hooks registered with
 * on_exit_cleanly, newest first, each once: a part that holds something
 * another process or a stream may wait on registers one that lets it go. */
NORETURN void exit_cleanly(int code);
void on_exit_cleanly(void (*hook)(void));
/* Waits for the stream; a failure there (where kernel faults surface) is the
 * step's GPU work failing, WHEN. */
void sync_or_fail(cudaStream_t stream, const char *when);
/* cudaMalloc, or stop saying how much was needed and how much is free. */
void *device_alloc(size_t bytes, const char *what);
/* Stops, saying so, unless `need` bytes (for n elements) are free on the
 * current GPU, named gpu. */
void check_memory(size_t n, size_t need, const char *gpu);

/* ---- args.c -------------------------------------------------------------- */
#define MAX_LIST 64                   /* values in one --n or --seed list */
#define MAX_N ((size_t)1 << 40)       /* largest n accepted (4 TiB of floats) */
#define MAX_REPS 100000
#define DEFAULT_N ((size_t)1 << 28)   /* 1 GiB of floats: 18x a 60 MB L2 */
#define DEFAULT_REPS 20

/* What the options and the first report line say about the program. */
typedef struct {
    const char *name, *technique;
    block_rule_t block_rule;
    int default_block;
    int block_from_n;  /* the default block is chosen from n (default_block for small n) */
    int matrix;        /* --input-file may be a 2-D .npy (step 11's rows) */
    int typed;         /* --type chooses the elements, --input-file reads typed files (step 12) */
} program_t;

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
    int wait_each;     /* time each run alone, waited for, by the host's clock */
    int help;
    dist_t input;      /* --input: the distribution the array is drawn from */
    const char *input_file;   /* --input-file: the user's array instead, or NULL */
} options_t;

/* Options a program adds to the common ones (step 09's --gpus): set() takes
 * the value (NULL for a flag) and returns 0, or -1 with a reason in why. */
typedef struct {
    const char *name;         /* "--gpus" */
    const char *value;        /* "G" in the help, or NULL: a flag */
    const char *help;         /* the help text, lines after the first indented */
    int (*set)(const char *value, char *why, size_t len);
} extra_option_t;
void add_options(const extra_option_t *extra, int count);
/* Inputs a program draws besides the distributions (step 12's nan, inf):
 * --input takes them too, as DIST_COUNT + their place in names. */
void add_inputs(const char *const *names, int count);

/* Parses argv into *opt. Returns 0, or EXIT_USAGE with a one-line reason in
 * err (no trailing newline). */
int parse_args(int argc, char **argv, const program_t *prog, options_t *opt,
               char *err, size_t errlen);

/* Parses one size: 1000, 64K, 1M, 2G (K, M, G are 2^10, 2^20, 2^30), 2^24,
 * 1e8, 3*2^30, 10^8+7. Returns 0 and sets *out, or -1 with a reason in err. */
int parse_size(const char *s, size_t *out, char *err, size_t errlen);
/* A whole number 1..max for an option's value; 0, or -1 with a reason. */
int parse_count(const char *s, uint64_t max, uint64_t *out, char *err, size_t errlen);

void print_help(FILE *f, const char *prog, const program_t *p);

/* ---- bound.c ------------------------------------------------------------- */
/* The most additions any one element goes through on its way into the result,
 * for a step that combines partials as `combine` with this launch shape. */
double summation_depth(combine_t combine, size_t n, int grid, int block);

/* The error bound for a float result (see bound.c for the derivation):
 * probabilistic, or (rigorous) the classic worst case, for any input. */
double error_bound(double depth, double abs_sum, int rigorous);
/* The same for a sum rounded to unit roundoff u (2^-24 float, 2^-53 double). */
double error_bound_u(double depth, double abs_sum, int rigorous, double u);

/* Distance between two floats in units in the last place (0 if equal). */
double ulp_distance(float a, float b);

/* ---- order.c ------------------------------------------------------------- */
/* Step 08's order of additions, on the CPU (see order.c for the order).
 * chunk: elements per chunk, a multiple of 128. */
elem_t order_chunk_sum(const elem_t *p, size_t len, size_t chunk);       /* len <= chunk */
void order_chunk_sums(const elem_t *x, size_t len, size_t chunk, elem_t *sums);
elem_t order_combine(const elem_t *sums, size_t m, size_t chunk);       /* m >= 1 sums */
elem_t order_sum(const elem_t *x, size_t n, size_t chunk);                /* for the tests */
double order_depth(size_t n, size_t chunk);      /* additions per element, for the bound */

/* ---- report.c ------------------------------------------------------------ */
typedef struct {
    const char *step;
    const char *technique;
    const char *device;
    const char *input;        /* the distribution's name, or the user's file */
    size_t n;
    uint64_t seed;
    int block, grid;
    int gpus;                 /* a step on several GPUs: how many (0: a one-GPU step) */
    int reps;                 /* timed runs; 0 for --check-only */
    int runs;                 /* all checked runs: the first, the warm-up, the timed */
    int warm;                 /* timed with the input left in L2 (--warm) */
    int waited;               /* each timed run waited for (--wait-each) */
    int read_nothing;         /* the timed runs read no element (step 09 --combine-only) */
    double median_us, min_us; /* valid when reps > 0 */
    double peak_gbps;         /* nominal, from the device attributes */
    elem_t sum;               /* the result of the last run */
    double reference;         /* float build: the exact sum, to the nearest double */
    uint32_t reference_bits;  /* the bits of the correctly rounded sum (exact build: the sum) */
    double error, bound;      /* float build */
    double abs_sum;           /* float build: the sum of the magnitudes (rounded up) */
    int overflow;             /* float build: the magnitudes reach float's range, so a
                                 partial sum may overflow (inf or NaN accepted) */
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
void format_csv_header(char *buf, size_t len, int rows);   /* rows: step 11's columns */
void format_csv(char *buf, size_t len, const result_t *r);
/* The result's line on stdout: the report, or a CSV row with --csv. */
void print_result(const options_t *opt, const result_t *r);

/* A sum for every row (step 11): one line for all the rows, their worst. */
typedef struct {
    const char *step, *technique, *device, *input;
    size_t rows, len;
    uint64_t seed;
    int block, grid, reps, runs;
    int kept;                 /* runs whose results were kept and checked */
    int warm, waited;
    double median_us, min_us, peak_gbps;
    size_t wrong, worst_row;  /* rows with a wrong sum; the row worst against its bound */
    double worst_error, worst_bound;
    int deterministic, distinct;
    int fixed, replica_equal; /* the order fixed (checked against the replica), and equal */
} rows_result_t;
void print_rows_result(const options_t *opt, const rows_result_t *r);

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

/* How many GPUs CUDA shows (at least 1), or stop with one clear line. */
int count_devices(void);
/* Opens GPU id (0 <= id < count_devices()). */
void open_device_id(device_t *d, int id);
/* The grid to launch: --grid if given (asked), else the step's choice.
 * The step's grid_size is always asked first, because it checks that a
 * block fits and sets its kernels' attributes; chosen = 0 (no block fits)
 * or a grid above the GPU's limit or the step's (most; 0: none) stops with
 * one clear line. */
size_t checked_grid(size_t chosen, int asked, size_t n, int block, size_t most, const device_t *d);
/* The first line of a report: the program, the GPU and what is summed
 * (`how`: NULL, or how several GPUs take part), or the CSV header. */
void print_header(const options_t *opt, const program_t *p, const device_t *d, const char *how);

/* ---- input.c ------------------------------------------------------------- */
/* Where the elements come from: drawn from a distribution and a seed, or
 * read from the user's file. */
typedef struct {
    dist_t dist;
    uint64_t seed;
    const infile_t *file;     /* or NULL */
} source_t;

/* The reference: every element's exact sum (float build), or the sum modulo
 * 2^32 (exact build); for a step that fixes its order, its CPU replica. */
typedef struct {
    exact_sum_t exact;  /* float build: inputs/exact.h reads it */
    uint32_t u_sum;     /* exact build: sum modulo 2^32 */
    elem_t replica;     /* a COMBINE_FIXED_ORDER step's order replayed on the CPU (order.c) */
    int from_file;      /* the user's array: the bound may assume nothing of it */
} reference_t;

/* The command line, as both drivers (run_step, run_multi) read it: parses
 * argv into *opt (a mistake: one line and the --help hint on stderr), prints
 * the help for --help, and with --input-file opens the file into *file and
 * makes its n the only size. Returns -1 when the program goes on, else the
 * exit code to end it with now (EXIT_OK after --help, else EXIT_USAGE). */
int read_command_line(int argc, char **argv, const program_t *prog, options_t *opt, infile_t *file);

/* Where the input goes: elements [first, first + count) of the array, to d on
 * the GPU `device`, through `stream`. */
typedef struct {
    elem_t *d;
    size_t first, count;
    int device;
    cudaStream_t stream;
} part_t;
/* Draws (or reads) the input, copies it to the parts, and computes the
 * reference; with chunk > 0, also the CPU replica of step 08's order. */
void fill_parts(const source_t *src, size_t n, size_t chunk, const part_t *parts, int count,
                reference_t *ref);
/* How many copies of an input of `bytes` the timed runs read in turn so
 * that each finds its copy out of an L2 of l2_bytes (1 with --warm). */
int input_copies(const options_t *opt, size_t bytes, int l2_bytes);

/* ---- timing.c ------------------------------------------------------------ */
/* One run of the work reads input copy `copy` and writes result slot `slot`,
 * on `count` streams (on one GPU or several). The driver makes the checked
 * run (slot 0, copy 0), a warm-up (slot 1, copy 0) and the timed runs (slot
 * 2 + r, copy (r + 1) % copies), so that a timed run never finds its input in
 * L2 from the run before (unless copies is 1). */
typedef struct {
    void *ctx;
    int count;
    cudaStream_t stream[MAX_STREAMS];
    int device[MAX_STREAMS];                      /* stream[i]'s GPU */
    int copies;
    void (*prepare)(void *ctx, int slot);         /* before every run, untimed (poison) */
    void (*run)(void *ctx, int slot, int copy);   /* one run, enqueued on the streams */
    void (*wait)(void *ctx, const char *when);    /* NULL: synchronise every stream */
    void (*agree)(void *ctx, double *us, int reps);   /* NULL, or each run's time: the
                                                      slowest of every process's */
} work_t;

typedef struct {
    int runs;                 /* results written: slots 0 .. runs - 1 */
    int reps;                 /* timed runs, 0 for --check-only */
    double median_us, min_us;
} timing_t;

/* The checked run, then (unless --check-only) a warm-up whose time sets the
 * automatic number of timed runs, then the timed runs (--reps of them). */
void measure(const work_t *w, const options_t *opt, timing_t *t);
/* The timed runs alone, for a caller that has warmed up itself (the bandwidth
 * ceiling): run r's time in us[r]. */
void timed_runs(const work_t *w, int reps, double *us);

/* ---- harness.c: the one driver ---------------------------------------------
 * Every program's main loop: the command line, the GPUs, the header, then one
 * run for every size (or shape) and seed, then the end. A program (a step on
 * one GPU, on several, or on rows) fills in what differs. */
typedef struct driver_s {
    program_t prog;
    const extra_option_t *extra;   /* options the program adds, or NULL */
    int extra_count;
    void *ctx;
    /* The command line, where a program reads it its own way (NULL:
     * read_command_line): -1 to go on, or the exit code to end with now. */
    int (*read)(struct driver_s *d, int argc, char **argv, options_t *opt);
    /* After the options (NULL: none): EXIT_OK to go on, or an exit code
     * after saying why (the file, if open, is closed by the driver). */
    int (*after_options)(struct driver_s *d, int argc, char **argv, const options_t *opt,
                         const infile_t *file);
    /* Opens the GPUs; returns the one the header names (NULL: no header from
     * this process), and in *how what the header adds (or NULL). */
    const device_t *(*open)(struct driver_s *d, const options_t *opt, const char **how);
    int inputs;                    /* sizes (or shapes) to run; 0: one per --n */
    int (*one)(struct driver_s *d, const options_t *opt, int i, const source_t *src);
    void (*close)(struct driver_s *d);   /* NULL: cudaDeviceReset() */
} driver_t;
/* Runs the program; returns its exit code (base.h): the worst of its runs. */
int drive(int argc, char **argv, driver_t *d);

/* ---- check.c ------------------------------------------------------------- */
/* What a result must be: within the bound of its order of additions (or, for
 * COMBINE_FIXED_ORDER, the CPU replica's bits; for COMBINE_EXACT, the
 * correctly rounded sum's), the same every run if so declared. */
typedef struct {
    combine_t combine;
    size_t chunk;             /* COMBINE_FIXED_ORDER: elements per chunk */
    int deterministic;
} rule_t;

/* Checks every run's result (h_results[0..runs)) against the reference, with
 * the run in res (n, seed, grid, block), saying on stderr what is wrong;
 * fills sum, reference, bound, error, ok, distinct and spread. */
void check_runs(const rule_t *rule, const elem_t *h_results, int runs, const reference_t *ref,
                result_t *res);
/* Is one result right (within res->bound, with res->overflow's leeway; the
 * exact build: equal)? Sets *error to its distance from the exact sum. */
int result_right(elem_t got, const rule_t *rule, const reference_t *ref, const result_t *res,
                 double *error);

#ifdef __cplusplus
}
#endif
#endif
