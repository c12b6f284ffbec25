/* input.c: the input, drawn once on the CPU and copied to the GPUs that hold
 * it (fill_parts): the whole array to one GPU, or each shard to its own. On
 * the way it computes the reference and, for a step that fixes its order of
 * additions, the chunk sums of that order and so the CPU replica; and how
 * many copies of it the timed runs need (input_copies).
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

#define STAGE ((size_t)1 << 24)  /* elements drawn on the CPU per copy to the GPUs */

/* The part of [s0, s1) that falls in the part's elements, as an offset into
 * the stage and a length (0: none). */
static size_t overlap(const part_t *p, size_t s0, size_t s1, size_t *from)
{
    size_t lo = p->first > s0 ? p->first : s0;
    size_t hi = p->first + p->count < s1 ? p->first + p->count : s1;
    *from = lo - s0;
    return hi > lo ? hi - lo : 0;
}

/* Draws elements [0, n) STAGE at a time (a whole number of chunks), copies
 * each stage's share to every part, and adds it to the reference. Every
 * GPU operation goes through the part's own stream (see harness.c). */
void fill_parts(uint64_t seed, size_t n, size_t chunk, const part_t *parts, int count,
                reference_t *ref)
{
    size_t stage = min_size(n, chunk ? STAGE / chunk * chunk : STAGE);
    elem_t *h_stage = NULL, *h_sums = NULL;
    CUDA_CHECK(cudaMallocHost((void **)&h_stage, stage * sizeof(elem_t)));
    if (chunk && !(h_sums = (elem_t *)malloc(div_up(n, chunk) * sizeof(elem_t))))
        device_fail("out of host memory for the CPU replica of the order");
    memset(ref, 0, sizeof *ref);
    for (size_t s0 = 0; s0 < n; s0 += stage) {
        size_t len = min_size(stage, n - s0), from = 0;
        draw_input(seed, s0, len, h_stage, ref);
        for (int i = 0; i < count; i++) {
            size_t k = overlap(&parts[i], s0, s0 + len, &from);
            if (k == 0) continue;
            CUDA_CHECK(cudaSetDevice(parts[i].device));
            CUDA_CHECK(cudaMemcpyAsync(parts[i].d + (s0 + from - parts[i].first), h_stage + from,
                                       k * sizeof(elem_t), cudaMemcpyHostToDevice, parts[i].stream));
        }
        if (chunk) order_chunk_sums(h_stage, len, chunk, h_sums + s0 / chunk);
        for (int i = 0; i < count; i++)      /* before h_stage is drawn again */
            CUDA_CHECK(cudaStreamSynchronize(parts[i].stream));
    }
    if (chunk) {
        ref->replica = order_combine(h_sums, div_up(n, chunk), chunk);
        ref->has_replica = 1;
    }
    free(h_sums);
    CUDA_CHECK(cudaFreeHost(h_stage));
}

int input_copies(const options_t *opt, size_t bytes, int l2_bytes)
{
    size_t max_reps = opt->check_only ? 0 : opt->reps ? (size_t)opt->reps : DEFAULT_REPS;
    size_t fresh = opt->warm ? 1 : div_up(3 * (size_t)l2_bytes, bytes ? bytes : 1);  /* to outrun L2 */
    return (int)min_size(fresh, max_reps > 0 ? max_reps : 1);
}
