/* 01_shared_memory.cu: each block sums its elements in shared memory first.
 *
 *     make step01 && ./step01
 *
 * Changed since 00: a block of T threads adds its T elements together in
 * shared memory, a tree of log2(T) levels separated by __syncthreads(), and
 * only thread 0 adds the block's total into the global total. That is one
 * atomic per block instead of one per element: 512 times fewer with the
 * default block, so the atomics stop being the bottleneck.
 *
 * Shared memory is a small scratchpad on each multiprocessor, shared by the
 * threads of a block and as fast as a register file access when the threads of
 * a warp touch different banks. The tree below uses "sequential addressing":
 * the threads that work at each level are the first ones, and they read
 * consecutive words, so no two threads of a warp hit the same bank.
 *
 * Changed functions: reduce, reduce_kernel.
 */
#include "../common/harness.h"

// ---- kernels ----------------------------------------------------------------
// [begin block_sum]
// Sums one value per thread across the block, in shared memory.
// partial[] holds blockDim.x elements. The result is valid in every thread.
//
// Each level, thread t (t < stride) adds the element stride places above it,
// halving the live values. With 8 threads holding a..h:
//     stride 4:  t0 = a+e   t1 = b+f   t2 = c+g   t3 = d+h
//     stride 2:  t0 = a+e+c+g          t1 = b+f+d+h
//     stride 1:  t0 = a+b+c+d+e+f+g+h
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
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    elem_t v = i < n ? in[i] : 0;          // threads past the end add nothing
    elem_t total = block_sum(v, partial);
    if (threadIdx.x == 0)
        atomicAdd(out, total);             // one atomic per block
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// One thread per element: enough blocks to cover all n.
static size_t grid_size(const launch_t *L)
{
    return div_up(L->n, L->block);
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
    .name = "01_shared_memory",
    .technique = "block tree in shared memory, one atomicAdd per block",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
