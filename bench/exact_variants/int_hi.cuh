// int_hi: the largest |x| from the bits, as the smallest: the maximum of
// 2 bits(x) (a NaN's is above an infinity's, so group_kind sends it the slow
// way and the sum needs no test of its own).
// (bench/exact_variants.sh puts this in place of a block of step 10's accumulator)
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
