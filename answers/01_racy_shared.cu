/* 01_racy_shared.cu: the race of 00_racy.cu, moved into shared memory,
 * where compute-sanitizer can see it.
 *
 *     make answers && build/answers/01_racy_shared --n 2^20
 *     compute-sanitizer --tool racecheck build/answers/01_racy_shared --check-only --n 4096
 *     compute-sanitizer --tool racecheck build/answers/00_racy --check-only --n 4096
 *
 * Each block keeps a running total in one __shared__ word, and every thread
 * adds its element to it with a plain load, add and store, no atomic. Thread 0
 * then adds the block's total into the global total with one (correct)
 * atomicAdd. As in 00_racy, concurrent read-modify-writes lose additions, so
 * the harness reports WRONG at n = 2^20, in the float and the exact build.
 *
 * The difference is what the tools see. racecheck tracks every shared-memory
 * access of every thread between barriers, and reports this one as a hazard
 * between the writes (and reads) of different threads to the same shared
 * address: the first command above prints the hazards, with the source line
 * of each access (build with -lineinfo, as the Makefile does), and a
 * RACECHECK SUMMARY that counts them. The second command, on the same mistake
 * in global memory, reports none: racecheck does not look at global memory.
 * A clean racecheck is no proof that a kernel is race-free.
 *
 * The fix for either version is an atomic (atomicAdd on the shared word is
 * cheap: shared-memory atomics are native) or, better, a tree (step 01).
 *
 * Changed functions: reduce, reduce_kernel.
 */
#include "../common/harness.h"

// ---- kernel -----------------------------------------------------------------
// Every thread adds its element into a shared per-block total without an
// atomic (the race, on purpose); thread 0 adds the block's total to *out.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    __shared__ elem_t block_total;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();                       // the total is 0 before anyone adds to it
    if (i < n)
        block_total += in[i];              // load, add, store: the race racecheck reports
    __syncthreads();                       // every thread's add is done (or lost)
    if (threadIdx.x == 0)
        atomicAdd(out, block_total);       // one correct atomic per block
}

// ---- launcher ---------------------------------------------------------------
// One thread per element, as in step 00.
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
    .name = "01_racy_shared",
    .technique = "WRONG on purpose: a shared total without an atomic (a shared-memory race)",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_ANY,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
