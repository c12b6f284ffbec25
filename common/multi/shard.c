/* shard.c: which part of the array each of several GPUs holds (steps 09, 10).
 *
 * The n elements are cut into m = ceil(n / chunk) chunks, as step 08 cuts
 * them, and the chunks are dealt out in order, per_rank = ceil(m / ranks) to
 * a rank: rank r holds chunks [r per_rank, (r + 1) per_rank), clipped to m.
 * Every shard is a run of whole chunks, so a rank's chunk sums are the very
 * ones one GPU would compute; the last ranks may hold fewer chunks, or none
 * (n = 1 on two GPUs). Rank r's chunk sums go to slots [r per_rank, ...) of
 * the gathered array, which is then in the chunks' own order.
 *
 * Example: n = 10000, chunk 4096, 2 ranks: m = 3, per_rank = 2; rank 0 holds
 * elements [0, 8192), rank 1 holds [8192, 10000).
 */
#include "../parts.h"
#include "team.h"

/* A test seam, compiled out: the tests build a harness with -DSHARD_SHIFT=K,
 * which moves every boundary between ranks K elements off the chunks'. */
#ifndef SHARD_SHIFT
#define SHARD_SHIFT 0
#endif

void shard_of(size_t n, size_t chunk, int ranks, int rank, shard_t *s)
{
    s->chunks = div_up(n, chunk);
    s->per_rank = div_up(s->chunks, (size_t)ranks);
    s->first_chunk = min_size((size_t)rank * s->per_rank, s->chunks);
    size_t end_chunk = min_size(s->first_chunk + s->per_rank, s->chunks);
    s->chunk_count = end_chunk - s->first_chunk;
    size_t shift = (size_t)SHARD_SHIFT * (rank > 0);        /* 0 but in that test */
    size_t first = min_size(s->first_chunk * chunk + shift, n);
    size_t end = rank == ranks - 1 ? n : min_size(end_chunk * chunk + SHARD_SHIFT, n);
    s->first = first;
    s->count = end > first ? end - first : 0;
}
