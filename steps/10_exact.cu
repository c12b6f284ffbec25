/* 10_exact.cu: the exact sum, rounded once: the same bits for any order, grid and GPU.
 *
 *     make step10 && ./step10
 *     make build/step10_no_fp64 && build/step10_no_fp64     (no FP64 on the way)
 *     make exact-acc-test                                    (the arithmetic, on the CPU)
 *
 * Changed since 08: what is added. Step 08 made float sums repeatable by
 * fixing their order; shuffle the input, or split it another way over GPUs,
 * and the bits change, and they were never the sum itself, only a sum near
 * it. Here every element is added exactly. A float is a whole number of
 * units of 2^-149 (steps/exact_acc.cuh shows how to read it from the bits),
 * so the sum of any floats is an integer, below 2^317 units for n <= 2^40:
 * ten 32-bit digits hold it. Integers add associatively, so nothing about
 * the order can matter; at the very end the integer is rounded to the nearest
 * float, once. The result is the correctly rounded sum: the same bits on any
 * GPU, for any --block, --grid, and order of the input, and for infinities,
 * NaNs and signed zeros what IEEE arithmetic gives.
 *
 * Speed is the hard part: at full bandwidth an H100 has about 35 instruction
 * slots per element. Each thread takes its elements 32 at a time, as 8 vector
 * loads in flight:
 *   - fast path: if the 32 exponents lie within 24 of each other, their sum
 *     fits 53 bits in the group's smallest unit, so a double holds it exactly
 *     (or, built with -DEXACT_NO_FP64, a 64-bit integer); one add into the
 *     digits per group. About 8 instructions an element; the default input
 *     always goes this way;
 *   - slow path: otherwise each element goes to its digit alone (about 25
 *     an element, the failed fast try included), and NaNs and infinities are
 *     counted instead.
 * A thread's ten digits live in shared memory, 32 apart, interleaved with
 * its warp's: any thread can index any digit with no bank conflict, where an
 * array in registers would go to local memory.
 *
 * Blocks meet as in step 06: each adds its 14 words (the digits, carried
 * into [-2^31, 2^31) so that most are zero and not sent, and the counts) into
 * the state with 64-bit atomics, fences and takes a ticket; the last block
 * rounds. A grid of one block rounds its own words. On several GPUs, a rank
 * would stop at the grid's words and all-reduce them: integers again, so in
 * any order. The exact build (uint32) runs the same code and keeps digit 0.
 *
 * Changed functions: grid_size.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/harness.h"
#include "exact_acc.cuh"  // the accumulator: digits, groups, combine, rounding

namespace cg = cooperative_groups;

// ---- kernels ----------------------------------------------------------------
// [begin block_words]
// The block's 14 words from its threads' digits and its tiles' flags: word
// i < 10 sums digit i over the threads (at most 1024 of under 2^53 each: see
// acc_must_carry), words 10 to 13 are 1 if some thread saw a NaN, +inf, -inf,
// a term other than -0. Tile w sums digits w, w + tiles, ...; tile 0 also ORs
// the tiles' flags. Valid after the next barrier, in every thread.
__device__ void block_words(cg::thread_block block, const long long *digits, const unsigned *tile_flags,
                            long long *words)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned tiles = tile.meta_group_size();
    for (int i = tile.meta_group_rank(); i < DIGITS; i += tiles) {
        long long s = 0;
        for (unsigned w = 0; w < tiles; w++)
            s += digits[(w * DIGITS + i) * 32 + tile.thread_rank()];
        s = cg::reduce(tile, s, cg::plus<long long>());
        if (tile.thread_rank() == 0)
            words[i] = s;
    }
    if (tile.meta_group_rank() == 0) {
        unsigned seen = tile.thread_rank() < tiles ? tile_flags[tile.thread_rank()] : 0;
        seen = cg::reduce(tile, seen, cg::bit_or<unsigned>());
        if (tile.thread_rank() < 4)
            words[DIGITS + tile.thread_rank()] = seen >> tile.thread_rank() & 1;
    }
}
// [end block_words]

// [begin kernel]
// Every thread adds its share to its digits; the block sums its threads'
// words; then the block's words join the grid's (acc_combine), and the last
// block, or the only one, rounds them into *out. Lane l of tile w keeps its
// digit i at digits[(w * DIGITS + i) * 32 + l]: 32 apart, a constant, so
// every digit's address is one register plus an offset, and a warp's
// accesses fall in 32 different banks whichever digits its lanes pick.
// Thread 0 takes the block's words into registers (w): everything after
// that, rounding included, indexes them only by constants.
__global__ void __launch_bounds__(1024) reduce_kernel(const elem_t *in, size_t n, acc_state_t *state,
                                                      elem_t *out)
{
    extern __shared__ long long digits[];          // DIGITS per thread: see digits_bytes
    __shared__ long long words[WORDS];
    __shared__ unsigned tile_flags[32];            // each tile's flags, ORed
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    long long *mine = digits + tile.meta_group_rank() * DIGITS * 32 + tile.thread_rank();
    for (int i = 0; i < DIGITS; i++)
        mine[i * 32] = 0;
    size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x, threads = (size_t)gridDim.x * blockDim.x;
    unsigned flags = thread_accumulate(in, n, rank, threads, mine, 32);
    if (acc_must_carry(n, threads))                // never at the default launch shapes
        acc_carry(mine, 32);
    flags = cg::reduce(tile, flags, cg::bit_or<unsigned>());
    if (tile.thread_rank() == 0)
        tile_flags[tile.meta_group_rank()] = flags;
    block.sync();                                  // every thread's digits and flags are in
    block_words(block, digits, tile_flags, words);
    block.sync();
    if (block.thread_rank() == 0) {
        long long w[WORDS];
        for (int i = 0; i < WORDS; i++)
            w[i] = words[i];
        acc_carry(w, 1);                           // each digit in [-2^31, 2^31)
        if (gridDim.x == 1 || acc_combine(state, w, gridDim.x))
            *out = acc_result(w);
    }
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// A thread's digits take 80 bytes of shared memory: 80 KB for a block of
// 1024, more than the 48 KB a kernel gets without asking for it (and more
// than some GPUs have: there grid_size says that no block fits).
static size_t digits_bytes(int block)
{
    return (size_t)block * DIGITS * sizeof(long long);
}

// Threads per block from n: 512 once every multiprocessor gets a block of
// them with a group for each thread; below that 256, so that a small input
// spreads over twice the multiprocessors (2^20 on 132: 128 blocks).
static int block_size(const launch_t *L)
{
    size_t round = 4 * GROUP_VECTORS;                     // elements per thread per round
    return L->n >= 512 * round * L->sm_count ? 512 : 256;
}

// As many blocks as fit on the GPU at once, and none with nothing to do.
// Any other grid gives the same bits (try --grid).
static size_t grid_size(const launch_t *L)
{
    size_t smem = digits_bytes(L->block);
    int most = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, L->device));
    if (smem + sizeof(long long) * WORDS > (size_t)most)
        return 0;                                         // the harness: no block fits, try a smaller --block
    CUDA_CHECK(cudaFuncSetAttribute(reduce_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, smem));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * 4 * GROUP_VECTORS);
    return min_size(resident, needed);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    acc_state_t *state = (acc_state_t *)L->state;      // zero between launches
    reduce_kernel<<<L->grid, L->block, digits_bytes(L->block), stream>>>(d_in, L->n, state, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "10_exact",
    .technique = "the exact sum, rounded once: any order, any grid, any GPU",
    .deterministic = 1,
    .combine = COMBINE_EXACT,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .block_size = block_size,
    .grid_size = grid_size,
    .state_bytes = sizeof(acc_state_t),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
