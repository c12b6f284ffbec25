/* flag_block0.cu: lab/small-sizes/flag_sum.cu with the collector chosen in advance:
 * block 0 sums the words, and there is no ticket.
 *
 *     make answers && build/answers/flag_block0 --n 2^18
 *     build/answers/flag_block0_exact --n 2^18              (the uint32 build)
 *
 * The ticket in lab/small-sizes/flag_sum.cu does one thing: it picks a block that
 * comes after every other, so that the block which waits only ever waits
 * for blocks that have run. Here block 0 collects as soon as its own total
 * is stored, one atomic round trip sooner, and waits in its spin loop for
 * words of blocks that may not have started yet.
 *
 * Whether they start is the question. On a whole GPU they do: block 0 holds
 * one block's place, the others wait for nothing and finish, and the blocks
 * behind them take their places. But CUDA promises a block a multiprocessor
 * only while others hold none it needs; a grid whose blocks cannot all be on
 * the GPU at once has no promise that a waiting block lets the rest through
 * (a GPU shared with other work, or one multiprocessor's worth of it, may
 * hold block 0 and nothing else). So this program takes the promise the way
 * step 07 does: a cooperative launch, which refuses a grid larger than fits
 * (cudaErrorCooperativeLaunchTooLarge, exit 3) and needs no grid.sync() to
 * be useful. lab/small-sizes/flag_sum.cu needs neither: its collector is chosen last.
 *
 * Words, flags and the clearing are as in lab/small-sizes/flag_sum.cu, and so are the
 * bits of the sum (the same blocks, the same order), for the same grid.
 *
 * No ticket in the kernel, a cooperative launch, a grid that must fit (so no
 * check of --grid against the state's words: the launch refuses first).
 *
 * Changed functions: flag_sum_kernel, reduce, grid_size.
 */
#include <cuda/atomic>

#include "../common/harness.h"

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round
#define MAX_BLOCKS 65536    // flag words in the state

#include "../lab/small-sizes/flag_sum.cuh"   // thread_sum, block_total, PER_BLOCK
#include "../steps/one_block.cuh"  // one block for a small n

typedef unsigned long long word_t;
typedef cuda::atomic_ref<word_t, cuda::thread_scope_device> word_ref;

// ---- kernels ----------------------------------------------------------------
__device__ word_t flagged(elem_t total) { return (word_t)1 << 32 | bits_of(total); }
__device__ elem_t total_of(word_t w) { return elem_of((unsigned)w); }

// words[0 .. count) summed, each waited for until its flag is there, then
// put back to zero for the next launch (as in lab/small-sizes/flag_sum.cu).
template <int BLOCK>
__device__ elem_t collect(word_t *words, unsigned count)
{
    elem_t v = 0;
    for (unsigned i = threadIdx.x; i < count; i += BLOCK) {
        word_ref word(words[i]);
        word_t w = word.load(cuda::memory_order_relaxed);
        while (w >> 32 == 0)
            w = word.load(cuda::memory_order_relaxed);
        v += total_of(w);
        word.store(0, cuda::memory_order_relaxed);
    }
    return v;
}

// Each block stores its total as a flagged word; block 0 then sums them all.
// Every block of the grid must be on the GPU at once (a cooperative launch).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) flag_sum_kernel(const elem_t *in, size_t n, word_t *words,
                                                         elem_t *out)
{
    __shared__ elem_t tile_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    elem_t total = block_total<BLOCK>(block, tile, tile_sums, thread_sum<BLOCK>(in, n));
    if (block.thread_rank() == 0)
        word_ref(words[blockIdx.x]).store(flagged(total), cuda::memory_order_relaxed);
    if (blockIdx.x != 0)
        return;
    block.sync();                          // warp 0 is done with tile_sums
    total = block_total<BLOCK>(block, tile, tile_sums, collect<BLOCK>(words, gridDim.x));
    if (block.thread_rank() == 0)
        *out = total;
}

// ---- launcher ---------------------------------------------------------------
typedef void (*kernel_t)(const elem_t *, size_t, word_t *, elem_t *);
static const kernel_t kernels[] = PER_BLOCK(flag_sum_kernel);

static int flag_block_size(const launch_t *L)
{
    for (int b = 256; b <= 1024; b *= 2)
        if (L->n <= (size_t)b * 4 * LOADS_IN_FLIGHT) return b;
    return L->n <= ((size_t)1 << 20) ? 256 : block_size<LOADS_IN_FLIGHT>(L);
}

// As many blocks as the GPU runs at once at most: a cooperative grid must
// fit (the state's words are more than any GPU holds blocks).
static size_t grid_size(const launch_t *L)
{
    int cooperative = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, L->device));
    if (!cooperative)
        device_fail("this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)");
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[block_index(L->block)],
                                                             L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(resident, needed);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    if (one_block_sum<LOADS_IN_FLIGHT>(d_in, d_out, L, stream))  // one block: nothing to meet
        return;
    word_t *words = (word_t *)L->state;                   // zero between launches
    size_t n = L->n;
    void *args[] = { &d_in, &n, &words, &d_out };
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)kernels[block_index(L->block)], L->grid,
                                           L->block, args, 0, stream));
}

// ---- program ----------------------------------------------------------------
static const step_t step = {
    .name = "flag_block0",
    .technique = "one cooperative launch: flag words, block 0 collects, no ticket",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = flag_block_size,
    .grid_size = grid_size,
    .state_bytes = MAX_BLOCKS * sizeof(word_t),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
