/* exact_meet.cuh: blocks meet, the one rounding, a block's words (part of step 10's accumulator: exact_acc.cuh says
 * which part, and includes the three in order). */
// ---- 5. blocks meet -----------------------------------------------------------
// [begin combine]
// The grid's accumulator, in the step's state (zeroed once by the harness,
// and left zeroed by the last block of each launch). Each word has a cache
// line of its own: blocks that add to different words then do not queue at
// one place in L2.
#define LINE_WORDS 16                  // 128 bytes
typedef struct {
    unsigned long long words[WORDS][LINE_WORDS];   // words[i][0]: the sum of the blocks' words i
    unsigned blocks_done;                          // tickets drawn
} acc_state_t;

// On the GPU, atomics and fences; the CPU tests run one block at a time.
HOST_DEVICE void word_add(unsigned long long *w, unsigned long long x)
{
#ifdef __CUDA_ARCH__
    atomicAdd(w, x);
#else
    *w += x;
#endif
}

HOST_DEVICE unsigned long long word_take(unsigned long long *w)   // read it, leave 0
{
#ifdef __CUDA_ARCH__
    return atomicExch(w, 0ull);
#else
    unsigned long long x = *w;
    *w = 0;
    return x;
#endif
}

HOST_DEVICE unsigned ticket(unsigned *blocks_done)
{
#ifdef __CUDA_ARCH__
    return atomicAdd(blocks_done, 1u);
#else
    return (*blocks_done)++;
#endif
}

HOST_DEVICE void fence()
{
#ifdef __CUDA_ARCH__
    __threadfence();
#endif
}

// One thread of a block adds the block's words w (digits carried, each in
// [-2^31, 2^31); counts) to the grid's and takes a ticket, as in step 06.
// A grid word sums under 2^31 blocks' words: under 2^62 in size, and
// integer addition does not care in which order the blocks come (the atomics
// add two's complement bits: as unsigned, the same add). A word that is zero
// is not sent: for most sums most are. The block with the last ticket gets
// the grid's words in w, leaves zeros behind, and returns 1.
HOST_DEVICE int acc_combine(acc_state_t *state, long long *w, unsigned blocks)
{
    UNROLL
    for (int i = 0; i < WORDS; i++)
        if (w[i] != 0)
            word_add(&state->words[i][0], (unsigned long long)w[i]);
    fence();                               // release: the words before the ticket
    if (ticket(&state->blocks_done) != blocks - 1)
        return 0;
    fence();                               // acquire: every ticket before the words
    UNROLL
    for (int i = 0; i < WORDS; i++)
        w[i] = (long long)word_take(&state->words[i][0]);
    state->blocks_done = 0;                // every ticket drawn: ready for the next launch
    return 1;
}
// [end combine]

// ---- 6. the one rounding -----------------------------------------------------
// [begin round]
// The bits of the float nearest to the sum in w (ties to even), with IEEE's
// special cases: a NaN, or +inf with -inf, gives NaN; one infinity gives
// itself; beyond float's range gives an infinity; an exact zero is -0 only
// if every term was -0. w is changed. The magnitude M, in units, has its top
// bit at t; below 2^24 units (t < 24) M is a float's bits already
// (subnormal, or the first normal binade). Above, the float keeps the 24
// bits from t down, that is M >> (t - 23), and (t - 23) << 23 plus them are
// its bits: exponent and significand in one add, so a round-up that carries
// into the exponent, or past the largest exponent into infinity, needs no
// case of its own. On the GPU w is a local array: every loop is unrolled and
// the top digit is picked by selects, not by an index that only the data
// knows, so that w stays in registers.
HOST_DEVICE unsigned acc_round(long long *w)
{
    if (w[NAN_COUNT] || (w[POS_INF_COUNT] && w[NEG_INF_COUNT])) return QUIET_NAN;
    if (w[POS_INF_COUNT]) return POS_INF_BITS;
    if (w[NEG_INF_COUNT]) return NEG_INF_BITS;
    acc_canonical(w);
    unsigned sign = (unsigned)(w[DIGITS - 1] >> 31) << 31;   // bit 319: two's complement
    if (sign) {                                             // M = -w
        UNROLL
        for (int i = 0; i < DIGITS; i++) w[i] = -w[i];
        acc_canonical(w);
    }
    // From digit 0 up, each digit that is not zero becomes the top, k, and
    // brings the one under it and whether any below that is not zero.
    int k = 0;
    unsigned long long top = 0, next = 0;                   // digits k and k - 1
    bool below = false, under = false;                      // a bit under k - 1; under i - 1
    UNROLL
    for (int i = 0; i < DIGITS; i++) {
        bool nz = w[i] != 0;
        k = nz ? i : k;
        top = nz ? (unsigned long long)w[i] : top;
        next = nz ? (i > 0 ? (unsigned long long)w[i - 1] : 0) : next;
        below = nz ? under : below;
        under |= i > 0 && w[i - 1] != 0;
    }
    if (top == 0) return w[NOT_NEG_ZERO_COUNT] ? 0 : NEG_ZERO_BITS;
    int t = 32 * k + 31 - leading_zeros((unsigned)top);
    if (t < 24) return sign | (unsigned)top;                // k = 0: M is digit 0
    // Digits k and k - 1 as one 64-bit window whose bit 0 is M's bit 32 (k - 1):
    // the 24 kept bits are win >> c, c = t - 23 - 32 (k - 1), in [9, 40].
    unsigned long long win = top << 32 | next;
    int c = t - 23 - 32 * (k - 1);
    unsigned kept = (unsigned)(win >> c);
    unsigned long long rest = win & ((1ull << c) - 1), half = 1ull << (c - 1);
    bool up = rest > half || (rest == half && (below || (kept & 1)));
    unsigned bits = ((unsigned)(t - 23) << 23) + kept + up;
    return sign | (bits < POS_INF_BITS ? bits : POS_INF_BITS);
}

// The step's result from the grid's words.
HOST_DEVICE elem_t acc_result(long long *w)
{
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
#endif
// [end block_words]
