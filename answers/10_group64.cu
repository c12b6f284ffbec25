/* 10_group64.cu: step 10 with groups of 64 elements instead of 32 (the
 * answer to exercise 1 of the step 10 chapter).
 *
 *     make answers && build/answers/10_group64 --gpus 1 --n 2^20,2^24,2^28
 *     build/answers/10_group64_span24 --gpus 1 --check-only --input-file FILE
 *
 * The bound. A group's double holds its exact sum while every partial sum is
 * a whole number of the group's units below 2^53 in size. A term is under
 * 2^24 * 2^s units when the group's exponents lie within s of each other,
 * so 32 terms stay under 2^5 * 2^24 * 2^s, which is 2^53 for step 10's
 * s = 24. Twice the terms need one bit more: 2^6 * 2^24 * 2^s <= 2^53 only
 * for s <= 23. So group_kind64 lets a group of 64 take the fast path only
 * while its exponents lie within 23 of each other (GROUP64_SPAN). Built with
 * -DGROUP64_SPAN=24 (build/answers/10_group64_span24) it keeps step 10's 24
 * and is wrong: 36 copies of B = 2 (2^24 - 1) (exponent field 151), then
 * t = 1 + 2^-23 (field 127, 24 below), then 24 copies of -B: after the B's
 * the double holds 36 B, 2^53.2 units of the group (t's unit, 2^-23), and
 * adding t's 2^23 + 1 units needs the 2^0 bit, which a double there no
 * longer has: it rounds to even and t's last unit is lost, though the
 * group's true sum, 12 B + t, is well inside 2^53 units. tests/answers.sh
 * builds such an array and runs both builds on it.
 *
 * The digits' bound. A fast group still adds under 2^32 to each of three
 * digits, and a slow one (now 64 terms, under 2^61 in all) is still carried
 * at once, so a digit between carries stays under 2^31 + 2^61 + 2^61. A
 * thread adds at most ceil(n / (64 threads)) groups: half as many as in
 * step 10, so no block sum can overflow while n <= 2^26 threads, one
 * doubling further than step 10's 2^25 (acc_must_carry64).
 *
 * The time. Per element the fast path does what step 10's does: a
 * conversion and an add in FP64, the exponents' largest and smallest. Per
 * group, half as many digit updates and tests, and a slow group twice as
 * long, read again from cache. Loading all 16 vectors at once, as step 10
 * loads its 8, would take 64 floats of registers a thread, all that
 * __launch_bounds__(1024) leaves: nvcc -Xptxas -v reports spills to local
 * memory. So a group comes in two rounds of 8 loads (ONE_AT_A_TIME): as
 * many bytes in flight as step 10, and about its registers. On the default
 * input every group takes the fast path and the sum is bound by memory from
 * 2^24 up: expect step 10's time there, and the difference, if any, in the
 * tail and at small n, where a thread has fewer groups to hide them behind.
 * Not measured here; time both on your GPU:
 *     ./step10 --gpus 1 --n 2^20,2^24,2^28
 *     build/answers/10_group64 --gpus 1 --n 2^20,2^24,2^28
 *
 * Changed functions: reduce_kernel, block_size, grid_size.
 */
#include <nccl.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../common/multi/multi.h"
#include "../steps/exact_acc.cuh"  // step 10's accumulator: digits, combine, rounding
#include "../steps/nccl_comms.cuh"    // step 09's communicators: connect, disconnect, comm_error

namespace cg = cooperative_groups;

// ---- a group of 64 ----------------------------------------------------------------
// A group is now 2 GROUP_VECTORS vectors: 64 elements (step 10: 32).
#ifndef GROUP64_SPAN
#define GROUP64_SPAN 23           // the widest spread of exponents the fast path takes
#endif

// The rounds of a group one after another: as many loads in flight as in
// step 10, and no more registers (16 loads at once would be 64 floats a
// thread, all that __launch_bounds__(1024) leaves: nvcc would spill).
#ifdef __CUDA_ARCH__
#define ONE_AT_A_TIME _Pragma("unroll 1")
#else
#define ONE_AT_A_TIME
#endif

// Half h of the group that starts at vector i: vectors i + (8 h + k) threads.
HOST_DEVICE void load_half(const elem_t *in, size_t n, size_t i, size_t threads, int h, bool whole,
                           elem4_t *v)
{
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++) {
        size_t j = i + (size_t)(GROUP_VECTORS * h + k) * threads;
        v[k] = whole ? ((const elem4_t *)in)[j] : load_vector(in, n, j);
    }
}

#ifndef REDUCE_EXACT
// group_kind with the span of a group of 64: within GROUP64_SPAN, no subnormal.
HOST_DEVICE int group_kind64(unsigned hi, unsigned lo)
{
    if (hi == 0 || hi >= POS_INF_BITS) return GROUP_SPECIAL;   // all zero, or an inf or NaN
    unsigned e_hi = hi >> 23, e_lo = (lo + 2) >> 24;
    return e_lo > 0 && e_hi - e_lo <= GROUP64_SPAN ? GROUP_EXACT : GROUP_WIDE;
}

// Adds the group that starts at vector i to a thread's digits: step 10's
// group_sum and acc_add_group for 64 elements. Each half's elements go into
// the group's double, largest and smallest as they come; a group that fails
// the test is read again (it is in cache) and added element by element, as
// step 10's slow paths add theirs, then carried.
HOST_DEVICE void acc_add_group64(long long *d, int stride, const elem_t *in, size_t n, size_t i,
                                 size_t threads, bool whole, unsigned *flags)
{
    unsigned hi = 0, lo = 0xffffffff;          // of 2 bits(x), and of 2 bits(x) - 2
    double sum = 0;
    ONE_AT_A_TIME
    for (int h = 0; h < 2; h++) {
        elem4_t v[GROUP_VECTORS];
        load_half(in, n, i, threads, h, whole, v);
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++) {
            UNROLL
            for (int j = 4 * k; j < 4 * k + 4; j++) {
                unsigned u = bits_of(element(v, j)), a = 2 * u, b = 2 * u - 2;
                hi = a > hi ? a : hi;
                lo = b < lo ? b : lo;
            }
            sum += ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
        }
    }
    int kind = group_kind64(hi >> 1, lo);
    if (kind == GROUP_EXACT) {
        int p = (int)((lo + 2) >> 24) - 1;                // E - 1 of the smallest |x|
        acc_add(d, stride, (long long)(sum * pow2(149 - p)), p);   // exact: a power of two
        *flags |= SAW_NOT_NEG_ZERO;                       // a term that is not zero
        return;
    }
    ONE_AT_A_TIME
    for (int h = 0; h < 2; h++) {
        elem4_t v[GROUP_VECTORS];
        load_half(in, n, i, threads, h, whole, v);
        UNROLL
        for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
            unsigned u = bits_of(element(v, j));
            *flags |= special_flags(u);                   // an inf or NaN adds its flag only
            acc_add_float(d, stride, (u & POS_INF_BITS) == POS_INF_BITS ? 0 : u);
        }
    }
    acc_carry(d, stride);
}
#else
// The exact build: 64 integers sum to under 2^38, added at unit 1 (p = 0).
HOST_DEVICE void acc_add_group64(long long *d, int stride, const elem_t *in, size_t n, size_t i,
                                 size_t threads, bool whole, unsigned *flags)
{
    unsigned long long s = 0;
    ONE_AT_A_TIME
    for (int h = 0; h < 2; h++) {
        elem4_t v[GROUP_VECTORS];
        load_half(in, n, i, threads, h, whole, v);
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            s += ((unsigned long long)v[k].x + v[k].y) + ((unsigned long long)v[k].z + v[k].w);
    }
    acc_add(d, stride, (long long)s, 0);
    (void)flags;
}
#endif

// acc_must_carry for groups of 64: a thread adds at most ceil(n / (64 threads))
// groups, which is <= 2^20 while n <= 2^26 threads.
HOST_DEVICE bool acc_must_carry64(size_t n, size_t threads)
{
    return n > (threads << 26);
}

// thread_accumulate over groups of 64: the group of thread `rank` that starts
// at vector i holds vectors i, i + threads, ..., i + 15 threads, for
// i = rank, rank + 16 threads, ...
HOST_DEVICE unsigned thread_accumulate64(const elem_t *in, size_t n, size_t rank, size_t threads,
                                         long long *d, int stride)
{
    unsigned flags = 0;
    for (size_t i = rank; 4 * i < n; i += 2 * GROUP_VECTORS * threads) {
        bool whole = 4 * (i + (2 * GROUP_VECTORS - 1) * threads) + 4 <= n;   // 16 whole vectors
        acc_add_group64(d, stride, in, n, i, threads, whole, &flags);
    }
    return flags;
}

// ---- kernels ----------------------------------------------------------------
// Every thread adds its share to its digits; the block sums its threads'
// (block_words); warp 0 carries them, adds them to the grid's
// (combine_warp), and in the last block, or the only one, rounds them into
// *out (round_warp), or leaves them in rank_words for the other ranks, as
// step 10's kernel does. Lane l of tile w keeps digit i at
// digits[(w * DIGITS + i) * 32 + l]: one register plus a constant offset, and
// 32 banks for a warp's lanes whatever digits they pick.
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
    unsigned flags = thread_accumulate64(in, n, rank, threads, mine, 32);
    if (acc_must_carry64(n, threads))              // never at the default launch shapes
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

// ---- NCCL --------------------------------------------------------------------
// The communicators are step 09's (steps/nccl_comms.cuh), as in step 10.
// Phase 2, several ranks: sums[WORDS..2 WORDS) on every rank = the sum of
// every rank's sums[0..WORDS), as 64-bit integers. Each word is the grid's
// sum of a carried digit over its blocks (under 2^31 times their number) or
// a count of blocks, so 1024 ranks' sums stay far under 2^63 at any grid
// the step chooses: exact, in any order. Out of place, so that --combine-only can repeat
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

// ---- launcher ---------------------------------------------------------------
// 80 bytes of shared memory a thread: 80 KB for a block of 1024, more than
// the 48 KB a kernel gets unasked (and than some GPUs have: see grid_size).
static size_t digits_bytes(int block)
{
    return (size_t)block * DIGITS * sizeof(long long);
}

// Threads per block from n: 512 once every multiprocessor gets a block of
// them with a group for each thread; below that 256, so that a small input
// spreads over twice the multiprocessors (2^20 on 132: 128 blocks).
static int block_size(const launch_t *L)
{
    size_t round = 8 * GROUP_VECTORS;                     // elements per thread per round
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
    size_t needed = div_up(L->n, (size_t)L->block * 8 * GROUP_VECTORS);
    return min_size(resident, needed);
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

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "10_group64",
    .technique = "step 10 with groups of 64: exponents within 23 for the fast path",
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
