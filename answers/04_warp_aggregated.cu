/* 04_warp_aggregated.cu: step 00 with one atomic per warp instead of one per
 * element ("warp-aggregated atomics").
 *
 *     make answers && build/answers/04_warp_aggregated --n 2^20
 *     build/answers/04_warp_aggregated_exact --n 2^20       (the uint32 build)
 *
 * Still one thread per element, but before touching the global total the
 * threads of a warp add their elements together, and only one of them issues
 * the atomicAdd: 32 times fewer atomics on the one contended address.
 *
 * The threads that take part are found at run time with
 * cg::coalesced_threads(): the group of the threads of this warp that are
 * active at that point of the program. Inside `if (i < n)` that is every
 * thread of a full warp, but in the last warp of the grid only those with an
 * element (with n = 1000 and 512-thread blocks, the warp of elements
 * 992..1023 has 8 active threads). A hard-coded full mask (0xffffffff) would
 * name threads that never reach the reduction, which is undefined behaviour;
 * the group names only the threads that are there. (The hardware may also
 * run a warp's threads in more than one pass; each pass is then its own
 * group, with its own sum and atomic, and the total is still right.)
 *
 *   cg::reduce(active, v, cg::plus<elem_t>())  the sum over the active
 *                                              threads, valid in each of them
 *   active.thread_rank() == 0                  the lowest active lane: one
 *                                              thread per warp does the atomic
 *
 * Correct in the float and the exact build. Not deterministic: the warps'
 * totals still reach *out in whatever order the atomics are served.
 *
 * By how much should the time drop? Step 00's time is its atomics, served
 * one after another at the one address (at 2^24 the 64 MiB it reads would
 * take tens of microseconds, its median in results/<gpu>/compare.md is
 * a thousand times that). A warp's sum costs five shuffles, far less than
 * the 31 atomics it saves, so the prediction is 32 times fewer atomics, 32
 * times less time: step 00's median at 2^24 divided by 32, still far above
 * the time to read the array. And by how much does it? That run is not in
 * results/ yet; on one GPU,
 *     make step00 answers
 *     ./step00 --n 2^24 && build/answers/04_warp_aggregated --n 2^24
 * and divide the first median by the second: about 32 if the prediction
 * holds, less if the hardware already combined some of step 00's atomics.
 *
 * Changed functions: grid_size, reduce_kernel.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

// ---- kernel -----------------------------------------------------------------
// Thread i holds element i; the active threads of each warp sum their
// elements, and the first of them adds that sum into *out.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cg::coalesced_group active = cg::coalesced_threads();   // this warp's threads that got here
        elem_t warp_total = cg::reduce(active, in[i], cg::plus<elem_t>());
        if (active.thread_rank() == 0)
            atomicAdd(out, warp_total);                          // one atomic per warp
    }
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
// The error bound: an element goes through at most 5 additions inside its
// warp, then through the atomics of up to n / 32 warps. The harness's model
// for one atomic per element (depth n) covers that.
static const step_t step = {
    .name = "04_warp_aggregated",
    .technique = "warp-aggregated atomics: coalesced_threads, cg::reduce, one atomicAdd per warp",
    .deterministic = 0,
    .combine = COMBINE_ATOMIC_EACH,
    .block_rule = BLOCK_ANY,
    .default_block = 512,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
