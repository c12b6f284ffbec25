/* 10_group64.cu: step 10 with groups of 64 elements instead of 32 (the
 * answer to exercise 1 of the step 10 chapter).
 *
 *     make answers && build/answers/10_group64 --n 2^20,2^24,2^28
 *     build/answers/10_group64_span24 --check-only --input-file FILE
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
 *     ./step10 --n 2^20,2^24,2^28
 *     build/answers/10_group64 --n 2^20,2^24,2^28
 * Groups go through FP64 here, on any GPU (step 10 chooses; EXACT_FP64=1
 * ./step10 compares like with like).
 *
 * Changed functions: reduce_kernel, block_size, grid_size, reduce.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include "../common/harness.h"
#include "../steps/exact_acc.cuh"  // step 10's accumulator: digits, groups, rounding

namespace cg = cooperative_groups;

// ---- a group of 64 ----------------------------------------------------------------
// A group is now 2 GROUP_VECTORS vectors: 64 elements (step 10: 32).
#ifndef GROUP64_SPAN
#define GROUP64_SPAN 23           // the widest spread of exponents the fast path takes
#endif

// The rounds of a group one after another: as many loads in flight as in
// step 10, and no more registers (16 loads at once would be 64 floats a
// thread, all that __launch_bounds__(1024) leaves: nvcc would spill).
#define ONE_AT_A_TIME _Pragma("unroll 1")

// Half h of the group that starts at vector i: vectors i + (8 h + k) threads.
HOST_DEVICE void load_half(const elem_t *in, size_t n, size_t i, size_t threads, int h, bool whole,
                           elem4_t *v)
{
#pragma unroll
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
    #pragma unroll
        for (int k = 0; k < GROUP_VECTORS; k++) {
        #pragma unroll
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
    #pragma unroll
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
    #pragma unroll
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


// ---- a block's words, and the meeting (step 10's) ------------------------------------------
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
// Step 10's kernel with groups of 64. Every thread adds its share to its digits; the block sums its threads'
// (block_words); warp 0 carries them, adds them to the grid's
// (combine_warp), and in the last block, or the only one, rounds them into
// *out. Lane l of tile w keeps digit i at digits[(w * DIGITS + i) * 32 + l]:
// one register plus a constant offset, and 32 banks for a warp's lanes.
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
    unsigned flags = thread_accumulate64(in, n, rank, threads, mine, 32);
    if (acc_must_carry64(n, threads))
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
    size_t round = 8 * GROUP_VECTORS;                     // elements per thread per round
    int most = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, L->device));
    if (L->n >= 4 * 1024 * round * L->sm_count && digits_bytes(1024) + WORDS * 8 <= (size_t)most)
        return 1024;
    return L->n >= 512 * round * L->sm_count ? 512 : 256;
}

// Step 10's grid rule with rounds of a group of 64 for each thread.
static size_t grid_size(const launch_t *L)
{
    size_t smem = digits_bytes(L->block);
    int most = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, L->device));
    if (smem + sizeof(long long) * WORDS > (size_t)most)
        return 0;                                         // the harness: no block fits, try a smaller --block
    CUDA_CHECK(cudaFuncSetAttribute(reduce_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, smem));
    size_t resident = (size_t)per_sm * L->sm_count;
    if (resident == 0)
        return 0;
    size_t groups = div_up(L->n, 8 * GROUP_VECTORS), rounds = div_up(groups, resident * L->block);
    return div_up(groups, rounds * L->block);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    acc_state_t *state = (acc_state_t *)L->state;         // zero between launches
    reduce_kernel<<<L->grid, L->block, digits_bytes(L->block), stream>>>(d_in, L->n, state, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "10_group64",
    .technique = "step 10 with groups of 64 elements",
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
