/* rows.h: what a step that sums every row of a matrix tells the harness (step 11).
 *
 * The input is an R x L matrix, row-major: row r is elements [r L, r L + L)
 * of the same array steps 00-10 sum (element i drawn from the seed as ever),
 * or a 2-D .npy. The step writes R sums, out[r] = the sum of row r. The
 * harness checks every row against its exact sum and bound, and for a step
 * that fixes its order, against the CPU replica of step 08's order applied
 * to the row, bit for bit. Its one report line gives the worst row.
 *
 *     int main(int argc, char **argv) { return run_rows(argc, argv, &step); }
 *
 * Contents
 *   1. rows_launch_t: what a launcher gets
 *   2. rows_step_t: what the step tells the harness
 *   3. run_rows()
 */
#ifndef ROWS_H
#define ROWS_H

#include "../base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. rows_launch_t ------------------------------------------------------ */
typedef struct {
    size_t rows;       /* R >= 1 */
    size_t len;        /* L >= 1 elements a row; row r starts at element r * len */
    int block;         /* threads per block: --block, or the step's default */
    int grid;          /* blocks: the step's grid_size(), or --grid */
    int device;
    int sm_count;
    void *scratch;     /* scratch_size() bytes, poisoned before every run */
    void *state;       /* state_size() bytes, zeroed once; a step must leave it zeroed */
} rows_launch_t;

/* ---- 2. rows_step_t ---------------------------------------------------------- */
typedef struct {
    const char *name;
    const char *technique;
    int deterministic;        /* 1 if every run gives the same bits in every row */
    combine_t combine;        /* COMBINE_FIXED_ORDER: each row in step 08's order of
                                 `chunk`, checked against the CPU replica; or
                                 COMBINE_UNKNOWN: within the worst order's bound */
    size_t chunk;
    block_rule_t block_rule;
    int default_block;
    size_t (*grid_size)(const rows_launch_t *L);     /* blocks for L->rows x L->len */
    size_t (*scratch_size)(const rows_launch_t *L);  /* or NULL: none */
    size_t (*state_size)(const rows_launch_t *L);    /* or NULL: none */
    void (*reduce)(const elem_t *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream);
} rows_step_t;

/* ---- 3. run_rows --------------------------------------------------------------
 * Runs the program for one step over every --shape and seed; returns its
 * exit code (base.h). */
int run_rows(int argc, char **argv, const rows_step_t *step);

#ifdef __cplusplus
}
#endif
#endif
