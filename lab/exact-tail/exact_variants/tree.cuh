// tree: group_sum with each vector's two ends and sum first, then trees over
// the vectors, instead of one chain each through all 32 elements: after the
// last vector arrives, 3 steps of each instead of up to 32.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    unsigned hv[GROUP_VECTORS], lv[GROUP_VECTORS];   // of 2 bits(x), and of 2 bits(x) - 2
    double sv[GROUP_VECTORS];
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++) {
        unsigned a[4], b[4];
        UNROLL
        for (int j = 0; j < 4; j++) {
            a[j] = 2 * bits_of(element(v, 4 * k + j));
            b[j] = a[j] - 2;
        }
        unsigned h0 = a[0] > a[1] ? a[0] : a[1], h1 = a[2] > a[3] ? a[2] : a[3];
        unsigned l0 = b[0] < b[1] ? b[0] : b[1], l1 = b[2] < b[3] ? b[2] : b[3];
        hv[k] = h0 > h1 ? h0 : h1;
        lv[k] = l0 < l1 ? l0 : l1;
        sv[k] = ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
    }
    UNROLL
    for (int w = 1; w < GROUP_VECTORS; w *= 2)
        UNROLL
        for (int k = 0; k + w < GROUP_VECTORS; k += 2 * w) {
            hv[k] = hv[k] > hv[k + w] ? hv[k] : hv[k + w];
            lv[k] = lv[k] < lv[k + w] ? lv[k] : lv[k + w];
            sv[k] += sv[k + w];
        }
    unsigned hi = hv[0], lo = lv[0];
    double sum = sv[0];
    int kind = group_kind(hi >> 1, lo);
    if (kind != GROUP_EXACT) return kind;
    *p = (int)((lo + 2) >> 24) - 1;                       // E - 1 of the smallest |x|
    *s = (long long)(sum * pow2(149 - *p));               // exact: a power of two
    return GROUP_EXACT;
}
