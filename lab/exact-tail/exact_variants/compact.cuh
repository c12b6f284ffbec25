// compact: the two slow paths as one loop that is not unrolled, over a copy
// of the group in local memory: the kernel's code shrinks from about 44 KB to
// a few, so that the code after the stream (the block's words, the meeting,
// the rounding) is fewer instruction-cache lines to fetch when the stream
// ends. (An inf or NaN adds nothing but its flag; in a wide group there is
// neither, and a term that is not -0, so the flags come out the same.)
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
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
    elem_t w[4 * GROUP_VECTORS];
    UNROLL
    for (int j = 0; j < 4 * GROUP_VECTORS; j++)
        w[j] = element(v, j);
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
    for (int j = 0; j < 4 * GROUP_VECTORS; j++) {
        unsigned u = bits_of(w[j]);
        *flags |= special_flags(u);
        acc_add_float(d, stride, (u & POS_INF_BITS) == POS_INF_BITS ? 0 : u);
    }
    acc_carry(d, stride);
}
