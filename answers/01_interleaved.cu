/* 01_interleaved.cu: step 01's block tree with interleaved addressing, two ways.
 *
 *     make answers && build/answers/01_interleaved --n 2^24
 *     build/answers/01_interleaved_strided --n 2^24     (built with -DSTRIDED_INDEX)
 *     ./step01 --n 2^24                                 (sequential addressing)
 *
 * Step 01 halves the number of working threads at each level and keeps the
 * first ones busy: thread t adds partial[t + stride], stride = 256, 128, ...
 * The older "interleaved" tree goes the other way: at level s = 1, 2, 4, ...
 * the values s places apart are added, so the partial sums collect at indices
 * that are multiples of 2s. With 8 values a..h:
 *     s = 1:  [0] = a+b       [2] = c+d       [4] = e+f       [6] = g+h
 *     s = 2:  [0] = a+b+c+d                   [4] = e+f+g+h
 *     s = 4:  [0] = a+b+c+d+e+f+g+h
 * Same additions, same result; what differs is which threads do them.
 *
 * Version 1 (this file as is): `if (tid % (2*s) == 0) partial[tid] += ...`.
 * The working threads are spread out: at s = 1 every other thread of every
 * warp, at s = 16 one thread per warp. Each warp executes the level for the
 * few threads that work in it while the others wait (divergence), and the %
 * by a variable is a slow sequence of instructions. The working threads of a warp touch words 2s apart, which
 * fall in different banks, so there are no bank conflicts.
 *
 * Version 2 (-DSTRIDED_INDEX): thread tid works on index = 2*s*tid, so the
 * working threads are the first ones again and whole warps drop out early.
 * But the 32 threads of a warp now touch words 2s apart: at s = 1, words
 * 0, 2, ..., 62, two per bank (a 2-way conflict); at s = 2, four per bank;
 * from s = 16 on, every working thread of the warp is in the same bank.
 * Shared memory has 32 banks, one 4-byte word each per cycle; accesses of a
 * warp to different words of one bank are served one after another.
 *
 * Count the conflicts with Nsight Compute (the metrics count the extra
 * passes that conflicts cost, for shared loads and for shared stores):
 *
 *     ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum build/answers/01_interleaved_strided --check-only --n 2^24
 *
 * and run the same command on build/answers/01_interleaved and on ./step01.
 * Expect the strided version's counts to stand far above the other two;
 * compare the times the three programs print as well.
 *
 * Both versions are correct (block sizes are powers of two, so index + s and
 * tid + s stay inside the block) and combine like step 01: one atomic per
 * block, not deterministic in float.
 *
 * Changed functions: block_sum.
 */
#include "../common/harness.h"

// ---- kernels ----------------------------------------------------------------
// Sums one value per thread across the block, in shared memory, with
// interleaved addressing. partial[] holds blockDim.x elements, and
// blockDim.x is a power of two. The result is valid in every thread.
#ifndef STRIDED_INDEX
// Version 1: thread tid works when it is a multiple of 2s.
__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    unsigned tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();                       // every value is in shared memory
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)            // 0, 2s, 4s, ...: scattered over every warp
            partial[tid] += partial[tid + s];
        __syncthreads();                   // a level ends before the next reads it
    }
    return partial[0];
}
#else
// Version 2: the first blockDim.x / (2s) threads work, on index 2s * tid.
__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    unsigned tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();                       // every value is in shared memory
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;      // at most 2 * 512 * 1023: no overflow
        if (index < blockDim.x)            // the first threads: whole warps idle early
            partial[index] += partial[index + s];   // words 2s apart: bank conflicts
        __syncthreads();                   // a level ends before the next reads it
    }
    return partial[0];
}
#endif

__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    extern __shared__ elem_t partial[];    // blockDim.x elements, sized at launch
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    elem_t v = i < n ? in[i] : 0;          // threads past the end add nothing
    elem_t total = block_sum(v, partial);
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
    size_t shared = L->block * sizeof(elem_t);                       // partial[]
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
    reduce_kernel<<<L->grid, L->block, shared, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
#ifndef STRIDED_INDEX
    .name = "01_interleaved",
    .technique = "interleaved block tree: tid % (2s) == 0 works (divergent warps)",
#else
    .name = "01_interleaved_strided",
    .technique = "interleaved block tree: index = 2s * tid (shared-memory bank conflicts)",
#endif
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
