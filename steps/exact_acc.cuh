/* exact_acc.cuh: step 10's exact accumulator, as functions that run on the
 * GPU and, for the tests, on the CPU (tests/exact_acc_test.cu runs them on
 * every kind of input and checks each sum against an independent oracle).
 *
 * Included by steps/10_exact.cu after harness.h; chapter 10 explains it.
 *
 *   1. every float is an integer number of units of 2^-149
 *   2. a thread's accumulator: ten digits of 32 bits, carry-save
 *   3. a group of 32 elements: summed exactly in one go when it can be
 *   4. a thread's share of the array, group by group
 *   5. blocks meet: their words added as integers, then a ticket
 *   6. the one rounding
 *   7. a block's words from its threads' digits (on the GPU only)
 *
 * Built with -DEXACT_NO_FP64, a group is summed with 64-bit integers instead
 * of doubles (for GPUs with slow FP64, such as most GeForce cards); both give
 * the same bits. The exact build (-DREDUCE_EXACT) sums 32-bit integers
 * through the same accumulator and keeps the sum modulo 2^32.
 */
#include <math.h>
#include <string.h>

#define HOST_DEVICE __host__ __device__ __forceinline__

// #pragma unroll where it matters, on the GPU; the host compiler does not know it.
#ifdef __CUDA_ARCH__
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

// ---- 1. units -------------------------------------------------------------
// [begin units]
// [begin words]
// A finite float x is +-m * 2^(p - 149) for integers 0 <= m < 2^24 and
// 0 <= p <= 253. From its bits: E, the 8 exponent bits, and f, the 23 fraction
// bits; E = 0 (zero or subnormal): m = f, p = 0; else m = f + 2^23, p = E - 1.
//   1.5f = 0x3fc00000: E = 127, f = 2^22, so m = 2^22 + 2^23 = 12582912, p = 126,
//   and 12582912 * 2^(126 - 149) = 1.5.
// So every sum of floats is a whole number of units of 2^-149, and with
// n <= 2^40 terms of fewer than 2^24 * 2^253 units each, its size is below
// 2^317 units: 320 bits hold it, sign included.
#define DIGITS 10                 // of 32 bits: 320
#define WORDS (DIGITS + 4)        // a block's or the grid's accumulator: digits, then four counts
enum { NAN_COUNT = DIGITS, POS_INF_COUNT, NEG_INF_COUNT, NOT_NEG_ZERO_COUNT };

// A thread notes what else it saw as flags; a block's word for each flag is 1
// if any of its threads saw it, so the grid's word counts the blocks that did.
enum { SAW_NAN = 1, SAW_POS_INF = 2, SAW_NEG_INF = 4, SAW_NOT_NEG_ZERO = 8 };

#define QUIET_NAN 0x7fc00000u     // the NaN the sum returns
#define POS_INF_BITS 0x7f800000u
#define NEG_INF_BITS 0xff800000u
#define NEG_ZERO_BITS 0x80000000u
// [end words]

HOST_DEVICE unsigned bits_of(float x)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    unsigned u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

HOST_DEVICE float float_of(unsigned u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

HOST_DEVICE double pow2(int k)             // 2^k for -1022 <= k <= 1023
{
    unsigned long long b = (unsigned long long)(k + 1023) << 52;
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)b);
#else
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

HOST_DEVICE int leading_zeros(unsigned x)  // x != 0
{
#ifdef __CUDA_ARCH__
    return __clz(x);
#else
    return __builtin_clz(x);
#endif
}

// NaN, +inf, -inf, and "a term other than -0" (the sign of a zero sum), for one element.
HOST_DEVICE unsigned special_flags(unsigned u)
{
    unsigned a = u & 0x7fffffff;
    return (a > POS_INF_BITS ? SAW_NAN : 0) | (u == POS_INF_BITS ? SAW_POS_INF : 0) |
           (u == NEG_INF_BITS ? SAW_NEG_INF : 0) | (u != NEG_ZERO_BITS ? SAW_NOT_NEG_ZERO : 0);
}
// [end units]

// ---- 2. the accumulator ---------------------------------------------------
// [begin digits]
// A thread's accumulator is DIGITS signed 64-bit digits d[0], d[stride], ...,
// d[9 * stride] (in shared memory, where another thread's digits lie between
// them), worth the sum of d[i] * 2^(32 i) units, modulo 2^320. A digit may
// hold more than 32 bits: carries wait until acc_carry. Between two carries
// a digit takes at most 2^30 group sums (n <= 2^40 over at least 32 threads),
// each under 2^32 in size, and at most one group added element by element,
// 32 terms under 2^55 each: under 2^31 + 2^62 + 2^60 in all, so it never
// overflows.

// [begin acc_add]
// Adds s * 2^p units (|s| < 2^53, 0 <= p <= 253). With q = p / 32 and
// r = p % 32, s * 2^r is below 2^84: three 32-bit pieces of a 96-bit two's
// complement number go to digits q, q + 1 and q + 2 (q + 2 <= 9), each piece
// under 2^32 in size. For example s = -3, p = 33: q = 1, r = 1, and -6 is
// 0xffffffff'ffffffff'fffffffa, so digit 1 gets 0xfffffffa, digit 2 gets
// 0xffffffff and digit 3 gets -1: (2^32 - 6) + (2^32 - 1) 2^32 - 2^64 = -6.
HOST_DEVICE void acc_add(long long *d, int stride, long long s, int p)
{
    int q = p >> 5, r = p & 31;
    unsigned long long low = (unsigned long long)s << r;   // bits 0..63 of s * 2^r
    d[q * stride] += (unsigned)low;
    d[(q + 1) * stride] += (unsigned)(low >> 32);
    d[(q + 2) * stride] += ((s >> 32) << r) >> 32;        // bits 64..95, with the sign
}
// [end acc_add]

// Adds one finite float, given by its bits: +-m * 2^(p % 32), under 2^55,
// to digit p / 32. The sign goes on m while it is 32 bits wide (cheaper
// than on 64); widening m then extends it.
HOST_DEVICE void acc_add_float(long long *d, int stride, unsigned u)
{
    unsigned a = u & 0x7fffffff;                          // |x|
    int p = (int)(a >> 23) - 1;
    p = p > 0 ? p : 0;
    int m = (int)(a - ((unsigned)p << 23));               // f + 2^23, or f when E = 0
    int sign = (int)u >> 31;                              // 0 or -1
    m = (m ^ sign) - sign;
    d[(p >> 5) * stride] += (long long)m << (p & 31);
}

// [begin carry]
// Carries each digit's excess into the next, from digit 0 up: afterwards
// every digit is in [-2^31, 2^31), its low 32 bits read as signed, and
// together they hold the value modulo 2^320 (what leaves digit 9 is a
// multiple of 2^320). A small sum keeps zeros above it, whatever its sign:
// digits (2^32 + 5, -1, 0, ...) become (5, 0, 0, ...).
HOST_DEVICE void acc_carry(long long *d, int stride)
{
    long long carry = 0;
    UNROLL
    for (int i = 0; i < DIGITS; i++) {
        long long x = d[i * stride] + carry;
        long long digit = (int)(unsigned)x;               // in [-2^31, 2^31)
        d[i * stride] = digit;
        carry = (x - digit) >> 32;                        // exact: a multiple of 2^32
    }
}
// [end carry]

// The same, with every digit in [0, 2^32) instead: two's complement, so
// that digit 9's top bit is the sign. E.g. (-1, 0, ..., 0) becomes
// (2^32 - 1, ..., 2^32 - 1).
HOST_DEVICE void acc_canonical(long long *d)
{
    long long carry = 0;
    UNROLL
    for (int i = 0; i < DIGITS; i++) {
        long long x = d[i] + carry;
        d[i] = x & 0xffffffff;
        carry = x >> 32;                                  // floor(x / 2^32), also below zero
    }
}

// [begin must_carry]
// Must a thread carry its digits before the block sums them? Not while no sum
// of them can overflow. Every digit is under 2^31 in size after a slow group
// (those carry), and each fast group adds under 2^32 to it, so after G groups
// it is under 2^31 + G 2^32; a block of at most 2^10 threads sums to under
// 2^41 + G 2^42, below 2^63 for any G <= 2^20. A thread adds at most
// ceil(n / (32 threads)) groups, which is <= 2^20 while n <= 2^25 threads.
// The same answer for every thread of the grid: a uniform branch.
HOST_DEVICE bool acc_must_carry(size_t n, size_t threads)
{
    return n > (threads << 25);
}
// [end must_carry]
// [end digits]

// ---- 3. a group -------------------------------------------------------------
// [begin group]
// A group: GROUP_VECTORS vectors of 4 elements, loaded together.
#define GROUP_VECTORS 8

enum { GROUP_EXACT, GROUP_WIDE, GROUP_SPECIAL };

HOST_DEVICE elem_t element(const elem4_t *v, int j)   // j is a constant once unrolled
{
    elem4_t w = v[j >> 2];
    return (j & 3) == 0 ? w.x : (j & 3) == 1 ? w.y : (j & 3) == 2 ? w.z : w.w;
}

#ifndef REDUCE_EXACT
// [begin group_kind]
// The group's exponents, from the bits of its largest |x| (hi) and from lo,
// the smallest of 2 bits(x) - 2 over its elements: that is 2 bits(|x|) - 2,
// and a zero's wraps around to 2^32 - 2, so that lo comes from the smallest
// |x| that is not zero. If they are at most 24 apart, every term is a whole
// number of units of 2^(p - 149), p the smallest p in the group, below
// 2^24 * 2^24 such units: 32 terms sum to under 2^53 of them. A group with a
// subnormal goes the slow way too, so that no float operation ever works on
// one that counts: the sum stays exact built with -ftz=true (--use_fast_math).
HOST_DEVICE int group_kind(unsigned hi, unsigned lo)
{
    if (hi == 0 || hi >= POS_INF_BITS) return GROUP_SPECIAL;   // all zero, or an inf or NaN
    unsigned e_hi = hi >> 23, e_lo = (lo + 2) >> 24;
    return e_lo > 0 && e_hi - e_lo <= 24 ? GROUP_EXACT : GROUP_WIDE;
}
// [end group_kind]

#ifndef EXACT_NO_FP64
// [begin group_sum]
// Tries the group's sum in one go: in a double, which holds it exactly when
// group_kind says so (53 bits, and every partial sum a whole number of the
// group's units), so the order of the adds does not matter either; vector
// after vector keeps few doubles live. Then *s * 2^*p units is the sum. The
// conversions and adds run beside the exponent check; a NaN or an infinity
// shows up in the sum itself.
HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    float hi = 0;
    unsigned lo = 0xffffffff;
    double sum = 0;
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++) {
        UNROLL
        for (int j = 4 * k; j < 4 * k + 4; j++) {
            float x = element(v, j);
            hi = fmaxf(hi, fabsf(x));                     // drops a NaN: the sum keeps it
            unsigned b = 2 * bits_of(x) - 2;
            lo = b < lo ? b : lo;
        }
        sum += ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
    }
    if (!(fabs(sum) < INFINITY)) return GROUP_SPECIAL;        // an inf or a NaN
    int kind = group_kind(bits_of(hi), lo);
    if (kind != GROUP_EXACT) return kind;
    *p = (int)((lo + 2) >> 24) - 1;                       // E - 1 of the smallest |x|
    *s = (long long)(sum * pow2(149 - *p));               // exact: a power of two
    return GROUP_EXACT;
}
// [end group_sum]
#else
// [begin no_fp64]
// The same without FP64: the exponent check first, then each term shifted
// into a 64-bit integer (under 2^48 each, 2^53 in all).
HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    unsigned hi = 0, lo = 0xffffffff;          // of 2 bits(x), and of 2 bits(x) - 2
    UNROLL
    for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
        unsigned u = bits_of(element(v, j)), a = 2 * u, b = 2 * u - 2;   // not u & 0x7fffffff:
        hi = a > hi ? a : hi;                     // the loop below computes that, and the
        lo = b < lo ? b : lo;                     // compiler would keep all 32 in registers
    }
    int kind = group_kind(hi >> 1, lo);
    if (kind != GROUP_EXACT) return kind;
    int e_lo = (int)((lo + 2) >> 24);                     // at least 1: no subnormal
    long long sum = 0;
    UNROLL
    for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
        unsigned u = bits_of(element(v, j)), a = u & 0x7fffffff;
        int e = (int)(a >> 23), q = e > 1 ? e : 1;        // q = 1 for a zero, and then m = 0
        int m = (int)(a - ((unsigned)(q - 1) << 23));     // f + 2^23
        sum += (long long)(u >> 31 ? -m : m) * (1 << ((q - e_lo) & 31));
    }
    *s = sum;
    *p = e_lo - 1;
    return GROUP_EXACT;
}
// [end no_fp64]
#endif

// [begin add_group]
// Adds a group to a thread's digits; notes NaN, infinities and terms other
// than -0 in *flags. The slow paths add element by element (an inf or NaN
// adds nothing but its flag), then carry, which keeps the digits' bound.
HOST_DEVICE void acc_add_group(long long *d, int stride, const elem4_t *v, unsigned *flags)
{
    long long s = 0;
    int p = 0;
    int kind = group_sum(v, &s, &p);
    if (kind == GROUP_EXACT) {
        acc_add(d, stride, s, p);
        *flags |= SAW_NOT_NEG_ZERO;                       // a term that is not zero
        return;
    }
    if (kind == GROUP_WIDE) {
        *flags |= SAW_NOT_NEG_ZERO;
        UNROLL
        for (int j = 0; j < 4 * GROUP_VECTORS; j++)
            acc_add_float(d, stride, bits_of(element(v, j)));
    } else {
        UNROLL
        for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
            unsigned u = bits_of(element(v, j));
            *flags |= special_flags(u);
            acc_add_float(d, stride, (u & POS_INF_BITS) == POS_INF_BITS ? 0 : u);
        }
    }
    acc_carry(d, stride);
}
// [end add_group]
#else
// The exact build: 32 integers sum to under 2^37, added at unit 1 (p = 0).
HOST_DEVICE void acc_add_group(long long *d, int stride, const elem4_t *v, unsigned *flags)
{
    unsigned long long s = 0;
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++)
        s += ((unsigned long long)v[k].x + v[k].y) + ((unsigned long long)v[k].z + v[k].w);
    acc_add(d, stride, (long long)s, 0);
    (void)flags;
}
#endif
// [end group]

// ---- 4. a thread's share ----------------------------------------------------
// [begin thread]
// What pads a group past the end: -0 adds nothing and is no term other than -0.
#ifdef REDUCE_EXACT
#define PAD 0u
#else
#define PAD (-0.0f)
#endif

// Vector j of in[0..n), padded past n.
HOST_DEVICE elem4_t load_vector(const elem_t *in, size_t n, size_t j)
{
    if (4 * j + 4 <= n) return ((const elem4_t *)in)[j];
    elem4_t v = { PAD, PAD, PAD, PAD };
    if (4 * j + 0 < n) v.x = in[4 * j + 0];
    if (4 * j + 1 < n) v.y = in[4 * j + 1];
    if (4 * j + 2 < n) v.z = in[4 * j + 2];
    return v;
}

// Adds thread `rank` of `threads` share of in[0..n) to its digits, and
// returns its flags. Its groups are vectors i, i + threads, ...,
// i + 7 threads, for i = rank, rank + 8 threads, ...: each load coalesced
// across the warp, 8 in flight. Only a group that reaches the end of the
// array checks each index. in must be 16-byte aligned (cudaMalloc gives 256).
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned flags = 0;
    for (size_t i = rank; 4 * i < n; i += GROUP_VECTORS * threads) {
        elem4_t v[GROUP_VECTORS];
        if (4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n) {   // 8 whole vectors
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = in4[i + k * threads];
        } else {
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = load_vector(in, n, i + k * threads);
        }
        acc_add_group(d, stride, v, &flags);
    }
    return flags;
}
// [end thread]

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
