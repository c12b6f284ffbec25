/* harness.h: everything a step needs that is not its lesson.
 *
 * A step file defines its kernels, a launcher that only enqueues work on a
 * stream, and a step_t that describes it; its main() is one line:
 *
 *     int main(int argc, char **argv) { return run_step(argc, argv, &step); }
 *
 * The harness then parses the arguments, queries the GPU, draws the input
 * from a seed, computes an exact reference sum on the CPU, poisons the
 * output, runs and checks the step, times it and prints one report line per
 * run. One file per part:
 *
 *   harness.c  run_step(): every size and seed, one run
 *   check.c    is a run's result right? (reference, bound, determinism)
 *   timing.c   timing device work with events
 *   device.c   the GPU: which one, what it can do
 *   report.c   the report line, human and CSV
 *   order.c    step 08's order of additions, replayed on the CPU
 *   data.c     the input, the exact reference sum, the error bound
 *   args.c     the options and their errors
 *   fail.c     failing clearly (CUDA_CHECK, device_fail), one exit
 * Each uses only those below it.
 *
 * Contents
 *   1. elem_t: float, or unsigned int in the exact build
 *   2. launch_t: what a launcher gets
 *   3. step_t: what a step tells the harness
 *   4. run_step() and exit codes
 *   5. small helpers for steps: CUDA_CHECK, div_up, min_size
 *   6. several GPUs (step 09): rank_t, multi_step_t, run_multi(), NCCL_CHECK
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a function that never returns (it ends the program). */
#if defined(__GNUC__) || defined(__clang__)
#define NORETURN __attribute__((noreturn))
#else
#define NORETURN
#endif

/* ---- 1. elem_t -----------------------------------------------------------
 * Every step is built twice. The normal build sums floats. The exact build
 * (-DREDUCE_EXACT) sums unsigned 32-bit integers, whose addition wraps modulo
 * 2^32 and is therefore associative: every summation order gives the same
 * bits, so the result must equal the reference exactly. That catches a kernel
 * that drops or repeats one element, which no float tolerance can at large n.
 */
#ifdef REDUCE_EXACT
typedef unsigned int elem_t;
#define ELEM_NAME "uint32"
#else
typedef float elem_t;
#define ELEM_NAME "float"
#endif

#ifdef __CUDACC__
#ifdef REDUCE_EXACT
typedef uint4 elem4_t;   /* four elements, one 16-byte load */
#else
typedef float4 elem4_t;
#endif
#endif

/* ---- 2. launch_t ---------------------------------------------------------
 * The harness fills this in before it calls the step's launcher. */
typedef struct {
    size_t n;          /* elements to sum, n >= 1 */
    int block;         /* threads per block: --block, or the step's default */
    int grid;          /* blocks: the step's grid_size(), or --grid */
    int device;        /* the CUDA device in use */
    int sm_count;      /* its number of multiprocessors */
    void *scratch;     /* scratch_size() bytes, poisoned before every run */
    void *state;       /* state_bytes, zeroed once; a step must leave it zeroed */
} launch_t;

/* ---- 3. step_t -----------------------------------------------------------
 * How a step combines partial sums decides how many roundings one element can
 * go through, and so the error bound for the float result. */
typedef enum {
    COMBINE_ATOMIC_EACH,       /* every element atomically added into one total */
    COMBINE_ATOMIC_PER_BLOCK,  /* one atomic add per block */
    COMBINE_TREE,              /* partials reduced again, no atomics */
    COMBINE_FIXED_ORDER,       /* step 08's order, fixed by n alone: chunks of
                                  step->chunk elements (see order.c); the result
                                  must equal the CPU replica of that order, bit
                                  for bit */
    COMBINE_EXACT,             /* the result must be the correctly rounded exact
                                  sum, bit for bit (step 10) */
    COMBINE_UNKNOWN            /* someone else's code: assume the worst order */
} combine_t;

/* Which --block values a step accepts. */
typedef enum {
    BLOCK_ANY,     /* 1 to 1024 */
    BLOCK_POW2,    /* a power of two from 32 to 1024 */
    BLOCK_NONE     /* the step chooses; --block is refused */
} block_rule_t;

typedef struct {
    const char *name;         /* "03_warp_shuffle": the file name and the report label */
    const char *technique;    /* what the step adds, in a few words */
    int deterministic;        /* 1 if every run gives the same bits (the harness checks) */
    combine_t combine;
    block_rule_t block_rule;
    int default_block;        /* threads per block when --block is not given */
    int (*block_size)(const launch_t *L);       /* or NULL: the block for L->n (L->n, device and
                                                   sm_count are set) when --block is not given */
    size_t (*grid_size)(const launch_t *L);     /* blocks to launch for L->n, L->block */
    size_t (*scratch_size)(const launch_t *L);  /* scratch bytes, or NULL for none */
    size_t state_bytes;                         /* state bytes, 0 for none */
    size_t chunk;             /* COMBINE_FIXED_ORDER: elements per chunk, a multiple of 128 */
    void (*reduce)(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream);
} step_t;

/* ---- 4. run_step ---------------------------------------------------------
 * Runs the program for one step and returns its exit code. Run a step with
 * --help to see the options. */
int run_step(int argc, char **argv, const step_t *step);

enum {
    EXIT_OK = 0,        /* every result correct */
    EXIT_WRONG = 1,     /* a result outside its bound, or not deterministic as declared */
    EXIT_USAGE = 2,     /* bad arguments */
    EXIT_DEVICE = 3     /* no usable GPU, out of memory, a failed CUDA call or launch */
};

/* ---- 5. helpers for steps -------------------------------------------------
 * CUDA_CHECK(call): if the call returns an error, print the step, the call,
 * the place and CUDA's message, and exit with EXIT_DEVICE. */
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
void cuda_check(cudaError_t err, const char *what, const char *file, int line);

/* Stop with EXIT_DEVICE and one line that says why (e.g. a missing feature). */
NORETURN void device_fail(const char *why);

static inline size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }
static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* ---- 6. several GPUs ------------------------------------------------------
 * A step on several GPUs (step 09) sums one array spread over them, a rank
 * per GPU. Each rank holds a shard of whole chunks (common/shard.c) and does
 * its part in three phases, which the harness calls on every rank in turn:
 * local (its shard's chunk sums into its slots of `sums`), gather (every
 * rank's slots to every rank: NCCL, grouped when one process drives several
 * GPUs) and total (every chunk sum into the result). These run in
 * common/phases.c and multi.c, the communicators and processes in ranks.c:
 * nothing in this header needs NCCL or MPI. */
typedef struct {
    launch_t L;            /* the shard: L.n elements (0: an empty shard), block, grid, device */
    int rank, ranks;
    size_t n;              /* elements in the whole array */
    size_t first;          /* the shard's first element in the whole array */
    size_t chunks;         /* chunk sums in the whole array */
    size_t per_rank;       /* slots per rank: rank r's chunk sums go to sums[r * per_rank ...] */
    elem_t *sums;          /* ranks * per_rank slots, then room for the levels above (scratch) */
    void *comm;            /* the rank's NCCL communicator (an ncclComm_t) */
} rank_t;

typedef struct {
    const char *name;
    const char *technique;
    size_t chunk;                                /* the order's chunk: shards start on its multiples */
    int default_block;                           /* --block takes powers of two from 32 to 1024 */
    size_t (*grid_size)(const launch_t *L);      /* blocks for a shard of L->n >= 1 elements */
    size_t (*sums_size)(const rank_t *R);        /* bytes of R->sums */
    void (*local)(const elem_t *d_shard, const rank_t *R, cudaStream_t stream);
    void (*gather)(const rank_t *R, cudaStream_t stream);
    void (*total)(const rank_t *R, elem_t *d_out, cudaStream_t stream);
} multi_step_t;

int run_multi(int argc, char **argv, const multi_step_t *step);

/* NCCL_CHECK(call): if an NCCL call fails, say which and why, abort every
 * communicator and exit with EXIT_DEVICE. */
#define NCCL_CHECK(call) nccl_check((int)(call), #call, __FILE__, __LINE__)
void nccl_check(int result, const char *what, const char *file, int line);

#ifdef __cplusplus
}
#endif
#endif
