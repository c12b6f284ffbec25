/* 02_grid_stride.cu: each thread first sums many elements in registers.
 *
 *     make step02 && ./step02
 *
 * Changed since 01: the grid is no longer one thread per element. It is just
 * large enough to fill the GPU (blocks per multiprocessor from the occupancy
 * calculator, times the number of multiprocessors), and each thread walks the
 * array with a stride of the whole grid, adding into a register. Only then
 * does the block tree of step 01 run, once per block instead of once per 512
 * elements: a few hundred atomics in all (528 on a 132-SM GPU), not n / 512.
 *
 * Why it should now run at memory speed: a sum does one addition per 4 bytes
 * read, far less arithmetic than the memory system can feed, so the only goal
 * is to keep enough bytes in flight. Each thread loads 16 bytes at a time (a
 * float4: one instruction, and a warp covers 512 consecutive bytes, perfectly
 * coalesced) and issues LOADS_IN_FLIGHT loads before it waits for any.
 *
 * Changed functions: grid_size, reduce_kernel.
 */
#include "../common/harness.h"

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

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

// [begin block_sum]
// Sums one value per thread across the block, in shared memory (as in 01).
// partial[] holds blockDim.x elements. The result is valid in every thread.
__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    unsigned tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();                       // every value is in shared memory
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();                   // a level ends before the next reads it
    }
    return partial[0];
}
// [end block_sum]

// [begin kernel]
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    extern __shared__ elem_t partial[];    // blockDim.x elements, sized at launch
    elem_t v = thread_sum(in, n);
    elem_t total = block_sum(v, partial);
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
    size_t shared = L->block * sizeof(elem_t);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, shared));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    size_t shared = L->block * sizeof(elem_t);                       // partial[]
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
    reduce_kernel<<<L->grid, L->block, shared, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "02_grid_stride",
    .technique = "grid-stride loop, 16-byte loads, grid sized to fill the GPU",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
