/* flag_no_clear.cu: lab/small-sizes/flag_sum.cu without putting the words back to
 * zero: a mistake, made on purpose (the answer to the exercise "Leave the
 * words" of the appendix on small sizes).
 *
 *     make answers && build/answers/flag_no_clear --n 2^20
 *
 * The last block still puts the ticket counter back to zero (without that,
 * the next launch's tickets would start at grid and no block would draw the
 * last one: no sum at all). But it leaves every word flagged. The next
 * launch's last block may then read a word before that launch's block has
 * stored it, and take the flag and the total of the launch before: the
 * argument of lab/small-sizes/flag_sum.cu (point 2: a load returns the zero or this
 * launch's store, nothing older) has lost its zero.
 *
 * What you see depends on what you test with. The harness sums the same
 * numbers in every run of one size (each timed run reads its own copy of the
 * input, but the copies are equal), so a stale word holds the total this
 * launch is about to store anyway: every sum is right, every run gives the
 * same bits, and a test that only compares sums passes. It is the state
 * check that fails: after the runs the harness reads the state back, finds
 * it is not zero ("the step left its state changed; the next launch would
 * start from what this one left behind"), marks the size WRONG and exits 1.
 * tests/answers.sh checks both: right sums, one result, and that failure.
 * Sum other numbers with the same state, as a real program would, and a
 * stale total is a wrong one, with no wait: the last block finds every word
 * flagged already. (The harness gives each size and seed a fresh state, so
 * it never sums other numbers with the same one; the state check is what
 * stands in for that.)
 *
 * The store of zero is gone from collect; nothing else changed.
 *
 * Changed functions: collect.
 */
#include <cuda/atomic>

#include "../common/harness.h"
#include "../common/parts.h"    // exit_cleanly: a --grid the state has no room for

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round
#define MAX_BLOCKS 65536    // flag words in the state

#include "../lab/small-sizes/flag_sum.cuh"   // thread_sum, block_total, PER_BLOCK
#include "../steps/one_block.cuh"  // one block for a small n

typedef unsigned long long word_t;
typedef cuda::atomic_ref<word_t, cuda::thread_scope_device> word_ref;
typedef cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter_ref;

// ---- kernels ----------------------------------------------------------------
__device__ word_t flagged(elem_t total) { return (word_t)1 << 32 | bits_of(total); }
__device__ elem_t total_of(word_t w) { return elem_of((unsigned)w); }

// words[0 .. count) summed, each waited for until its flag is there, and
// left as it is: the mistake.
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
    }
    return v;
}

// As lab/small-sizes/flag_sum.cu.
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

// ---- launcher ---------------------------------------------------------------
typedef void (*kernel_t)(const elem_t *, size_t, word_t *, unsigned *, elem_t *);
static const kernel_t kernels[] = PER_BLOCK(flag_sum_kernel);

static int flag_block_size(const launch_t *L)
{
    for (int b = 256; b <= 1024; b *= 2)
        if (L->n <= (size_t)b * 4 * LOADS_IN_FLIGHT) return b;
    return L->n <= ((size_t)1 << 20) ? 256 : block_size<LOADS_IN_FLIGHT>(L);
}

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
    .name = "flag_no_clear",
    .technique = "flag words never put back to zero (a mistake on purpose)",
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
