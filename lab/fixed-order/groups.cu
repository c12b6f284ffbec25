/* groups.cu: step 08's order, with its combine's first level spread over
 * the blocks.
 *
 * The question (lab/fixed-order/README.md, "What that leaves"): from 2^25
 * step 08's last block reads the whole level of chunk sums alone, n / 1024
 * bytes from L2 into one multiprocessor, and that is the gap to step 07.
 * Here each block takes a contiguous range of chunks (a launch decision: the
 * order is the same), and each group of CHUNK chunks (one chunk of the
 * level above) has its own ticket, drawn by the blocks whose ranges meet
 * it. The last of them sums the group with block_sums while other blocks
 * still stream; a second ticket, over the groups, finds the block that sums
 * the level above them (combine). Same additions, same order, same bits:
 * the harness checks them against the CPU replica.
 *
 * Sizes of one group or fewer, more than MAX_GROUPS groups, or a grid with
 * more blocks than half the chunks take step 08's kernel as it is.
 */
#include <cuda/atomic>

#include "../../common/harness.h"
#include "../../steps/fixed_order.cuh"

#define MAX_GROUPS 1024           // a ticket each, and one over them: n up to 2^34

// Draws ticket *t, counting to count, for the block; true in the block that draws last,
// which also puts the ticket back to 0 for the next launch.
__device__ bool last_to_draw(cg::thread_block block, unsigned *t, unsigned add, unsigned count, bool *is_last)
{
    if (block.thread_rank() == 0) {           // releases the block's sums, acquires the others'
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*t);
        *is_last = done.fetch_add(add, cuda::memory_order_acq_rel) + add == count;
        if (*is_last) *t = 0;
    }
    block.sync();
    return *is_last;
}

__global__ void groups_kernel(const elem_t *in, size_t n, elem_t *sums, unsigned *tickets, elem_t *out)
{
    __shared__ bool is_last;
    __shared__ unsigned summed;               // groups this block summed
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t chunks = (n + CHUNK - 1) / CHUNK, groups = (chunks + CHUNK - 1) / CHUNK, G = gridDim.x;
    unsigned *top = tickets + MAX_GROUPS;
    if (groups < 2 || groups > MAX_GROUPS || 2 * G > chunks) {   // step 08's kernel
        first_level(block, in, n, sums, out);
        if (n <= CHUNK) return;
        block.sync();
        if (G > 1 && !last_to_draw(block, top, 1, G, &is_last)) return;
        combine(block, sums, chunks, out);
        return;
    }
    // Block b: chunks [chunks b / G, chunks (b + 1) / G), its warps a chunk at a time.
    size_t lo = chunks * blockIdx.x / G, hi = chunks * (blockIdx.x + 1) / G;
    size_t m = n - lo * CHUNK < (hi - lo) * CHUNK ? n - lo * CHUNK : (hi - lo) * CHUNK;   // over CHUNK: >= 2 chunks
    sum_chunks(warp, in + lo * CHUNK, m, sums + lo, out, warp.meta_group_rank(), warp.meta_group_size());
    if (block.thread_rank() == 0) summed = 0;
    block.sync();                             // every chunk sum of this block is written
    elem_t *above = sums + (chunks + 3) / 4 * 4;
    for (size_t g = lo / CHUNK; g <= (hi - 1) / CHUNK; g++) {
        size_t first = g * CHUNK, last = (g + 1) * CHUNK < chunks ? (g + 1) * CHUNK - 1 : chunks - 1;
        // the blocks whose ranges meet group g: the one holding its first chunk to the one holding its last
        unsigned count = (unsigned)(((last + 1) * G - 1) / chunks - ((first + 1) * G - 1) / chunks + 1);
        if (last_to_draw(block, tickets + g, 1, count, &is_last)) {
            block_sums(block, sums, chunks, above, out, g, groups);   // chunk g of the level: one round
            if (block.thread_rank() == 0) summed++;
        }
        block.sync();                         // is_last read by all before the next group sets it
    }
    if (summed == 0 || !last_to_draw(block, top, summed, (unsigned)groups, &is_last)) return;
    combine(block, above, groups, out);
}

static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, groups_kernel, L->block, 0));
    return min_size((size_t)per_sm * L->sm_count, first_level_blocks(L->n, L->block));
}

static size_t scratch_size(const launch_t *L)
{
    size_t elems = 0;
    for (size_t m = div_up(L->n, CHUNK); m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    groups_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, (elem_t *)L->scratch, (unsigned *)L->state, d_out);
    CUDA_CHECK(cudaGetLastError());
}

static const step_t step = {
    .name = "08_groups",
    .technique = "step 08's order, its combine's first level by the blocks, a ticket a group",
    .deterministic = 1,
    .combine = COMBINE_FIXED_ORDER,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = (MAX_GROUPS + 1) * sizeof(unsigned),
    .chunk = CHUNK,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
