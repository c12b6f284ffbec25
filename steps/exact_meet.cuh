/* exact_meet.cuh: blocks meet, the one rounding, a block's words (part of step 10's accumulator: exact_acc.cuh says
 * which part, and includes the three in order). */
// ---- 5. blocks meet -----------------------------------------------------------
// [begin combine]
// The grid's accumulator, in the step's state (zeroed once by the harness,
// and left zeroed by the last block of each launch). Each word has a cache
// line of its own: blocks that add to different words then do not queue at
// one place in L2. A grid word holds two numbers: from bit 48 up, how many
// blocks have added to it; below, the sum of their words. A block adds its
// word plus 2^48, so one atomic add does both, and a word says itself when
// every block's add is in: no ticket, no fence. A block's words are carried
// to within 2^31 + 1 first, so that MAX_BLOCKS blocks sum to under 2^47.
#define LINE_WORDS 16                  // 128 bytes
#define COUNT_SHIFT 48
#define MAX_BLOCKS 65535               // counts fit the 16 bits above the sum
typedef struct {
    unsigned long long words[WORDS][LINE_WORDS];   // words[i][0]: count and sum of the blocks' words i
} acc_state_t;

// How many blocks have added to grid word x: the sum below is within 2^47,
// so adding 2^47 leaves the count alone in the top 16 bits.
HOST_DEVICE unsigned word_count(unsigned long long x)
{
    return (unsigned)((x + (1ull << (COUNT_SHIFT - 1))) >> COUNT_SHIFT);
}

// Adds a block's word w to grid word *g and counts the block; returns the
// grid word with this add in. On the GPU an atomic, which returns the word
// as it was: whatever order the blocks' adds land in, each sees one value.
HOST_DEVICE unsigned long long word_add(unsigned long long *g, long long w)
{
    unsigned long long x = (unsigned long long)w + (1ull << COUNT_SHIFT);
#ifdef __CUDA_ARCH__
    return atomicAdd(g, x) + x;
#else
    return *g += x;
#endif
}

// The sum in grid word *g, once all `blocks` have added to it (x: the word
// as this block's add left it); leaves 0 for the next launch. On the GPU
// another block's add may still be on its way: read until it is in (an
// atomic's value includes every add before it at that address, so a count
// of `blocks` means every block's add).
HOST_DEVICE long long word_take(unsigned long long *g, unsigned long long x, unsigned blocks)
{
#ifdef __CUDA_ARCH__
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(*g);
    while (word_count(x) != blocks)
        x = word.load(cuda::memory_order_relaxed);
    word.store(0ull, cuda::memory_order_relaxed);
#else
    *g = 0;
#endif
    return (long long)(x - ((unsigned long long)blocks << COUNT_SHIFT));
}

// One thread of a block adds the block's words w (digits carried, each in
// [-2^31, 2^31); counts) to the grid's: how the CPU tests meet the blocks,
// one after another (on the GPU, warp 0 does the same with a lane per word:
// combine_warp, below). Integer addition does not care in which order the
// blocks come (the atomics add two's complement bits: as unsigned, the same
// add). The block whose add completes word 0's count is the last: it gets
// the grid's words in w, leaves zeros behind, and returns 1.
HOST_DEVICE int acc_combine(acc_state_t *state, long long *w, unsigned blocks)
{
    unsigned long long x[WORDS];
    UNROLL
    for (int i = 0; i < WORDS; i++)
        x[i] = word_add(&state->words[i][0], w[i]);
    if (word_count(x[0]) != blocks)
        return 0;
    UNROLL
    for (int i = 0; i < WORDS; i++)
        w[i] = word_take(&state->words[i][0], x[i], blocks);
    return 1;
}
// [end combine]

// ---- 6. the one rounding -----------------------------------------------------
// [begin round]
// The bits of the float nearest to Q 2^s units (ties to even), Q a whole
// number other than 0: either s = 0, or |Q| >= 2^24. Converting a 64-bit
// integer to float rounds it to 24 bits, to nearest, ties to even (one
// instruction on the GPU; C on the CPU rounds the same way by default);
// adding s - 149 to the exponent field then scales the float exactly, and
// one past the largest exponent is infinity. Below 2^24 units (s = 0 only)
// Q's magnitude is the float's bits already: the subnormals and the first
// normal binade are encoded that way; above, every float here is normal.
HOST_DEVICE unsigned round_scaled(long long q, int s)
{
    unsigned sign = q < 0 ? NEG_ZERO_BITS : 0;
    unsigned long long m = q < 0 ? 0 - (unsigned long long)q : (unsigned long long)q;
    if (m < (1u << 24)) return sign | (unsigned)m;
    long long bits = (long long)bits_of((float)m) + (long long)(s - 149) * (1 << 23);
    return sign | (unsigned)(bits < POS_INF_BITS ? bits : POS_INF_BITS);
}

// The float nearest to the sum of digits d[i] 2^(32 i), each within
// 2^31 + 1 (carried), from its top digit that is not zero, k, the one under
// it, next, and low, the top digit that is not zero under next (or 0). The
// digits under any digit j add up to less than 2^(32 j) in size, so low's
// sign is the sign of everything under next, and the top digit's sign is
// the sum's. From k = 1 the window p = top 2^30 + floor(next / 4) fits a
// long long with room to spare, |p| >= 2^29 - 1, and what it leaves out,
// f, is in (-1/4, 1) of its last place: positive if next's two low bits are
// not 0, else of low's sign. 2p + sign(f) then rounds as the sum does:
// 2p + 2f lies in the same gap between two even numbers, and every float
// and every halfway point at that scale (30 bits or more, 24 kept) is even.
HOST_DEVICE unsigned round_top(int k, long long top, long long next, long long low)
{
    if (k == 0) return round_scaled(top, 0);
    long long p = top * (1ll << 30) + (next >> 2);
    int f = (next & 3) ? 1 : (low > 0) - (low < 0);
    return round_scaled(2 * p + f, 32 * k - 31);
}

// IEEE's special cases, from the counts: a NaN, or +inf with -inf, gives
// NaN; one infinity gives itself. 0 if there is none (0 is no such bits).
HOST_DEVICE unsigned special_bits(bool nan, bool pos_inf, bool neg_inf)
{
    if (nan || (pos_inf && neg_inf)) return QUIET_NAN;
    return pos_inf ? POS_INF_BITS : neg_inf ? NEG_INF_BITS : 0;
}

// The bits of the float nearest to the sum in w, its digits carried
// (acc_carry), with IEEE's special cases; an exact zero is -0 only if every
// term was -0. From digit 0 up, each digit that is not zero becomes the top
// and brings the one under it and the top one under that: selects, not an
// index that only the data knows, so that on the GPU w stays in registers.
HOST_DEVICE unsigned acc_round(const long long *w)
{
    unsigned special = special_bits(w[NAN_COUNT], w[POS_INF_COUNT], w[NEG_INF_COUNT]);
    if (special) return special;
    int k = -1;
    long long top = 0, next = 0, low = 0, under = 0;      // under: the top digit not zero under i - 1
    UNROLL
    for (int i = 0; i < DIGITS; i++) {
        under = i >= 2 && w[i - 2] != 0 ? w[i - 2] : under;
        bool nz = w[i] != 0;
        k = nz ? i : k;
        top = nz ? w[i] : top;
        next = nz && i > 0 ? w[i - 1] : next;
        low = nz ? under : low;
    }
    if (k < 0) return w[NOT_NEG_ZERO_COUNT] ? 0 : NEG_ZERO_BITS;
    return round_top(k, top, next, low);
}

// The step's result from the grid's words (carried here; w is changed).
HOST_DEVICE elem_t acc_result(long long *w)
{
    acc_carry(w, 1);
#ifdef REDUCE_EXACT
    return (elem_t)w[0];                   // the sum modulo 2^32: the digits above are multiples of 2^32
#else
    return float_of(acc_round(w));
#endif
}
// [end round]

// ---- 7. a block's words ---------------------------------------------------------
// [begin block_words]
#ifdef __CUDACC__
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// A tile's sum of one value a lane, each under 2^58 in size. On sm_80 and
// newer, three 32-bit REDUX adds on 27-bit pieces (32 lanes' pieces fit 32
// bits; the top piece is signed), independent of one another, where
// cg::reduce makes a chain of five rounds of 64-bit shuffles. What that saves
// a sum is within what two rounds of timing resolve (results/NOTES.md).
__device__ long long tile_sum(cg::thread_block_tile<32> tile, long long s)
{
#if __CUDA_ARCH__ >= 800
    (void)tile;
    unsigned long long u = (unsigned long long)s;
    long long low = __reduce_add_sync(~0u, (unsigned)(u & 0x7ffffff));
    long long mid = __reduce_add_sync(~0u, (unsigned)(u >> 27 & 0x7ffffff));
    long long top = (int)__reduce_add_sync(~0u, (unsigned)(int)(s >> 54));
    return low + mid * (1ll << 27) + top * (1ll << 54);
#else
    return cg::reduce(tile, s, cg::plus<long long>());
#endif
}

// The block's 14 words from its threads' digits and its tiles' flags: word
// i < 10 sums digit i over the threads (at most 1024 of under 2^53 each: see
// acc_must_carry), words 10 to 13 are 1 if some thread saw a NaN, +inf, -inf,
// a term other than -0. Tile w sums digits w, w + tiles, ...; the last tile
// also ORs the tiles' flags (it has the fewest digits, or none, to sum).
// Valid after the next barrier, in every thread.
__device__ void block_words(cg::thread_block block, const long long *digits, const unsigned *tile_flags,
                            long long *words)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned tiles = tile.meta_group_size();
    for (int i = tile.meta_group_rank(); i < DIGITS; i += tiles) {
        long long s = 0;
        for (unsigned w = 0; w < tiles; w++)
            s += digits[(w * DIGITS + i) * 32 + tile.thread_rank()];
        s = tile_sum(tile, s);
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
// [end block_words]

// ---- 8. one warp takes the block's words from here --------------------------
// Lane i holds word i (i < 14; the other lanes hold 0), so that the adds,
// the reads and the rounding are each one instruction for 14 words, and
// the carries move up a lane at a time instead of down a chain of ten.

// [begin carry_warp]
// A round of carries across the digits: each lane keeps its low 32 bits,
// read as signed, and passes the rest up. From digits under 2^63 in size,
// one round leaves them in [-2^32, 2^32), two within 2^31 + 1: what the
// blocks' meeting needs (MAX_BLOCKS of them sum to under 2^47), what the
// rounding needs, and small enough for any number of ranks. What
// leaves digit 9 is a multiple of 2^320 (gone, as in acc_carry); the counts
// stay as they are.
__device__ long long carry_round(cg::thread_block_tile<32> warp, long long d)
{
    long long digit = (int)(unsigned)d;
    long long up = warp.shfl_up((d - digit) >> 32, 1);
    unsigned i = warp.thread_rank();
    return i >= DIGITS ? d : i == 0 ? digit : digit + up;
}

__device__ long long carry_warp(cg::thread_block_tile<32> warp, long long d)
{
    return carry_round(warp, carry_round(warp, d));
}
// [end carry_warp]

// [begin combine_warp]
// acc_combine with a lane per word: every lane adds its word and gets the
// grid word back; lane 0's says whether this block completed word 0. In the
// last block, every lane returns with the grid's word in *w, and true.
__device__ bool combine_warp(cg::thread_block_tile<32> warp, acc_state_t *state, long long *w,
                             unsigned blocks)
{
    unsigned i = warp.thread_rank();
    unsigned long long x = 0;
    if (i < WORDS)
        x = word_add(&state->words[i][0], *w);
    if (!warp.shfl(word_count(x) == blocks, 0))
        return false;                              // word 0 still counts other blocks
    *w = i < WORDS ? word_take(&state->words[i][0], x, blocks) : 0;
    return true;
}
// [end combine_warp]

// [begin round_warp]
// acc_round with a lane per digit (carried): the digits that are not zero
// are one ballot, the top one, the one under it and the top one under that
// three shuffles; every lane gets the bits.
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
// [end round_warp]
#endif
