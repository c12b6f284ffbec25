/* exact_digits.cuh: floats as integers, and the digits that add them (part of step 10's accumulator: exact_acc.cuh says
 * which part, and includes the three in order). */
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
// The three digits are read before any is written: written as three +=,
// the compiler must assume a write may change the next digit (stride could
// be 0 for all it knows) and waits for each round trip to shared memory in
// turn (results/NOTES.md, "the streaming gap, fourth round").
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

