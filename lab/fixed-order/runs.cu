/* runs.cu: another order, proposed for large sums (lab/fixed-order/README.md,
 * "What that leaves"): step 08's chunks, then each run of RUN chunk sums
 * added by the block that summed the chunks, in one warp's shuffle tree,
 * so that the last block reads n / 2^17 run sums where step 08's reads
 * n / 2^12 chunk sums; above the runs, step 08's levels (combine). Fixed by
 * n alone, like step 08's, but other bits: runs_replica.c is its CPU
 * replica, and runs.sh checks the bits against it (the harness checks the
 * error bound and that every run gives the same bits). One run or less:
 * step 08's kernel as it is.
 */
#include <cuda/atomic>

#include "../../common/harness.h"
#include "../../steps/fixed_order.cuh"

#define RUN 32                    // chunk sums a run: one warp's lanes

__global__ void runs_kernel(const elem_t *in, size_t n, elem_t *sums, unsigned *blocks_done, elem_t *out)
{
    __shared__ bool is_last;
    __shared__ elem_t chunk_sums[RUN];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t chunks = (n + CHUNK - 1) / CHUNK, runs = (chunks + RUN - 1) / RUN;
    if (runs < 2) {                           // step 08's kernel
        first_level(block, in, n, sums, out);
        if (n <= CHUNK) return;
    } else {
        for (size_t r = blockIdx.x; r < runs; r += gridDim.x) {
            for (unsigned k = warp.meta_group_rank(); k < RUN; k += warp.meta_group_size()) {
                size_t c = r * RUN + k;
                elem_t s = 0;                 // past the last chunk: 0
                if (c < chunks)
                    s = chunk_sum(warp, in + c * CHUNK, n - c * CHUNK < CHUNK ? (unsigned)(n - c * CHUNK) : CHUNK);
                if (warp.thread_rank() == 0) chunk_sums[k] = s;
            }
            block.sync();                     // the run's chunk sums are in shared memory
            if (warp.meta_group_rank() == 0) {
                elem_t s = lane_tree(warp, chunk_sums[warp.thread_rank()]);
                if (warp.thread_rank() == 0) sums[r] = s;
            }
            block.sync();                     // read before the next run writes them
        }
    }
    block.sync();                             // every sum of this block is written
    if (block.thread_rank() == 0) {           // step 08's ticket
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
        is_last = gridDim.x == 1 || done.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    block.sync();
    if (!is_last) return;
    combine(block, sums, runs < 2 ? chunks : runs, out);
    if (gridDim.x > 1 && block.thread_rank() == 0)
        *blocks_done = 0;
}

static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, runs_kernel, L->block, 0));
    size_t runs = div_up(div_up(L->n, CHUNK), RUN);
    return min_size((size_t)per_sm * L->sm_count, runs < 2 ? first_level_blocks(L->n, L->block) : runs);
}

static size_t scratch_size(const launch_t *L)      // step 08's: at least the runs' levels
{
    size_t elems = 0;
    for (size_t m = div_up(L->n, CHUNK); m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    runs_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, (elem_t *)L->scratch, (unsigned *)L->state, d_out);
    CUDA_CHECK(cudaGetLastError());
}

static const step_t step = {
    .name = "08_runs",
    .technique = "another order: step 08's chunks, runs of 32 chunk sums by their block, then step 08's levels",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .chunk = CHUNK,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
