/* tune.cu: the experiments behind results/NOTES.md.
 *
 *     make tune && ls build/tune/
 *
 * One single-launch, deterministic reduction (the structure of step 06) whose
 * choices are compile-time knobs, so that each can be measured on its own
 * with the same harness, input and timing as the steps:
 *
 *   LOADS_IN_FLIGHT  16-byte loads a thread issues before using any (2, 4, 8)
 *   LOAD_KIND        0 plain ld.global, 1 __ldg (read-only path),
 *                    2 __ldcs (streaming: evict first)
 *   MAPPING          0 grid-stride (steps 02-07), 1 one contiguous chunk per
 *                    block (as CUB does)
 *   TICKET           0 __threadfence + atomicAdd (step 06 as first written),
 *                    1 cuda::atomic_ref fetch_add with acq_rel order,
 *                    2 release fence, relaxed atomicAdd, acquire fence;
 *                    probes that give a wrong sum on purpose, to time a part:
 *                    8 blocks write their partials, no final sum,
 *                    9 loads only: nothing is summed across threads
 *
 * tuning.mk builds one program per combination it lists; each reports like a
 * step, under the name tune_<knobs>. tests/alike.py holds the functions not
 * listed below to step 06's.
 *
 * Changed functions: thread_sum, block_sum, reduce_kernel, reduce.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include "../../common/harness.h"

namespace cg = cooperative_groups;

#ifndef LOADS_IN_FLIGHT
#define LOADS_IN_FLIGHT 4
#endif
#ifndef LOAD_KIND
#define LOAD_KIND 0
#endif
#ifndef MAPPING
#define MAPPING 0
#endif
#ifndef TICKET
#define TICKET 0
#endif
#define STR2(x) #x
#define STR(x) STR2(x)
#define NAME "tune_L" STR(LOADS_IN_FLIGHT) "_K" STR(LOAD_KIND) "_M" STR(MAPPING) "_T" STR(TICKET)

__device__ __forceinline__ elem4_t load4(const elem4_t *p)
{
#if LOAD_KIND == 1
    return __ldg(p);
#elif LOAD_KIND == 2
    return __ldcs(p);
#else
    return *p;
#endif
}

// Sums vectors [first, last) of in4, stepping by step, LOADS_IN_FLIGHT at a time.
__device__ elem_t strided_sum(const elem4_t *in4, size_t first, size_t last, size_t step)
{
    elem_t sum = 0;
    size_t i = first;
    for (; i + (LOADS_IN_FLIGHT - 1) * step < last; i += LOADS_IN_FLIGHT * step) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = load4(in4 + i + k * step);
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < last; i += step) {
        elem4_t v = load4(in4 + i);
        sum += (v.x + v.y) + (v.z + v.w);
    }
    return sum;
}

__device__ elem_t thread_sum(cg::grid_group grid, const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4;
    size_t rank = grid.thread_rank();
#if MAPPING == 0
    elem_t sum = strided_sum(in4, rank, n4, grid.num_threads());
#else
    size_t blocks = grid.num_blocks(), threads = blockDim.x;
    size_t per_block = (n4 + blocks - 1) / blocks;
    size_t chunk = (per_block + threads - 1) / threads * threads;   // whole rows of the block
    size_t first = grid.block_rank() * chunk;
    size_t last = first + chunk < n4 ? first + chunk : n4;
    elem_t sum = first < last ? strided_sum(in4, first + threadIdx.x, last, threads) : 0;
#endif
    if (rank < n - n4 * 4)
        sum += in[n4 * 4 + rank];
    return sum;
}

__device__ elem_t block_sum(cg::thread_block block, elem_t v)
{
    __shared__ elem_t tile_sums[32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        unsigned tiles = tile.meta_group_size();
        v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}

__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *partials,
                              unsigned *blocks_done, elem_t *out)
{
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
#if TICKET == 9
    elem_t mine = thread_sum(cg::this_grid(), in, n);
    if (mine == (elem_t)12345)             // practically never: keeps the loads
        *out = mine;
    return;
#endif
    elem_t total = block_sum(block, thread_sum(cg::this_grid(), in, n));
#if TICKET == 8
    if (block.thread_rank() == 0)
        partials[blockIdx.x] = total;
    return;
#endif
    if (block.thread_rank() == 0) {
        partials[blockIdx.x] = total;
#if TICKET == 0
        __threadfence();
        unsigned ticket = atomicAdd(blocks_done, 1);
        is_last = ticket == gridDim.x - 1;
        if (is_last) __threadfence();
#elif TICKET == 1
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
        unsigned ticket = done.fetch_add(1, cuda::memory_order_acq_rel);
        is_last = ticket == gridDim.x - 1;
#else
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
        unsigned ticket = atomicAdd(blocks_done, 1);
        is_last = ticket == gridDim.x - 1;
        if (is_last)
            cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
#endif
    }
    block.sync();
    if (!is_last)
        return;
    elem_t v = 0;
    for (unsigned i = block.thread_rank(); i < gridDim.x; i += block.size())
        v += partials[i];
    total = block_sum(block, v);
    if (block.thread_rank() == 0) {
        *out = total;
        *blocks_done = 0;
    }
}

static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

static size_t scratch_size(const launch_t *L)
{
    return L->grid * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, (elem_t *)L->scratch,
                                                    (unsigned *)L->state, d_out);
    CUDA_CHECK(cudaGetLastError());
}

static const step_t step = {
    .name = NAME,
    .technique = "tuning variant of the single-launch reduction",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
