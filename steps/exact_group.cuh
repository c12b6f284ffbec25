/* exact_group.cuh: a group of 32 elements, and a thread's share of the array (part of step 10's accumulator: exact_acc.cuh says
 * which part, and includes the three in order). */
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
// conversions and adds run beside the exponent check, which takes both ends
// from the bits: hi, the largest 2 bits(x), is an infinity's or a NaN's if
// the group has one (a NaN's bits are above an infinity's), so the sum needs
// no test of its own. (The largest |x| by fmaxf was slower, and drops NaNs:
// results/NOTES.md, "the streaming gap, third round".)
HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    unsigned hi = 0, lo = 0xffffffff;          // of 2 bits(x), and of 2 bits(x) - 2
    double sum = 0;
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
    int kind = group_kind(hi >> 1, lo);
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

// [begin accumulate]
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
// [end accumulate]
// [end thread]

