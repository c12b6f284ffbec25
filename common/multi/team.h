/* team.h: the multi-GPU part's inside, between team.c and multi.c. */
#ifndef TEAM_H
#define TEAM_H

#include "multi.h"

/* Starts the ranks on `gpus` GPUs (0: every GPU; under mpirun, one a
 * process), then the step's communicators; or stops with one clear line. */
void team_start(team_t *t, const multi_step_t *step, int gpus);
void team_finish(const team_t *t);
/* Waits for stream[0..count) (local rank i's is stream[i]), watching the
 * communicators too; never hangs. */
void team_wait(const team_t *t, const cudaStream_t *stream, int count, const char *when);
/* v[0..count) becomes the largest value over every process. */
void team_max(const team_t *t, double *v, int count);

/* Which part of the array each rank holds (shard.c). */
typedef struct {
    size_t chunks;          /* in the whole array */
    size_t per_rank;        /* chunks a rank holds, but the last ones */
    size_t first_chunk;     /* this rank's first chunk: rank * per_rank (clipped) */
    size_t chunk_count;     /* chunks it holds (0 for an empty shard) */
    size_t first, count;    /* elements [first, first + count) of the array */
} shard_t;
void shard_of(size_t n, size_t chunk, int ranks, int rank, shard_t *s);

#endif
