/* multi.h: what a step on several GPUs tells the harness (steps 09 and 10).
 *
 * One array over G GPUs, a rank per GPU: rank r holds a shard, a run of whole
 * chunks (shard.c). The harness starts the processes (one for every GPU, or
 * one a GPU under mpirun), hands out the GPUs, draws the shards, times the
 * runs and checks every rank's result. The step makes its NCCL communicators
 * (connect), and one run is its three phases on every local rank: local (the
 * shard's own work), collective (NCCL's, every local rank's call in one group)
 * and total (the result on every rank). Each phase gets the rank's result
 * slot, d_out: a step with nothing to combine may finish in its local phase.
 * The harness never calls NCCL: nothing here needs <nccl.h>.
 *
 *     int main(int argc, char **argv) { return run_multi(argc, argv, &step); }
 */
#ifndef MULTI_H
#define MULTI_H

#include "../harness.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_GPUS 64                /* local ranks one process drives */

/* ---- 1. team_t ------------------------------------------------------------ */
typedef struct {
    int ranks;                /* in the whole run */
    int local;                /* ranks this process drives: every one, or one under mpirun */
    int first;                /* the rank of this process's first local rank */
    int device[MAX_GPUS];     /* each local rank's GPU */
    int mpi;                  /* started by mpirun: one process a GPU */
} team_t;

/* ---- 2. rank_t ------------------------------------------------------------ */
typedef struct {
    launch_t L;            /* the shard: L.n elements (0: empty), block, grid, device, state */
    int rank, ranks;
    size_t n;              /* elements in the whole array */
    size_t first;          /* the shard's first element in the whole array */
    size_t chunks;         /* chunks in the whole array */
    size_t per_rank;       /* chunks a rank holds (the last ones may hold fewer) */
    void *sums;            /* sums_size() bytes, poisoned before every run */
} rank_t;

/* ---- 3. multi_step_t ------------------------------------------------------ */
typedef struct {
    const char *name;
    const char *technique;
    combine_t combine;                           /* COMBINE_FIXED_ORDER or COMBINE_EXACT */
    size_t chunk;                                /* shards start on multiples of it (1: anywhere) */
    int default_block;                           /* --block takes powers of two 32..1024 */
    int (*block_size)(const launch_t *L);        /* or NULL: the block without --block */
    size_t state_bytes;                          /* each rank's state, or 0 */
    size_t (*grid_size)(const launch_t *L);      /* blocks for a shard of L->n >= 1 elements */
    size_t max_grid;                             /* the most blocks a launch takes, or 0 */
    size_t (*sums_size)(const rank_t *R);        /* bytes of R->sums (0: none, R->sums NULL) */
    void (*connect)(const team_t *t);            /* a communicator for every local rank */
    void (*disconnect)(const team_t *t, int abort);   /* destroy them, or abort (on an error) */
    const char *(*comm_error)(const team_t *t);  /* NULL, or what went wrong in a communicator */
    void (*local)(const elem_t *d_shard, const rank_t *R, elem_t *d_out, cudaStream_t stream);
    void (*collective)(const team_t *t, const rank_t *R, const cudaStream_t *stream);  /* R[0..t->local) */
    void (*total)(const rank_t *R, elem_t *d_out, cudaStream_t stream);
} multi_step_t;

int run_multi(int argc, char **argv, const multi_step_t *step);

/* ---- 4. for the step: under mpirun, rank 0's `bytes` (NCCL's unique id) to
 * every process; one process that drives every rank has nothing to share. */
void team_share(const team_t *t, void *bytes, size_t len);

/* NCCL_CHECK(call), in a step that includes <nccl.h>: if an NCCL call fails,
 * say which and why, abort every communicator and exit with EXIT_DEVICE. */
#define NCCL_CHECK(call)                                                                  \
    do {                                                                                  \
        ncclResult_t nccl_r_ = (call);                                                    \
        if (nccl_r_ != ncclSuccess && nccl_r_ != ncclInProgress)                          \
            multi_fail(#call, ncclGetErrorString(nccl_r_), ncclGetLastError(NULL), __FILE__, __LINE__); \
    } while (0)
NORETURN void multi_fail(const char *what, const char *error, const char *detail, const char *file, int line);

#ifdef __cplusplus
}
#endif
#endif
