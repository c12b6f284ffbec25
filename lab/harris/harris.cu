/* harris.cu: the seven reduction kernels of Mark Harris's "Optimizing Parallel
 * Reduction in CUDA" (NVIDIA, 2007), on the course's harness.
 *
 *     make harris                                   all seven and steps 01-07, measured
 *     build/harris/harris3 --n 2^22                 one kernel (float)
 *     build/exact/harris/harris7 --n 2^22 --grid 64 kernel 7 on a G80-sized grid (uint32)
 *
 * Each kernel adds one optimisation to the one before:
 *   1  interleaved addressing: threads with tid % 2s == 0 add (divergent warps)
 *   2  interleaved addressing: thread tid adds at index 2 s tid (bank conflicts)
 *   3  sequential addressing: the first s threads add the upper half (step 01's tree)
 *   4  the first add during the load: two elements per thread, half the blocks
 *   5  the last warp unrolled, with no barrier: warp-synchronous volatile code
 *   6  completely unrolled: the block size is a template parameter
 *   7  many elements per thread: a fixed grid, each thread loops over the input
 *
 * One file, built once per kernel (-DKERNEL=1 ... 7, see lab/harris/harris.mk), so
 * that the seven sit side by side and each neighbouring pair differs in a
 * few lines, like the steps; each program reports under its own name
 * (harris_1_interleaved_divergent, ...). Only kernels 6 and 7 are templates,
 * instantiated for every block size the harness accepts (powers of two from
 * 32 to 1024): a table of six kernels, the kind of instantiation STYLE.md
 * warns about, kept here because it is the technique being measured.
 *
 * Like the slides, every kernel writes one partial sum per block, and the
 * launcher runs the same kernel again over the partials until one value is
 * left: all the passes are queued on the stream, none waits for the host.
 * Where ours differ from the slides:
 *   - every load is guarded, so any n >= 1 works (the slides assume n a
 *     multiple of what a block covers); indices are 64-bit;
 *   - the warp tail of kernels 5-7 reads 32 words above each thread, so a
 *     block of 32 threads zeroes words 32-63 (the slides assume 64 or more);
 *   - kernel 7 sums in a register, and its later passes run one block, whose
 *     loop covers any number of partials.
 * The order of additions is fixed by n, the block and the grid, so the float
 * result is the same bits on every run. Kernels 5-7 rely on the warp running
 * in lock-step, which nothing has promised since Volta: the harness checks
 * every run, and make harris runs racecheck on them.
 */
#include "../../common/harness.h"

#ifndef KERNEL
#error "build with -DKERNEL=1 ... 7 (make harris-kernels)"
#endif

// ---- kernels ----------------------------------------------------------------
// Every kernel: in[0..n) -> out[blockIdx.x], the block's sum. partial[] is
// dynamic shared memory of max(blockDim.x, 64) elements.

// One element per thread (kernels 1-3); threads past the end load 0.
__device__ elem_t load_one(const elem_t *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    return i < n ? in[i] : 0;
}

// [begin load_two]
// Two elements per thread, added on the way in (kernels 4-6). Block b covers
// 2T elements from 2bT; thread t adds the t-th of each half. With T = 4,
// block 1 covers elements 8..15: thread 0 adds 8 and 12, thread 3 adds 11 and 15.
__device__ elem_t load_two(const elem_t *in, size_t n)
{
    size_t i = (size_t)blockIdx.x * 2 * blockDim.x + threadIdx.x;
    elem_t v = i < n ? in[i] : 0;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    return v;
}
// [end load_two]

// [begin kernel1]
__global__ void harris1_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    partial[tid] = load_one(in, n);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)              // 0, 2s, 4s, ...: a few threads of every warp
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel1]

// [begin kernel2]
__global__ void harris2_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    partial[tid] = load_one(in, n);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;        // the first threads work: whole warps idle
        if (index < blockDim.x)              // but a warp's words are 2s apart: bank conflicts
            partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel2]

// [begin kernel3]
__global__ void harris3_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    partial[tid] = load_one(in, n);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)                         // the first s threads, consecutive words
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel3]

// [begin kernel4]
__global__ void harris4_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    partial[tid] = load_two(in, n);          // the first level of the tree, in registers
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel4]

// [begin warp_tail]
// The last 64 values, summed by the first warp with no barrier, the way the
// slides did it: trusting the 32 threads of a warp to run in lock-step, so
// that every thread's store of one line lands before any thread's load of
// the next. volatile makes each line a real load and store (the compiler may
// not keep p[tid] in a register); it orders nothing between threads. Since
// Volta (compute capability 7.0) the threads of a warp are scheduled
// independently and that lock-step is not promised: this is a data race,
// kept because it is the technique being measured. The correct forms are
// __syncwarp() between the lines, or step 03's shuffles. Valid in thread 0.
__device__ void warp_tail(volatile elem_t *p, unsigned tid)
{
    p[tid] = p[tid] + p[tid + 32];
    p[tid] = p[tid] + p[tid + 16];
    p[tid] = p[tid] + p[tid + 8];
    p[tid] = p[tid] + p[tid + 4];
    p[tid] = p[tid] + p[tid + 2];
    p[tid] = p[tid] + p[tid + 1];
}
// [end warp_tail]

// [begin kernel5]
__global__ void harris5_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    partial[tid] = load_two(in, n);
    if (blockDim.x < 64) partial[tid + blockDim.x] = 0;   // the tail reads 64 words
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {   // barriers while warps remain
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) warp_tail(partial, tid);
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel5]

// [begin unrolled_tree]
// Kernel 5's tree with the block size known when compiling: the loop has a
// constant trip count, so #pragma unroll turns it into straight-line code
// (no counter, no test of s), and tid < s compares with constants.
template <unsigned BLOCK>
__device__ void unrolled_tree(elem_t *partial, unsigned tid)
{
    #pragma unroll
    for (unsigned s = BLOCK / 2; s > 32; s /= 2) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) warp_tail(partial, tid);
}
// [end unrolled_tree]

// [begin kernel6]
template <unsigned BLOCK>
__global__ void harris6_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    partial[tid] = load_two(in, n);
    if (BLOCK < 64) partial[tid + BLOCK] = 0;
    __syncthreads();
    unrolled_tree<BLOCK>(partial, tid);
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel6]

// [begin kernel7]
// Each thread first adds up its share in a register: pairs of elements BLOCK
// apart, the grid's 2 * BLOCK * gridDim.x elements further on each round.
template <unsigned BLOCK>
__global__ void harris7_kernel(const elem_t *in, elem_t *out, size_t n)
{
    extern __shared__ elem_t partial[];
    unsigned tid = threadIdx.x;
    size_t stride = (size_t)2 * BLOCK * gridDim.x;
    elem_t v = 0;
    for (size_t i = (size_t)blockIdx.x * 2 * BLOCK + tid; i < n; i += stride) {
        v += in[i];
        if (i + BLOCK < n) v += in[i + BLOCK];
    }
    partial[tid] = v;
    if (BLOCK < 64) partial[tid + BLOCK] = 0;
    __syncthreads();
    unrolled_tree<BLOCK>(partial, tid);
    if (tid == 0) out[blockIdx.x] = partial[0];
}
// [end kernel7]

// ---- launcher ---------------------------------------------------------------
// This program's kernel, for blocks of 32, 64, ..., 1024 threads.
typedef void (*kernel_t)(const elem_t *in, elem_t *out, size_t n);
#define SAME_FOR_ALL(k) { k, k, k, k, k, k }
#define ONE_PER_BLOCK(k) { k<32>, k<64>, k<128>, k<256>, k<512>, k<1024> }

#if KERNEL == 1
#define NAME "harris_1_interleaved_divergent"
#define TECHNIQUE "interleaved addressing, tid % 2s == 0 adds (divergent warps)"
static const kernel_t kernels[] = SAME_FOR_ALL(harris1_kernel);
#elif KERNEL == 2
#define NAME "harris_2_interleaved_strided"
#define TECHNIQUE "interleaved addressing, index 2s * tid (bank conflicts)"
static const kernel_t kernels[] = SAME_FOR_ALL(harris2_kernel);
#elif KERNEL == 3
#define NAME "harris_3_sequential"
#define TECHNIQUE "sequential addressing"
static const kernel_t kernels[] = SAME_FOR_ALL(harris3_kernel);
#elif KERNEL == 4
#define NAME "harris_4_first_add_on_load"
#define TECHNIQUE "first add during the global load (half the blocks)"
static const kernel_t kernels[] = SAME_FOR_ALL(harris4_kernel);
#elif KERNEL == 5
#define NAME "harris_5_unrolled_last_warp"
#define TECHNIQUE "last warp unrolled, warp-synchronous volatile tail"
static const kernel_t kernels[] = SAME_FOR_ALL(harris5_kernel);
#elif KERNEL == 6
#define NAME "harris_6_completely_unrolled"
#define TECHNIQUE "completely unrolled, block size a template parameter"
static const kernel_t kernels[] = ONE_PER_BLOCK(harris6_kernel);
#elif KERNEL == 7
#define NAME "harris_7_many_per_thread"
#define TECHNIQUE "many elements per thread, a fixed grid"
static const kernel_t kernels[] = ONE_PER_BLOCK(harris7_kernel);
#else
#error "KERNEL must be 1 ... 7"
#endif
#define PER_THREAD (KERNEL >= 4 ? 2 : 1)   // elements a thread loads (kernel 7: at least)

static kernel_t kernel_for(int block)
{
    int k = 0;
    while ((32 << k) < block) k++;         // 32 -> 0, 64 -> 1, ..., 1024 -> 5
    return kernels[k];
}

static size_t shared_bytes(int block)
{
    return (size_t)(block > 64 ? block : 64) * sizeof(elem_t);
}

// Kernels 1-6: one block per block-sized piece of the input. Kernel 7: as
// many blocks as the GPU holds at once (occupancy x SMs), fewer for a small n.
static size_t grid_size(const launch_t *L)
{
    size_t needed = div_up(L->n, (size_t)L->block * PER_THREAD);
    if (KERNEL != 7) return needed;
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for(L->block), L->block,
                                                             shared_bytes(L->block)));
    return min_size((size_t)per_sm * L->sm_count, needed);
}

// The grid of a pass over `count` partials.
static size_t next_grid(size_t count, int block)
{
    return KERNEL == 7 ? 1 : div_up(count, (size_t)block * PER_THREAD);
}

// Two levels of partials, which the passes take turns to write: the first
// pass's (grid values) and the second's (fewer than grid / block).
static size_t scratch_size(const launch_t *L)
{
    return ((size_t)L->grid + div_up(L->grid, L->block)) * sizeof(elem_t);
}

// [begin launcher]
// The same kernel again and again, each pass summing the partials of the one
// before, until a pass of one block writes the total to d_out.
static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    kernel_t kernel = kernel_for(L->block);
    elem_t *level[2] = { (elem_t *)L->scratch, (elem_t *)L->scratch + L->grid };
    const elem_t *src = d_in;
    size_t count = L->n, grid = (size_t)L->grid;
    for (int pass = 0;; pass++) {
        elem_t *dst = grid == 1 ? d_out : level[pass % 2];
        kernel<<<(unsigned)grid, L->block, shared_bytes(L->block), stream>>>(src, dst, count);
        CUDA_CHECK(cudaGetLastError());
        if (grid == 1) return;
        src = dst;
        count = grid;
        grid = next_grid(count, L->block);
    }
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = NAME,
    .technique = TECHNIQUE,
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 128,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
