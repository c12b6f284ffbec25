/* flag_sum.cu: blocks meet through flag words: no fence, no barrier, no
 * second launch (an appendix program, not a step).
 *
 *     make flag-sum && build/clusters/flag_sum --n 2^18
 *     make clusters                      the appendix's measurements (GPU)
 *
 * Step 06 needs a fence on each side of its ticket because a block's partial
 * and its ticket are two writes to two places, which another block may see
 * in either order. Here each block stores its total and a flag in ONE 64-bit
 * word, with one atomic store: whoever sees the flag sees the total, so
 * nothing needs ordering. Then a relaxed ticket, as in step 06; the block
 * that draws the last one reads every block's word, waiting for any whose
 * flag is not there yet, sums them by index and puts each word back to zero.
 * Where one block covers n in one round, one_block_kernel sums it (steps 05
 * to 07): nothing to meet.
 *
 * Why it is right, under the CUDA memory model (cuda::atomic_ref at device
 * scope compiles to PTX's relaxed .gpu loads, stores and atom):
 *   1. A word is written by one 64-bit atomic store and read by 64-bit atomic
 *      loads: a load returns a whole value once stored (or the zero before
 *      it), never half of one. A word with its flag holds its block's total.
 *   2. A word never looks flagged before its block stores it. The flag is the
 *      upper half; the total's 32 bits are the lower half, so no total (NaN,
 *      -0, any uint32) can set it. The words are zero before each launch: the
 *      harness zeroes the state once, and every launch's last block stores
 *      zero into each word it read. The end of a kernel orders all it wrote
 *      before the next kernel in the stream, so a load returns that zero or
 *      this launch's flagged store, nothing older (coherence).
 *   3. Exactly one block draws the last ticket: the tickets are atomic
 *      read-modify-writes of one counter, so they take the values 0 .. grid-1
 *      once each. Relaxed is enough: the last ticket says only that every
 *      other block has passed its store (it comes first in that block's
 *      program), not that the store is visible yet; that is what the flags
 *      are for. So no fence anywhere.
 *   4. Nothing waits forever, whatever the grid: only the last block waits,
 *      and only for blocks that have drawn their tickets, which wait for
 *      nothing, so their stores land in finite time. A grid larger than fits
 *      on the GPU at once is fine: the last ticket cannot be drawn before
 *      every other block has run up to its own. (A collector chosen in advance, block 0 say,
 *      would spin while blocks it waits for may not have started; CUDA
 *      promises them a multiprocessor only in a cooperative launch.)
 *   5. The next launch starts from zero: a word is stored zero after it was
 *      read with its flag, so the zero comes after the flagged store in that
 *      word's order; the counter is stored zero by the last ticket's block,
 *      after every other block drew its ticket.
 * Same bits every run: each block's total is fixed by n, the block and the
 * grid, and the last block adds the words in the order of their index.
 * The state: one word per block (grids of up to MAX_BLOCKS), then the counter.
 */
#include <cuda/atomic>

#include "../../common/harness.h"
#include "../../common/parts.h"    // exit_cleanly: a --grid the state has no room for

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round
#define MAX_BLOCKS 65536    // flag words in the state: the largest grid

#include "flag_sum.cuh"            // thread_sum, block_total, PER_BLOCK
#include "../../steps/one_block.cuh"  // one block for a small n

typedef unsigned long long word_t;
typedef cuda::atomic_ref<word_t, cuda::thread_scope_device> word_ref;
typedef cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter_ref;

// ---- kernels ----------------------------------------------------------------
// [begin words]
// A block's total with the flag: the flag in the upper 32 bits, the total's
// bits in the lower. A word that was never stored is 0, flag and all.
__device__ word_t flagged(elem_t total) { return (word_t)1 << 32 | bits_of(total); }
__device__ elem_t total_of(word_t w) { return elem_of((unsigned)w); }

// words[0 .. count) summed, each thread a strided share, each word waited
// for until its flag is there (its block stored it; the store is on its way)
// and put back to zero for the next launch.
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
// [end words]

// [begin kernel]
// Each block stores its total as a flagged word and draws a ticket; the
// block with the last ticket sums every block's word into *out.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) flag_sum_kernel(const elem_t *in, size_t n, word_t *words,
                                                         unsigned *tickets, elem_t *out)
{
    __shared__ elem_t tile_sums[BLOCK / 32];
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    elem_t total = block_total<BLOCK>(block, tile, tile_sums, thread_sum<BLOCK>(in, n));
    if (block.thread_rank() == 0) {
        word_ref(words[blockIdx.x]).store(flagged(total), cuda::memory_order_relaxed);
        counter_ref ticket(*tickets);
        is_last = ticket.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;
        if (is_last)
            ticket.store(0, cuda::memory_order_relaxed);  // every ticket is drawn: ready for the next launch
    }
    block.sync();                          // share is_last; warp 0 is done with tile_sums
    if (!is_last)
        return;
    total = block_total<BLOCK>(block, tile, tile_sums, collect<BLOCK>(words, gridDim.x));
    if (block.thread_rank() == 0)
        *out = total;
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
typedef void (*kernel_t)(const elem_t *, size_t, word_t *, unsigned *, elem_t *);
static const kernel_t kernels[] = PER_BLOCK(flag_sum_kernel);

// [begin launcher]
// One block while one round of it covers n (256, 512 or 1024 threads, the
// fewest that do); above, blocks of 256 up to 2^20 elements (more, smaller
// blocks: each starts sooner and the last to finish waits less; measured on
// the H100 and the H200 with --block, results/<gpu>/clusters.md), and beyond
// that as steps 05 to 07 choose (one_block.cuh).
static int flag_block_size(const launch_t *L)
{
    for (int b = 256; b <= 1024; b *= 2)
        if (L->n <= (size_t)b * 4 * LOADS_IN_FLIGHT) return b;
    return L->n <= ((size_t)1 << 20) ? 256 : block_size<LOADS_IN_FLIGHT>(L);
}

// As many blocks as the GPU runs at once, fewer where n gives each thread
// less than a round of loads (as step 06), and no more than the state has
// words for.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[block_index(L->block)],
                                                             L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * LOADS_IN_FLIGHT);
    return min_size(min_size(resident, needed), MAX_BLOCKS);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    if (one_block_sum<LOADS_IN_FLIGHT>(d_in, d_out, L, stream))  // one block: nothing to meet
        return;
    word_t *words = (word_t *)L->state;                   // zero between launches
    unsigned *tickets = (unsigned *)(words + MAX_BLOCKS);
    kernels[block_index(L->block)]<<<L->grid, L->block, 0, stream>>>(d_in, L->n, words, tickets, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// No scratch. Called once the grid is known (--grid included): refuses a
// grid the state has no words for.
static size_t no_scratch(const launch_t *L)
{
    if (L->grid > MAX_BLOCKS) {
        fprintf(stderr, "%s: --grid %d: this program keeps one flag word per block and has room "
                "for %d; use a smaller --grid\n", g_step, L->grid, MAX_BLOCKS);
        exit_cleanly(EXIT_USAGE);
    }
    return 0;
}

// ---- program ----------------------------------------------------------------
static const step_t step = {
    .name = "flag_sum",
    .technique = "one launch: flag words and a relaxed ticket, no fence",
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = flag_block_size,
    .grid_size = grid_size,
    .scratch_size = no_scratch,
    .state_bytes = MAX_BLOCKS * sizeof(word_t) + sizeof(word_t),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
