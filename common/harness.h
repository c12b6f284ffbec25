/* harness.h: what a step on one GPU tells the harness, and how it hands over.
 *
 * A step file defines its kernels, a launcher that only enqueues work on a
 * stream, and a step_t that describes it; its main() is one line:
 *
 *     int main(int argc, char **argv) { return run_step(argc, argv, &step); }
 *
 * The harness then parses the arguments, queries the GPU, draws the input
 * from a seed, computes an exact reference sum on the CPU, poisons the
 * output, runs and checks the step, times it and prints one report line per
 * run. Run a step with --help to see the options. The words below (elem_t,
 * CUDA_CHECK, div_up, combine_t, ...) come from base.h; the harness's files
 * are listed in parts.h; steps on several GPUs use multi/multi.h instead.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. launch_t ---------------------------------------------------------
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

/* ---- 2. step_t ------------------------------------------------------------ */
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
    size_t max_grid;                            /* the most blocks the step can take, or 0: the GPU's */
    size_t (*scratch_size)(const launch_t *L);  /* scratch bytes, or NULL for none */
    size_t state_bytes;                         /* state bytes, 0 for none */
    size_t chunk;             /* COMBINE_FIXED_ORDER: elements per chunk, a multiple of 128 */
    void (*reduce)(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream);
} step_t;

/* ---- 3. run_step ----------------------------------------------------------
 * Runs the program for one step and returns its exit code (base.h). */
int run_step(int argc, char **argv, const step_t *step);

#ifdef __cplusplus
}
#endif
#endif
