/* 10_exact.cu: the exact sum, rounded once: the same bits for any order, grid and GPUs.
 *
 *     make step10 && ./step10           every GPU of this machine, one process
 *     mpirun -np 2 ./step10             one process a GPU
 *     make build/step10_no_fp64 exact-acc-test     no FP64; the arithmetic on the CPU
 *
 * Changed since 08 and 09: what is added. Fixed orders (08, and 09's whole
 * chunks) give repeatable bits near the sum; here every element is added
 * exactly. A float is a whole number of units of 2^-149 (exact_acc.cuh), so a
 * sum of floats is an integer: ten 32-bit digits for n <= 2^40. Integers add
 * in any order; the integer is rounded once at the end: the correctly rounded
 * sum, IEEE's NaNs, infinities and signed zeros included. 32 elements whose
 * exponents lie within 24 sum exactly in a double (or a 64-bit integer,
 * -DEXACT_NO_FP64): one add into the digits; other groups go one by one.
 * Blocks meet without step 06's ticket: one warp a block, a lane per word,
 * 14 words (the digits carried to within 2^31 + 1, four flags), each added
 * by a 64-bit atomic that also counts the block; the block that completes
 * word 0's count is the last. No fence. Shards fall anywhere (chunk 1).
 * One GPU: the last block's warp rounds; nothing else runs. More:
 * it writes the rank's words, NCCL's all-reduce adds them as 64-bit integers
 * (any ring or tree NCCL picks, the same sum, so the same bits for any number
 * of GPUs) and one thread rounds. The NCCL part is step 09's, repeated. The
 * exact build (uint32) keeps digit 0.
 *
 * Changed functions: grid_size, sums_size, local, total, total_kernel.
 */
#include <nccl.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/multi/multi.h"
#include "exact_acc.cuh"        // the accumulator: digits, groups, combine, rounding
#include "nccl_comms.cuh"       // step 09's communicators: connect, disconnect, comm_error

namespace cg = cooperative_groups;

// ---- kernels ----------------------------------------------------------------
// [begin kernel]
// Every thread adds its share to its digits; the block sums its threads'
// (block_words); warp 0 carries them, adds them to the grid's
// (combine_warp), and in the last block, or the only one, rounds them into
// *out (round_warp), or leaves them in rank_words for the other ranks. Lane
// l of tile w keeps digit i at digits[(w * DIGITS + i) * 32 + l]: one
// register plus a constant offset, and 32 banks for a warp's lanes whatever
// digits they pick.
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
    unsigned flags = thread_accumulate(in, n, rank, threads, mine, 32);
    if (acc_must_carry(n, threads))                // never at the default launch shapes
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
    long long w = carry_warp(tile, i < WORDS ? words[i] : 0);   // each digit within 2^31 + 1
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
// [end kernel]

// ---- NCCL --------------------------------------------------------------------
// The communicators are step 09's (nccl_comms.cuh): connect, disconnect,
// comm_error. New here is what goes through them:
// [begin all_reduce]
// Phase 2, several ranks: sums[WORDS..2 WORDS) on every rank = the sum of
// every rank's sums[0..WORDS), as 64-bit integers. Each word is a digit
// within 2^31 + 1 (the last block carries them twice) or a count of blocks
// (under 2^31), so 1024 ranks' sums stay under 2^42: exact, in any order. Out of place, so that --combine-only can repeat
// it. One thread driving several GPUs groups its calls, as in step 09.
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
// [end all_reduce]
// [end nccl]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// 80 bytes of shared memory a thread: 80 KB for a block of 1024, more than
// the 48 KB a kernel gets unasked (and than some GPUs have: see grid_size).
static size_t digits_bytes(int block)
{
    return (size_t)block * DIGITS * sizeof(long long);
}

// Threads per block from n: 1024 once every multiprocessor has four
// groups for each of 1024 threads (fewer, larger blocks stream a little
// faster from there: measured, results/NOTES.md), where the GPU gives a
// block its 80 KB;
// 512 once it has one group for each of 512; 256 below, so that a small
// input spreads over twice the multiprocessors (2^20 on 132: 128 blocks).
static int block_size(const launch_t *L)
{
    size_t round = 4 * GROUP_VECTORS;                     // elements per thread per round
    int most = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, L->device));
    if (L->n >= 4 * 1024 * round * L->sm_count && digits_bytes(1024) + WORDS * 8 <= (size_t)most)
        return 1024;
    return L->n >= 512 * round * L->sm_count ? 512 : 256;
}

// As few blocks as take the same number of rounds as every block that fits
// (a round: a group for each thread), so that every thread adds the same
// whole number of groups, or one fewer: no last, partial round with most
// multiprocessors waiting (results/NOTES.md, "whole rounds"). Any other
// grid gives the same bits (try --grid).
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
    reduce_kernel<<<R->L.grid, R->L.block, digits_bytes(R->L.block), stream>>>(d_shard, R->L.n, state, words,
                                                                                d_out);
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
// [end launcher]

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "10_exact",
    .technique = "the exact sum, rounded once: any order, any grid, any GPUs",
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
