// bits1, bits2, bits4: BITS (1, 2 or 4: the variant's sed defines it) of each
// vector's 4 elements made doubles from their bits by integer instructions
// (x 2^-896, exact for every finite x) instead of a conversion on the
// conversion unit: 8 BITS of the group's 32 conversions move to the integer units.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE double scaled_double(float x)       // x * 2^-896, exactly
{
    unsigned u = bits_of(x), hi = (unsigned)((int)u >> 3) & 0x8fffffffu, lo = u << 29;
#ifdef __CUDA_ARCH__
    return __hiloint2double((int)hi, (int)lo);
#else
    unsigned long long w = (unsigned long long)hi << 32 | lo;
    double d;
    memcpy(&d, &w, sizeof d);
    return d;
#endif
}

HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    unsigned hi = 0, lo = 0xffffffff;          // of 2 bits(x), and of 2 bits(x) - 2
    double sum = 0, scaled = 0;
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++) {
        UNROLL
        for (int j = 4 * k; j < 4 * k + 4; j++) {
            unsigned u = bits_of(element(v, j)), a = 2 * u, b = 2 * u - 2;
            hi = a > hi ? a : hi;
            lo = b < lo ? b : lo;
        }
#if BITS == 1
        sum += ((double)v[k].x + (double)v[k].y) + (double)v[k].z;
        scaled += scaled_double(v[k].w);
#elif BITS == 2
        sum += (double)v[k].x + (double)v[k].y;
        scaled += scaled_double(v[k].z) + scaled_double(v[k].w);
#else
        scaled += (scaled_double(v[k].x) + scaled_double(v[k].y)) + (scaled_double(v[k].z) + scaled_double(v[k].w));
#endif
    }
    int kind = group_kind(hi >> 1, lo);
    if (kind != GROUP_EXACT) return kind;
    *p = (int)((lo + 2) >> 24) - 1;                       // E - 1 of the smallest |x|
    *s = (long long)(fma(scaled, pow2(896), sum) * pow2(149 - *p));   // exact: the sum fits
    return GROUP_EXACT;
}
