/* 10_round_ranks.cu: step 10 with each rank's sum rounded to a float, and
 * the floats added by NCCL (the answer to exercise 2 of the step 10 chapter).
 *
 *     make answers && build/answers/10_round_ranks --gpus 2 --check-only --input cancel --n 10^6+3
 *     build/tests/10_round_ranks_virtual --virtual-ranks 2 ...     two ranks on one GPU (the tests)
 *
 * Each rank sums its shard exactly, as step 10 does, and rounds it once: the
 * correctly rounded sum of the shard. ncclAllReduce then adds the ranks'
 * floats, and every rank has the total. One GPU: the shard is the array,
 * there is no NCCL call, and the result is step 10's. Two GPUs: the result
 * is round(round(s0) + round(s1)), three roundings where step 10 has one,
 * and the harness (which wants step 10's bits: COMBINE_EXACT) says WRONG
 * wherever they do not land on the correctly rounded sum. How far off:
 *   - cancel (pairs B, -B + ulp(B) half the array apart): on two GPUs every
 *     pair is split, each shard's sum is large and keeps only its top 24
 *     bits, and the two cancel. What is left is mostly their rounding
 *     errors: on the CPU, at n = 10^6+3 and seed 1, 41472 instead of
 *     41675.05 (the exact sum rounded).
 *   - ties (the exact sum halfway between two floats): the shards' roundings
 *     move it off the tie, or onto another.
 *   - huge: each shard's sum overflows to an infinity, one +inf and one
 *     -inf, and their sum is NaN; the exact sum is a finite float.
 *   - uniform and wide: often the right bits, sometimes one ulp off, and
 *     with three GPUs other bits than with two (the shards, so the
 *     roundings, are others).
 * And with three GPUs or more, NCCL adds the floats in an order of its own
 * (a ring or a tree, by size and topology): another rounding order again.
 * Step 10 moves its 14 words instead, and integers add the same way in any
 * order, so its bits depend on nothing. The exact build (uint32) is right
 * on any number of GPUs: its sums are modulo 2^32, associative too.
 *
 * Changed functions: reduce_kernel.
 */
#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include "../common/multi/multi.h"
#include "../steps/exact_acc.cuh"     // step 10's accumulator: digits, groups, rounding
#include "nccl_comms.cuh"             // step 09's communicators: connect, disconnect, comm_error

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

// ---- kernels ----------------------------------------------------------------
// Step 10's kernel, with answers/10_multi_gpu.cu's ending (rank_words): here
// it is always NULL, and every rank rounds its own shard's sum.
template <bool FP64>
__global__ void __launch_bounds__(1024) reduce_kernel(const elem_t *in, size_t n, acc_state_t *state,
                                                      long long *rank_words, elem_t *out)
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
    if (rank_words) {
        if (i < WORDS)
            rank_words[i] = w;
        return;
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

// Several ranks: the ranks' floats, added by NCCL, as the result.
__global__ void total_kernel(const elem_t *sums, elem_t *out)
{
    *out = sums[0];
}

// An empty shard's sum: -0, which leaves any sum as it is, -0 too.
__global__ void nothing_kernel(elem_t *out)
{
    *out = (elem_t)(-0.0f);
}

// ---- NCCL --------------------------------------------------------------------
// Phase 2, several ranks: sums[1] on every rank = the sum of every rank's
// sums[0], each the rank's sum rounded to a float (in the exact build, a
// uint32: NCCL adds those modulo 2^32). Out of place, so that --combine-only
// can repeat it. One thread driving several GPUs groups its calls.
static void all_reduce(const team_t *t, const rank_t *R, const cudaStream_t *stream)
{
    if (t->ranks == 1)
        return;                               // one rank: its kernel has rounded
#ifdef REDUCE_EXACT
    const ncclDataType_t type = ncclUint32;
#else
    const ncclDataType_t type = ncclFloat32;
#endif
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < t->local; i++) {
        elem_t *sums = (elem_t *)R[i].sums;
        NCCL_CHECK(ncclAllReduce(sums, sums + 1, 1, type, ncclSum, comms[i], stream[i]));
    }
    NCCL_CHECK(ncclGroupEnd());
}

// ---- launcher ---------------------------------------------------------------
// The kernel: groups in FP64 unless this GPU runs it at under a quarter of
// FP32's rate (most GeForce cards: 1/32 or 1/64), or EXACT_FP64=0 or 1 says.
typedef void (*kernel_t)(const elem_t *, size_t, acc_state_t *, long long *, elem_t *);
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

// The rank's sum, rounded, then the sum of every rank's.
static size_t sums_size(const rank_t *R)
{
    return R->ranks > 1 ? 2 * sizeof(elem_t) : 0;
}

// Phase 1: the shard's sum, rounded: on one rank the result itself, on
// several the rank's term for NCCL.
static void local(const elem_t *d_shard, const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    elem_t *mine = R->ranks > 1 ? (elem_t *)R->sums : d_out;
    if (R->L.n == 0) {                                    // an empty shard
        nothing_kernel<<<1, 1, 0, stream>>>(mine);
        CUDA_CHECK(cudaGetLastError());
        return;
    }
    acc_state_t *state = (acc_state_t *)R->L.state;      // zero between launches
    size_t smem = digits_bytes(R->L.block);
    pick_kernel(R->L.device)<<<R->L.grid, R->L.block, smem, stream>>>(d_shard, R->L.n, state, NULL, mine);
    CUDA_CHECK(cudaGetLastError());
}

// Phase 3, on several ranks: the total, the same on every rank.
static void total(const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    if (R->ranks == 1)
        return;
    total_kernel<<<1, 1, 0, stream>>>((const elem_t *)R->sums + 1, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "10_round_ranks",
    .technique = "each rank's exact sum rounded, the floats added by NCCL",
    .combine = COMBINE_EXACT,
    .chunk = 1,
    .default_block = 256,
    .block_size = block_size,
    .state_bytes = sizeof(acc_state_t),
    .grid_size = grid_size,
    .max_grid = MAX_BLOCKS,
    .sums_size = sums_size,
    .connect = connect,
    .disconnect = disconnect,
    .comm_error = comm_error,
    .local = local,
    .collective = all_reduce,
    .total = total,
};

int main(int argc, char **argv) { return run_multi(argc, argv, &step); }
