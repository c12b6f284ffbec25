// float_hi: the group_sum step 10 had before: the largest |x| by fmaxf, which
// drops a NaN, so the sum is tested for an infinity or a NaN first.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
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
