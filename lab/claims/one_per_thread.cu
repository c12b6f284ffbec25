/* one_per_thread.cu: step 03 without its grid-stride loop (claim B).
 *
 *     make claims-programs && build/claims/one_per_thread --n 2^24
 *
 * Another course ranks its kernels: atomic, shared memory, shared memory with
 * warp shuffles, two-pass, cooperative; at about 16M elements the cooperative
 * one is fastest by far. A cooperative kernel needs a loop over the array
 * (its grid can be no larger than fits at once), but a shuffle kernel as first
 * lessons write it has one element per thread and a block per 512 elements.
 * This is that kernel: step 03's warp and block sums and its one atomic per
 * block, with step 01's front half (a thread per element) instead of step
 * 02's. Beside step 07 it tests whether the loop, not grid.sync(), made the
 * difference. tests/alike.py holds every other function to step 03's.
 *
 * Changed functions: thread_sum, grid_size.
 */
#include "../../common/harness.h"

#define FULL_WARP 0xffffffffu

// ---- kernels ----------------------------------------------------------------
// One element per thread, as first lessons write it; threads past the end hold 0.
__device__ elem_t thread_sum(const elem_t *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    return i < n ? in[i] : 0;
}

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

__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    elem_t v = thread_sum(in, n);
    elem_t total = block_sum(v);
    if (threadIdx.x == 0)
        atomicAdd(out, total);             // one atomic per block
}

// ---- launcher ---------------------------------------------------------------
// One thread per element: enough blocks to cover all n.
static size_t grid_size(const launch_t *L)
{
    return div_up(L->n, L->block);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "one_per_thread",
    .technique = "step 03 with one element per thread (no grid-stride loop)",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
