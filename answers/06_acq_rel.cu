/* 06_acq_rel.cu: step 06 with its two fences folded into the ticket itself.
 *
 *     make answers && build/answers/06_acq_rel --n 2^20
 *     build/answers/06_acq_rel_exact --n 2^20               (the uint32 build)
 *
 * Step 06 orders its memory accesses with two __threadfence() calls around a
 * relaxed atomicAdd. Here the ticket is taken with one libcu++ atomic
 * operation that carries the ordering itself:
 *
 *     cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
 *     unsigned ticket = done.fetch_add(1, cuda::memory_order_acq_rel);
 *
 * atomic_ref gives atomic operations on an ordinary object (the counter in
 * the harness's state memory); thread_scope_device says which threads the
 * ordering is for: every thread of the GPU, the scope __threadfence() has.
 *
 * Why acq_rel gives both orderings the fences gave:
 *   release: the writes this thread made before the fetch_add (its partial)
 *            are visible to any thread that acquires the counter value the
 *            fetch_add wrote, or a later value of the counter (see below).
 *   acquire: the reads this thread makes after the fetch_add (the partials)
 *            cannot be served from before it, and see everything released by
 *            the increments whose values it builds on.
 * Every increment is a read-modify-write, so the counter's values form one
 * chain (a "release sequence"): the fetch_add that draws the last ticket
 * reads the value left by all grid - 1 earlier increments, so it
 * synchronises with each of their releases, and every partial is visible to
 * thread 0 of the last block.
 *
 * The block barrier then carries that visibility to the rest of the block,
 * as in step 06. Both halves are needed: a release alone lets the last
 * block's reads run ahead of its ticket; an acquire alone lets a writer's
 * partial lag behind its ticket.
 *
 * What changes is mostly how the code says it. In the PTX (nvcc -ptx
 * -arch=sm_90 answers/06_acq_rel.cu) the ticket is one instruction,
 * atom.add.acq_rel.gpu.u32, where step 06 has membar.gl, atom.global.add.u32
 * and, in the last block, membar.gl again. One difference in substance:
 * every block's ticket is now an acquire, where step 06 paid for the acquire
 * fence in the last block only; compare the times of the two programs to
 * see whether that is measurable. Same bits every run, as step 06.
 *
 * Changed functions: reduce_kernel.
 */
#include <cuda/atomic>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

// ---- kernels ----------------------------------------------------------------
// The sum of this thread's share of in[0..n): vectors i, i + stride,
// i + 2 stride, ... where i is the thread's rank in the grid and stride the
// number of threads in the grid. in must be 16-byte aligned (cudaMalloc
// gives 256). Valid in every thread.
__device__ elem_t thread_sum(cg::grid_group grid, const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4;                                    // whole vectors
    size_t rank = grid.thread_rank();
    size_t stride = grid.num_threads();
    elem_t sum = 0;
    size_t i = rank;
    // Issue all loads of a round before adding any, so they overlap in flight.
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in4[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < n4; i += stride) {                         // fewer than a round left
        elem4_t v = in4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (rank < n - n4 * 4)                                // the last n % 4 elements
        sum += in[n4 * 4 + rank];
    return sum;
}

// Sums one value per thread across the block: each 32-thread tile with
// cg::reduce, then tile 0 sums the tiles' sums. The block size must be a
// multiple of 32. The result is valid in tile 0, so in thread 0.
__device__ elem_t block_sum(cg::thread_block block, elem_t v)
{
    __shared__ elem_t tile_sums[32];       // one per tile: at most 1024 / 32
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();                          // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}

#include "../steps/one_block.cuh"  // one block for a small n; threads per block from n

// Each block writes its partial and takes a ticket with an acq_rel
// fetch_add; the block with the last ticket sums all partials into *out and
// resets the counter.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *partials,
                              unsigned *blocks_done, elem_t *out)
{
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    elem_t v = thread_sum(cg::this_grid(), in, n);
    elem_t total = block_sum(block, v);
    if (block.thread_rank() == 0) {
        partials[blockIdx.x] = total;
        // One atomic read-modify-write that is a release (the partial above
        // is visible before the ticket) and an acquire (the partials that
        // earlier tickets released are visible to the reads below).
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
        unsigned ticket = done.fetch_add(1, cuda::memory_order_acq_rel);
        is_last = ticket == gridDim.x - 1;
    }
    block.sync();                          // share is_last (and what thread 0 saw)
    if (!is_last)
        return;

    v = 0;                                 // as pass 2 of step 05
    for (unsigned i = block.thread_rank(); i < gridDim.x; i += block.size())
        v += partials[i];
    total = block_sum(block, v);
    if (block.thread_rank() == 0) {
        *out = total;
        // Every ticket is drawn: ready for the next launch. Relaxed is enough,
        // since nothing else touches the counter before this kernel ends, and
        // the end of a kernel orders it before the next launch.
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*blocks_done)
            .store(0, cuda::memory_order_relaxed);
    }
}

// ---- launcher ---------------------------------------------------------------
// As many blocks as the GPU can run at once, and no more: extra blocks would
// only wait for a free multiprocessor. A small input gets fewer, so that each
// thread still has a full round of loads.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

// One partial per block.
static size_t scratch_size(const launch_t *L)
{
    return L->grid * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *partials = (elem_t *)L->scratch;
    if (one_block_sum<LOADS_IN_FLIGHT>(d_in, d_out, L, stream))  // one block: nothing to combine
        return;
    unsigned *blocks_done = (unsigned *)L->state;     // zero between launches
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, partials, blocks_done, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "06_acq_rel",
    .technique = "one launch: an acq_rel atomic ticket replaces both fences",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = block_size<LOADS_IN_FLIGHT>,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
