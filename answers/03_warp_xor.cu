/* 03_warp_xor.cu: step 03 with a butterfly warp sum, so that every lane of a
 * warp holds the total (the answer to exercise 2 of step 03).
 *
 *     make answers && build/answers/03_warp_xor --n 2^20
 *     build/answers/03_warp_xor_exact --n 2^20             (the uint32 build)
 *
 * __shfl_xor_sync(mask, v, m) returns, in lane i, the value of lane i ^ m.
 * With m = 16, 8, 4, 2, 1 the lanes pair up in a butterfly: lane i and lane
 * i ^ m swap values and both add, so both hold the same sum of their halves.
 * After the five steps every lane holds the sum of all 32, and no lane ever
 * asks for a lane past 31. Traced with lanes holding 0, 1, ..., 31:
 *   m = 16: lane i holds i + (i ^ 16); lanes 0 and 16 both hold 16
 *   m =  8: lanes 0, 8, 16, 24 all hold 0 + 8 + 16 + 24 = 48
 *   ...
 *   m =  1: all 32 lanes hold 496
 *
 * Does block_sum get simpler? A little: warp 0 no longer needs lane 0 alone
 * to hold the total, but the warps' sums still meet in shared memory and one
 * barrier, so the shape stays two levels. The butterfly pays off when every
 * lane needs the total (to normalise, or to broadcast without shared
 * memory). The sum is the same number of shuffles and adds as shuffle-down:
 * five of each per warp. It is also what cg::reduce does in step 04.
 *
 * Correct in the float and the exact build. Not deterministic, like step 03:
 * the blocks' totals meet in an atomicAdd.
 *
 * Changed functions: warp_sum.
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
// Sums v across the 32 lanes of a warp; the result is valid in every lane.
// Each step, lane i adds the value held by lane i ^ offset (a butterfly):
// both lanes of a pair end up with the same sum.
__device__ elem_t warp_sum(elem_t v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}
// [end warp_sum]

// [begin block_sum]
// Sums one value per thread across the block: each warp with shuffles, then
// warp 0 sums the warps' sums. blockDim.x must be a multiple of 32.
// The result is valid in every thread of warp 0 (thread 0 uses it).
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
    .name = "03_warp_xor",
    .technique = "butterfly warp sum (__shfl_xor_sync): every lane holds the total",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
