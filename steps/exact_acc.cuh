/* exact_acc.cuh: step 10's exact accumulator, functions that run on the GPU
 * and on the CPU (tests/exact_acc_test.cu checks them there against an
 * oracle). 1. floats as integers; 2. a thread's digits; 3. a group of 32
 * elements in one go; 4. a thread's share; 5. the one rounding. What only the
 * GPU runs is in steps/10_exact.cu. The exact build (-DREDUCE_EXACT) sums
 * 32-bit integers through the same digits, modulo 2^32.
 */
#ifndef EXACT_ACC_CUH
#define EXACT_ACC_CUH

#include <cuda/std/bit>

#define HOST_DEVICE __host__ __device__ __forceinline__

// ---- 1. units -------------------------------------------------------------
// A finite float is +-m * 2^(p - 149), 0 <= m < 2^24, 0 <= p <= 253: from its
// exponent bits E and fraction bits f, m = f + 2^23 and p = E - 1, or m = f
// and p = 0 where E = 0. 1.5f = 0x3fc00000: E = 127, f = 2^22, so m = 12582912,
// p = 126, and 12582912 * 2^-23 = 1.5. A sum of n <= 2^40 floats is then a
// whole number of units of 2^-149 below 2^317: 320 bits hold it, sign included.
#define DIGITS 10                 // of 32 bits: 320
#define WORDS (DIGITS + 4)        // a block's or the grid's accumulator: digits, then four counts
enum { NAN_COUNT = DIGITS, POS_INF_COUNT, NEG_INF_COUNT, NOT_NEG_ZERO_COUNT };
// What else a thread saw; a block's count word is 1 if any of its threads did.
enum { SAW_NAN = 1, SAW_POS_INF = 2, SAW_NEG_INF = 4, SAW_NOT_NEG_ZERO = 8 };

#define QUIET_NAN 0x7fc00000u     // the NaN the sum returns
#define POS_INF_BITS 0x7f800000u
#define NEG_INF_BITS 0xff800000u
#define NEG_ZERO_BITS 0x80000000u

HOST_DEVICE unsigned bits_of(float x) { return cuda::std::bit_cast<unsigned>(x); }
HOST_DEVICE float float_of(unsigned u) { return cuda::std::bit_cast<float>(u); }
HOST_DEVICE double pow2(int k) { return cuda::std::bit_cast<double>((unsigned long long)(k + 1023) << 52); }

// NaN, +inf, -inf, and "a term other than -0" (the sign of a zero sum), for one element.
HOST_DEVICE unsigned special_flags(unsigned u)
{
    unsigned a = u & 0x7fffffff;
    return (a > POS_INF_BITS ? SAW_NAN : 0) | (u == POS_INF_BITS ? SAW_POS_INF : 0) |
           (u == NEG_INF_BITS ? SAW_NEG_INF : 0) | (u != NEG_ZERO_BITS ? SAW_NOT_NEG_ZERO : 0);
}

// ---- 2. the accumulator ---------------------------------------------------
// A thread's accumulator: DIGITS signed 64-bit digits d[0], d[stride], ...
// (in shared memory, other threads' digits between them), worth the sum of
// d[i] * 2^(32 i) units, modulo 2^320; carries wait until acc_carry.
//
// Adds s * 2^p units (|s| < 2^53): s * 2^(p % 32), under 2^84, as three
// 32-bit pieces of a 96-bit two's complement number, to digits p / 32 and the
// two above. s = -3, p = 33: -6 is 0xffffffff'ffffffff'fffffffa, so digits
// 1, 2, 3 get 0xfffffffa, 0xffffffff, -1. All three are read before any is
// written, so that their loads overlap.
HOST_DEVICE void acc_add(long long *d, int stride, long long s, int p)
{
    int q = p >> 5, r = p & 31;
    unsigned long long low = (unsigned long long)s << r;   // bits 0..63 of s * 2^r
    long long *d0 = d + q * stride, *d1 = d0 + stride, *d2 = d1 + stride;
    long long x0 = *d0, x1 = *d1, x2 = *d2;
    *d0 = x0 + (unsigned)low;
    *d1 = x1 + (unsigned)(low >> 32);
    *d2 = x2 + (((s >> 32) << r) >> 32);                   // bits 64..95, with the sign
}

// Adds one finite float, given by its bits: +-m * 2^(p % 32), under 2^55, to digit p / 32.
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

// Carries each digit's excess into the next, from digit 0 up: every digit
// ends in [-2^31, 2^31). Digits (2^32 + 5, -1, 0, ...) become (5, 0, 0, ...).
HOST_DEVICE void acc_carry(long long *d, int stride)
{
    long long carry = 0;
#pragma unroll
    for (int i = 0; i < DIGITS; i++) {
        long long x = d[i * stride] + carry;
        long long digit = (int)(unsigned)x;               // in [-2^31, 2^31)
        d[i * stride] = digit;
        carry = (x - digit) >> 32;                        // exact: a multiple of 2^32
    }
}

// Must a thread carry before its block sums the digits? Only once it may add
// more than 2^20 groups (chapter 10): never at the default launch shapes.
HOST_DEVICE bool acc_must_carry(size_t n, size_t threads) { return n > (threads << 25); }

// ---- 3. a group -------------------------------------------------------------
#define GROUP_VECTORS 8           // a group: 8 vectors of 4 elements, loaded together

enum { GROUP_EXACT, GROUP_WIDE, GROUP_SPECIAL };

HOST_DEVICE elem_t element(const elem4_t *v, int j)   // j is a constant once unrolled
{
    elem4_t w = v[j >> 2];
    return (j & 3) == 0 ? w.x : (j & 3) == 1 ? w.y : (j & 3) == 2 ? w.z : w.w;
}

#ifndef REDUCE_EXACT
// hi: the group's largest |x| bits; lo: the smallest 2 bits(x) - 2 (a zero
// wraps to 2^32 - 2, so lo is the smallest |x| not zero). Exponents at most
// 24 apart: every term is under 2^48 units of the smallest, 32 sum to under
// 2^53. All zeros, an infinity, a NaN or a subnormal: the slow paths.
HOST_DEVICE int group_kind(unsigned hi, unsigned lo)
{
    if (hi == 0 || hi >= POS_INF_BITS) return GROUP_SPECIAL;   // all zero, or an inf or NaN
    unsigned e_hi = hi >> 23, e_lo = (lo + 2) >> 24;
    return e_lo > 0 && e_hi - e_lo <= 24 ? GROUP_EXACT : GROUP_WIDE;
}

// The group's sum, *s * 2^*p units, where group_kind allows: in a double
// (FP64), exact there in any order, added beside the exponent check; or,
// after the check, each term shifted into a 64-bit integer. The same bits.
template <bool FP64>
HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    unsigned hi = 0, lo = 0xffffffff;          // of 2 bits(x), and of 2 bits(x) - 2
    double sum = 0;
#pragma unroll
    for (int k = 0; k < GROUP_VECTORS; k++) {
#pragma unroll
        for (int j = 4 * k; j < 4 * k + 4; j++) {
            unsigned u = bits_of(element(v, j)), a = 2 * u, b = 2 * u - 2;
            hi = a > hi ? a : hi;
            lo = b < lo ? b : lo;
        }
        if constexpr (FP64) sum += ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
    }
    int kind = group_kind(hi >> 1, lo);
    if (kind != GROUP_EXACT) return kind;
    *p = (int)((lo + 2) >> 24) - 1;                       // E - 1 of the smallest |x|
    if constexpr (FP64) {
        *s = (long long)(sum * pow2(149 - *p));           // exact: a power of two
        return GROUP_EXACT;
    }
    long long isum = 0;
#pragma unroll
    for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
        unsigned u = bits_of(element(v, j)), a = u & 0x7fffffff;
        int e = (int)(a >> 23), q = e > 1 ? e : 1;        // q = 1 for a zero, and then m = 0
        int m = (int)(a - ((unsigned)(q - 1) << 23));     // f + 2^23
        isum += (long long)(u >> 31 ? -m : m) * (1 << ((q - 1 - *p) & 31));
    }
    *s = isum;
    return GROUP_EXACT;
}

// Adds a group to a thread's digits and its flags. The slow paths add
// element by element (an inf or NaN only its flag), then carry.
template <bool FP64>
HOST_DEVICE void acc_add_group(long long *d, int stride, const elem4_t *v, unsigned *flags)
{
    long long s = 0;
    int p = 0;
    int kind = group_sum<FP64>(v, &s, &p);
    if (kind != GROUP_SPECIAL) *flags |= SAW_NOT_NEG_ZERO;   // a term that is not zero
    if (kind == GROUP_EXACT) {
        acc_add(d, stride, s, p);
        return;
    }
#pragma unroll
    for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
        unsigned u = bits_of(element(v, j));
        if (kind == GROUP_SPECIAL) *flags |= special_flags(u);
        acc_add_float(d, stride, (u & POS_INF_BITS) == POS_INF_BITS ? 0 : u);
    }
    acc_carry(d, stride);
}
#else
// The exact build: 32 integers sum to under 2^37, added at unit 1 (p = 0).
template <bool FP64>
HOST_DEVICE void acc_add_group(long long *d, int stride, const elem4_t *v, unsigned *flags)
{
    unsigned long long s = 0;
#pragma unroll
    for (int k = 0; k < GROUP_VECTORS; k++)
        s += ((unsigned long long)v[k].x + v[k].y) + ((unsigned long long)v[k].z + v[k].w);
    acc_add(d, stride, (long long)s, 0);
    (void)flags;
}
#endif

// ---- 4. a thread's share ----------------------------------------------------
// Vector j of in[0..n), padded past n with -0, which adds nothing (0 in the exact build).
HOST_DEVICE elem4_t load_vector(const elem_t *in, size_t n, size_t j)
{
    if (4 * j + 4 <= n) return ((const elem4_t *)in)[j];
    elem_t pad = (elem_t)(-0.0f);
    elem4_t v = { pad, pad, pad, pad };
    if (4 * j + 0 < n) v.x = in[4 * j + 0];
    if (4 * j + 1 < n) v.y = in[4 * j + 1];
    if (4 * j + 2 < n) v.z = in[4 * j + 2];
    return v;
}

// Thread `rank` of `threads` adds its share to its digits; returns its flags.
// Its groups: vectors i, i + threads, ..., i + 7 threads, for i = rank,
// rank + 8 threads, ...: loads coalesced across the warp, 8 in flight; only
// a group at the end checks each index. in: 16-byte aligned (cudaMalloc: 256).
template <bool FP64>
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads, long long *d,
                                       int stride)
{
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned flags = 0;
    for (size_t i = rank; 4 * i < n; i += GROUP_VECTORS * threads) {
        elem4_t v[GROUP_VECTORS];
        if (4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n) {   // 8 whole vectors
#pragma unroll
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = in4[i + k * threads];
        } else {
#pragma unroll
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = load_vector(in, n, i + k * threads);
        }
        acc_add_group<FP64>(d, stride, v, &flags);
    }
    return flags;
}

// ---- 5. the one rounding -----------------------------------------------------
// The bits of the float nearest to Q 2^s units, Q != 0, s = 0 or |Q| >= 2^24:
// the conversion rounds (to nearest, ties to even), adding s - 149 to the
// exponent field scales exactly, past the largest is infinity; under 2^24
// units the magnitude is the float's bits already (subnormals).
HOST_DEVICE unsigned round_scaled(long long q, int s)
{
    unsigned sign = q < 0 ? NEG_ZERO_BITS : 0;
    unsigned long long m = q < 0 ? 0 - (unsigned long long)q : (unsigned long long)q;
    if (m < (1u << 24)) return sign | (unsigned)m;
    long long bits = (long long)bits_of((float)m) + (long long)(s - 149) * (1 << 23);
    return sign | (unsigned)(bits < POS_INF_BITS ? bits : POS_INF_BITS);
}

// The float nearest to the carried digits, from the top one not zero (k,
// top), the one under it (next) and the top one not zero under that (low,
// whose sign is that of all under next): p = top 2^30 + floor(next / 4)
// leaves out f in (-1/4, 1) of its last place, and 2p + sign(f) rounds as
// the sum does (chapter 10).
HOST_DEVICE unsigned round_top(int k, long long top, long long next, long long low)
{
    if (k == 0) return round_scaled(top, 0);
    long long p = top * (1ll << 30) + (next >> 2);
    int f = (next & 3) ? 1 : (low > 0) - (low < 0);
    return round_scaled(2 * p + f, 32 * k - 31);
}

// IEEE's special cases from the counts: NaN, or +inf with -inf: NaN; one infinity: itself; else 0.
HOST_DEVICE unsigned special_bits(bool nan, bool pos_inf, bool neg_inf)
{
    if (nan || (pos_inf && neg_inf)) return QUIET_NAN;
    return pos_inf ? POS_INF_BITS : neg_inf ? NEG_INF_BITS : 0;
}

// The sum in words w, carried here and rounded once: the special cases, a
// zero that is -0 only if every term was, else round_top.
HOST_DEVICE elem_t acc_result(long long *w)
{
    acc_carry(w, 1);
#ifdef REDUCE_EXACT
    return (elem_t)w[0];                   // the sum modulo 2^32: the digits above are multiples of 2^32
#else
    unsigned special = special_bits(w[NAN_COUNT], w[POS_INF_COUNT], w[NEG_INF_COUNT]);
    if (special) return float_of(special);
    int k = -1;
    long long top = 0, next = 0, low = 0, under = 0;      // under: the top digit not zero under i - 1
#pragma unroll
    for (int i = 0; i < DIGITS; i++) {
        under = i >= 2 && w[i - 2] != 0 ? w[i - 2] : under;
        bool nz = w[i] != 0;
        k = nz ? i : k;
        top = nz ? w[i] : top;
        next = nz && i > 0 ? w[i - 1] : next;
        low = nz ? under : low;
    }
    if (k < 0) return float_of(w[NOT_NEG_ZERO_COUNT] ? 0 : NEG_ZERO_BITS);
    return float_of(round_top(k, top, next, low));
#endif
}
#endif
