/* 03_warp_shuffle.cu: warps sum with register shuffles, not shared memory.
 *
 *     make step03 && ./step03
 *
 * Changed since 02: the block tree. The 32 threads of a warp can read each
 * other's registers with __shfl_down_sync, so a warp sums its 32 values in
 * five shuffle-and-add steps, with no shared memory and no barrier. Shared
 * memory now holds one partial per warp (at most 32), and a single warp sums
 * those with the same five steps. Two barriers per block instead of
 * log2(blockDim) + 1.
 *
 * The loads (the front half) are those of step 02, so large arrays run at the
 * same memory speed; what gets faster is the end of each block, which matters
 * when there is little data per block.
 *
 * Older reduction code unrolled the last warp with plain loads and stores to
 * a volatile shared array, trusting the 32 threads of a warp to run in
 * lock-step. Since Volta, threads of a warp are scheduled independently and
 * that code is a race. The _sync shuffles name the threads that take part
 * (the mask) and wait for them, so nothing here relies on lock-step.
 *
 * Changed functions: block_sum, grid_size, reduce, reduce_kernel.
 */
#include "../common/harness.h"

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round
#define FULL_WARP 0xffffffffu

// ---- kernels ----------------------------------------------------------------
// [begin thread_sum]
// The sum of this thread's share of in[0..n): vectors i, i + stride,
// i + 2 stride, ... where i is the thread's index in the grid and stride the
// number of threads in the grid. in must be 16-byte aligned (cudaMalloc
// gives 256). Valid in every thread.
__device__ elem_t thread_sum(const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4;                                    // whole vectors
    size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
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
// [end thread_sum]

// [begin warp_sum]
// Sums v across the 32 lanes of a warp; the result is valid in lane 0.
// Each step, lane i adds the value held by lane i + offset, halving the
// distance: 16, 8, 4, 2, 1. With lanes holding 0, 1, ..., 31, after the
// step with offset 16 lane 0 holds 0+16 and lane 15 holds 15+31; after all
// five, lane 0 holds 496. (Lanes whose partner would be past 31 get their
// own value back; what they hold afterwards is never used.)
__device__ elem_t warp_sum(elem_t v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_WARP, v, offset);
    return v;
}
// [end warp_sum]

// [begin block_sum]
// Sums one value per thread across the block: each warp with shuffles, then
// warp 0 sums the warps' sums. blockDim.x must be a multiple of 32.
// The result is valid in thread 0.
__device__ elem_t block_sum(elem_t v)
{
    __shared__ elem_t warp_sums[32];       // one per warp: at most 1024 / 32
    unsigned lane = threadIdx.x % 32;
    unsigned warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();                       // every warp's sum is written
    if (warp == 0) {
        unsigned warps = blockDim.x / 32;
        v = lane < warps ? warp_sums[lane] : 0;
        v = warp_sum(v);
    }
    return v;
}
// [end block_sum]

// [begin kernel]
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    elem_t v = thread_sum(in, n);
    elem_t total = block_sum(v);
    if (threadIdx.x == 0)
        atomicAdd(out, total);             // one atomic per block
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
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

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "03_warp_shuffle",
    .technique = "warp shuffles replace the shared-memory tree",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
