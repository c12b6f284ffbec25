/* 00_racy.cu: step 00 without the atomic. It is wrong, and it should be.
 *
 *     make answers && build/answers/00_racy --n 2^20
 *     build/answers/00_racy_exact --n 2^20           (the uint32 build)
 *     compute-sanitizer --tool racecheck build/answers/00_racy --check-only --n 4096
 *
 * The exercise: replace atomicAdd(out, in[i]) by *out += in[i] and explain
 * what happens. The line is three steps for the GPU: load *out into a
 * register, add in[i], store the register back to *out. Nothing stops
 * another thread from loading *out between this thread's load and its store;
 * both then store "old total + my element", and one of the two elements is
 * lost. Within a warp it is worse: its 32 threads load the same total at once
 * and all store, and only one of the 32 stores survives.
 *
 * What you will see: at n = 1 the sum is right (one thread cannot race). At
 * n = 2^20, with thousands of warps in flight, additions are lost: the harness
 * prints WRONG and exits with 1, and the "deterministic:" field will usually
 * show several distinct results among the runs. The exact (uint32) build is
 * WRONG too, which shows that this is not rounding: elements are missing.
 *
 * What the tools say: nothing. compute-sanitizer's racecheck watches shared
 * memory only, and this race is on a global-memory word, so racecheck
 * reports no hazard here (memcheck has nothing to report either: every access
 * is in bounds). The same mistake on a __shared__ total is caught; see
 * 01_racy_shared.cu:
 *
 *     compute-sanitizer --tool racecheck build/answers/01_racy_shared --check-only --n 4096
 *
 * The lesson: a sum that is wrong even in the exact build, and different on
 * every run, points to lost updates. The tools find those only in shared
 * memory; in global memory, the exact build and a check against a reference
 * are what catch them.
 *
 * Changed functions: reduce, reduce_kernel.
 */
#include "../common/harness.h"

// ---- kernel -----------------------------------------------------------------
// Thread i adds element i into *out with a plain load, add and store: a data
// race between all n threads (on purpose: this program is the lesson).
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        *out += in[i];            // load, add, store: other threads' stores are lost
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
    .name = "00_racy",
    .technique = "WRONG on purpose: *out += in[i] without an atomic (a global-memory race)",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_EACH,
    .block_rule = BLOCK_ANY,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
