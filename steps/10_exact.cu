/* 10_exact.cu: the exact sum, rounded once: the same bits for any order, any grid, any GPU.
 *
 *     make step10 && ./step10
 *     EXACT_FP64=0 ./step10        the groups without FP64 (chosen by itself on GPUs slow at it)
 *
 * Changed since 08: what is added. A fixed order (08) gives repeatable bits
 * near the sum; here every element is added exactly. A float is a whole
 * number of units of 2^-149, so a sum of floats is an integer: ten 32-bit
 * digits for n <= 2^40 (steps/exact_acc.cuh). Integers add in any order;
 * the integer is rounded once at the end: the correctly rounded sum, IEEE's
 * NaNs, infinities and signed zeros included. 32 elements whose exponents
 * lie within 24 of each other sum exactly in a double (or, on a GPU slow at
 * FP64, a 64-bit integer): one add into the digits; other groups go one by
 * one. The blocks meet without step 06's ticket: a lane of warp 0 per word,
 * each word added to the grid's by one 64-bit atomic that also counts the
 * blocks; the block that completes word 0's count is the last, and rounds.
 * No fence. Several GPUs: answers/10_multi_gpu.cu. The exact build (uint32)
 * keeps digit 0.
 *
 * Base: steps/08_fixed_order.cu
 * Changed functions: grid_size, reduce, reduce_kernel.
 */
#include <stdlib.h>
#include <string.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include "../common/harness.h"
#include "exact_acc.cuh"        // the accumulator: digits, groups, rounding (CPU and GPU)

namespace cg = cooperative_groups;

// ---- a block's words, and the meeting ------------------------------------------
// The block's 14 words from its threads' digits and its tiles' flags: word
// i < 10 sums digit i over the threads, words 10 to 13 are 1 if some thread
// saw a NaN, +inf, -inf, a term other than -0. Tile w sums digits w,
// w + tiles, ...; the last tile also ORs the flags. Valid after the next barrier.
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
    if (tile.meta_group_rank() == tiles - 1) {
        unsigned seen = tile.thread_rank() < tiles ? tile_flags[tile.thread_rank()] : 0;
        seen = cg::reduce(tile, seen, cg::bit_or<unsigned>());
        if (tile.thread_rank() < 4)
            words[DIGITS + tile.thread_rank()] = seen >> tile.thread_rank() & 1;
    }
}

// From here on warp 0 alone, lane i holding word i (the other lanes 0): the
// adds, the reads and the rounding are one instruction for 14 words.
// One round of carries: each digit keeps its low 32 bits, read as signed,
// and passes the rest up a lane. Two rounds leave every digit within
// 2^31 + 1; the counts (lanes 10 to 13) stay as they are.
__device__ long long carry_warp(cg::thread_block_tile<32> warp, long long d)
{
    for (int round = 0; round < 2; round++) {
        long long digit = (int)(unsigned)d, up = warp.shfl_up((d - digit) >> 32, 1);
        unsigned i = warp.thread_rank();
        d = i >= DIGITS ? d : i == 0 ? digit : digit + up;
    }
    return d;
}

// The grid's words (the step's state, zeroed once by the harness), a cache
// line each: from bit 48 up, how many blocks have added; below, the sum of
// their words (each within 2^31 + 1, so 65535 blocks stay under 2^47). A
// block adds its word plus 2^48: one atomic does both and returns the word as
// it was. The block that completes word 0's count is the last: it reads each
// word until its count is full too, takes the sum, leaves 0 for the next
// launch, and returns true with the grid's word in *w.
#define COUNT_SHIFT 48
#define MAX_BLOCKS 65535                           // counts fit the 16 bits above the sum
typedef struct { unsigned long long words[WORDS][16]; } acc_state_t;

__device__ bool combine_warp(cg::thread_block_tile<32> warp, acc_state_t *state, long long *w, unsigned blocks)
{
    unsigned i = warp.thread_rank();
    unsigned long long one = 1ull << COUNT_SHIFT, x = 0, add = (unsigned long long)*w + one;
    if (i < WORDS)
        x = atomicAdd(&state->words[i][0], add) + add;
    auto count = [](unsigned long long v) { return (unsigned)((v + (1ull << (COUNT_SHIFT - 1))) >> COUNT_SHIFT); };
    if (!warp.shfl(count(x) == blocks, 0))
        return false;                              // word 0 still waits for other blocks
    if (i < WORDS) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(state->words[i][0]);
        while (count(x) != blocks)
            x = word.load(cuda::memory_order_relaxed);
        word.store(0ull, cuda::memory_order_relaxed);
    }
    *w = i < WORDS ? (long long)(x - blocks * one) : 0;
    return true;
}

// acc_result with a lane per carried digit: the digits that are not zero are
// one ballot (__ballot_sync: bit l set where lane l's condition holds), the
// top one (__clz counts the zero bits above it), the one under it and the
// top one under that three shuffles; every lane gets the bits.
__device__ unsigned round_warp(cg::thread_block_tile<32> warp, long long w)
{
    unsigned i = warp.thread_rank();
    unsigned counts = warp.ballot(i >= DIGITS && w != 0) >> DIGITS;   // bit j: count DIGITS + j
    unsigned special = special_bits(counts & 1, counts & 2, counts & 4);
    if (special) return special;
    unsigned nz = warp.ballot(i < DIGITS && w != 0);
    if (nz == 0) return counts & 8 ? 0 : NEG_ZERO_BITS;
    int k = 31 - __clz(nz);
    unsigned under = k >= 2 ? nz & ((1u << (k - 1)) - 1) : 0;
    long long top = warp.shfl(w, k), next = warp.shfl(w, k > 0 ? k - 1 : 0);
    long long low = warp.shfl(w, under ? 31 - __clz(under) : 0);
    return round_top(k, top, k > 0 ? next : 0, under ? low : 0);
}

// ---- the kernel -------------------------------------------------------------
// Every thread adds its share to its digits; the block sums its threads'
// (block_words); warp 0 carries them, adds them to the grid's
// (combine_warp), and in the last block, or the only one, rounds them into
// *out. Lane l of tile w keeps digit i at digits[(w * DIGITS + i) * 32 + l]:
// one register plus a constant offset, and 32 banks for a warp's lanes.
template <bool FP64>
__global__ void __launch_bounds__(1024) reduce_kernel(const elem_t *in, size_t n, acc_state_t *state, elem_t *out)
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
    unsigned flags = thread_accumulate<FP64>(in, n, rank, threads, mine, 32);
    if (acc_must_carry(n, threads))
        acc_carry(mine, 32);
    flags = cg::reduce(tile, flags, cg::bit_or<unsigned>());
    if (tile.thread_rank() == 0)
        tile_flags[tile.meta_group_rank()] = flags;
    block.sync();                                  // every thread's digits and flags are in
    block_words(block, digits, tile_flags, words);
    block.sync();
    if (tile.meta_group_rank() != 0)
        return;                                    // warp 0 takes it from here, lane i word i
    unsigned i = tile.thread_rank();
    long long w = carry_warp(tile, i < WORDS ? words[i] : 0);
    if (gridDim.x > 1) {
        if (!combine_warp(tile, state, &w, gridDim.x))
            return;                                // not the last block
        w = carry_warp(tile, w);                   // the grid's digits, within 2^31 + 1 again
    }
#ifdef REDUCE_EXACT
    if (i == 0)
        *out = (elem_t)w;                          // the sum modulo 2^32: digit 0's low bits
#else
    unsigned bits = round_warp(tile, w);
    if (i == 0)
        *out = float_of(bits);
#endif
}

// ---- launcher ---------------------------------------------------------------
// The kernel: groups in FP64 unless this GPU runs it at under a quarter of
// FP32's rate (most GeForce cards: 1/32 or 1/64), or EXACT_FP64=0 or 1 says.
typedef void (*kernel_t)(const elem_t *, size_t, acc_state_t *, elem_t *);
static kernel_t pick_kernel(int device)
{
    const char *e = getenv("EXACT_FP64");
    int ratio = 0;
    if (e && *e && strcmp(e, "0") && strcmp(e, "1")) device_fail("EXACT_FP64 must be 0 or 1 (or unset: the GPU decides)");
    if (!(e && *e)) CUDA_CHECK(cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, device));
    return (e && *e ? *e == '1' : ratio <= 4) ? reduce_kernel<true> : reduce_kernel<false>;
}

// 80 bytes of shared memory a thread: 80 KB for a block of 1024, more than
// the 48 KB a kernel gets unasked (cudaFuncSetAttribute, in grid_size, asks
// for more where the GPU has it).
static size_t digits_bytes(int block) { return (size_t)block * DIGITS * sizeof(long long); }

// Threads per block from n: 1024 once every multiprocessor has four rounds
// of groups for 1024 threads (fewer, larger blocks stream a little faster),
// where the GPU gives a block its 80 KB; 512 once it has one for 512; 256
// below, so that a small input spreads over more multiprocessors.
static int block_size(const launch_t *L)
{
    size_t round = 4 * GROUP_VECTORS;                     // elements per thread per round
    int most = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, L->device));
    if (L->n >= 4 * 1024 * round * L->sm_count && digits_bytes(1024) + WORDS * 8 <= (size_t)most)
        return 1024;
    return L->n >= 512 * round * L->sm_count ? 512 : 256;
}

// As few blocks as take the same number of rounds (a group for each thread)
// as every block that fits: no last, partial round with most multiprocessors
// waiting. Any other grid gives the same bits (try --grid).
static size_t grid_size(const launch_t *L)
{
    size_t smem = digits_bytes(L->block);
    int most = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, L->device));
    if (smem + sizeof(long long) * WORDS > (size_t)most)
        return 0;                                         // the harness: no block fits, try a smaller --block
    kernel_t kernel = pick_kernel(L->device);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, L->block, smem));
    size_t resident = (size_t)per_sm * L->sm_count;
    if (resident == 0)
        return 0;
    size_t groups = div_up(L->n, 4 * GROUP_VECTORS), rounds = div_up(groups, resident * L->block);
    return div_up(groups, rounds * L->block);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    acc_state_t *state = (acc_state_t *)L->state;         // zero between launches
    pick_kernel(L->device)<<<L->grid, L->block, digits_bytes(L->block), stream>>>(d_in, L->n, state, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "10_exact",
    .technique = "the exact sum, rounded once: any order, any grid, any GPU",
    .deterministic = 1,
    .combine = COMBINE_EXACT,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .block_size = block_size,
    .grid_size = grid_size,
    .max_grid = MAX_BLOCKS,
    .state_bytes = sizeof(acc_state_t),
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
