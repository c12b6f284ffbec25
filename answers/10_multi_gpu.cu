/* 10_multi_gpu.cu: step 10's exact sum on several GPUs, the same bits for any number of them.
 *
 *     make answers && build/answers/10_multi_gpu          every GPU of this machine, one process
 *     mpirun -np 2 build/answers/10_multi_gpu            one process a GPU
 *
 * Step 10 on step 09's harness: each rank (a GPU) sums its shard with step
 * 10's kernel, but the last block of a rank does not round: it writes the
 * rank's 14 words. NCCL's all-reduce adds every rank's words as 64-bit
 * integers, in whatever ring or tree order NCCL picks: integers add the same
 * in any order, so every rank gets the same words, and one thread rounds
 * them once. Each word is a digit within 2^31 + 1 (the last block carries
 * twice) or a count under 2^31, so 1024 ranks' sums stay under 2^42: exact.
 * The shards may fall anywhere (chunk 1): no order to keep. One rank: the
 * kernel rounds, as step 10's does, and nothing else runs. The
 * communicators are step 09's (answers/nccl_comms.cuh). Measured by
 * `make compare-multi` beside step 09.
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
// Step 10's kernel, except at the end: with several ranks (rank_words set),
// the last block leaves the rank's words there instead of rounding.
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

// Several ranks: the sum of every rank's words, rounded by one thread.
__global__ void total_kernel(const long long *sums, elem_t *out)
{
    long long w[WORDS];
    for (int i = 0; i < WORDS; i++)
        w[i] = sums[i];
    *out = acc_result(w);
}

// ---- NCCL --------------------------------------------------------------------
// Phase 2, several ranks: sums[WORDS..2 WORDS) on every rank = the sum of
// every rank's sums[0..WORDS), as 64-bit integers, in NCCL's order: any
// order gives the same. Out of place, so that --combine-only can repeat it.
// One thread driving several GPUs groups its calls, as in step 09.
static void all_reduce(const team_t *t, const rank_t *R, const cudaStream_t *stream)
{
    if (t->ranks == 1)
        return;                               // one rank: its kernel has rounded
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < t->local; i++) {
        long long *words = (long long *)R[i].sums;
        NCCL_CHECK(ncclAllReduce(words, words + WORDS, WORDS, ncclInt64, ncclSum, comms[i], stream[i]));
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

// The rank's 14 words, then the sum of every rank's.
static size_t sums_size(const rank_t *R)
{
    return R->ranks > 1 ? 2 * WORDS * sizeof(long long) : 0;
}

// Phase 1: the shard's sum; on one rank the result itself, in one launch.
static void local(const elem_t *d_shard, const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    long long *words = R->ranks > 1 ? (long long *)R->sums : NULL;
    if (R->L.n == 0) {                                    // an empty shard adds zero words
        CUDA_CHECK(cudaMemsetAsync(words, 0, WORDS * sizeof(long long), stream));
        return;
    }
    acc_state_t *state = (acc_state_t *)R->L.state;      // zero between launches
    size_t smem = digits_bytes(R->L.block);
    pick_kernel(R->L.device)<<<R->L.grid, R->L.block, smem, stream>>>(d_shard, R->L.n, state, words, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// Phase 3, on several ranks: the total, the same on every rank.
static void total(const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    if (R->ranks == 1)
        return;
    total_kernel<<<1, 1, 0, stream>>>((const long long *)R->sums + WORDS, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "10_multi_gpu",
    .technique = "the exact sum on several GPUs: the ranks' words all-reduced as integers",
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
