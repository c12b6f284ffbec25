/* 00_naive.cu: one thread per element, each adds its element into one total.
 *
 *     make step00 && ./step00
 *
 * The simplest correct GPU sum. Thread i reads element i and adds it to a
 * single total in global memory with atomicAdd. The atomic makes each
 * read-modify-write indivisible; without it two threads can read the same old
 * total and one of the two additions is lost.
 *
 * Why it is slow: all n additions go to one address, so the memory system
 * performs them one after another, however many threads ask at once.
 * Why the float result changes from run to run: the additions happen in
 * whatever order the hardware serves them, and float addition is not
 * associative, so each order rounds a little differently.
 */
#include "../common/harness.h"

// ---- kernel -----------------------------------------------------------------
// [begin kernel]
// Thread i adds element i into *out. The index is a size_t: blockIdx.x *
// blockDim.x is computed in 32 bits and would wrap past 2^32 elements.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)                    // the last block may reach past the end
        atomicAdd(out, in[i]);
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
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));  // the total starts at 0
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());                                  // a bad launch shows here
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "00_naive",
    .technique = "one thread per element, atomicAdd into one total",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_EACH,
    .block_rule = BLOCK_ANY,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
