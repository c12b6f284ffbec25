// split: the group's sum in two float halves instead of a double: no conversion,
// four adds an element. With T = e_hi - 21 and C = 1.5 2^(T+23), c = x + C rounds x
// to a multiple of 2^T, bits(c) - bits(C) = xh / 2^T (summed as integers), and
// xl = x - xh is exact, |xl| <= 2^(T-1); the xl sum in a float is exact while
// 2^(T+4) <= 2^(e_lo+1), so for exponents within 18 (no subnormal on the way);
// within 24, the double as in the step. Same sums as the step.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE int group_sum(const elem4_t *v, long long *s, int *p)
{
    float hk[GROUP_VECTORS];
    unsigned lk[GROUP_VECTORS];
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++) {
        hk[k] = fmaxf(fmaxf(fabsf(v[k].x), fabsf(v[k].y)), fmaxf(fabsf(v[k].z), fabsf(v[k].w)));
        unsigned a = 2 * bits_of(v[k].x) - 2, b = 2 * bits_of(v[k].y) - 2, c = 2 * bits_of(v[k].z) - 2,
                 e = 2 * bits_of(v[k].w) - 2;
        a = a < b ? a : b;
        c = c < e ? c : e;
        lk[k] = a < c ? a : c;
    }
    UNROLL
    for (int w = GROUP_VECTORS / 2; w > 0; w /= 2)
        UNROLL
        for (int k = 0; k < w; k++) {
            hk[k] = fmaxf(hk[k], hk[k + w]);
            lk[k] = lk[k] < lk[k + w] ? lk[k] : lk[k + w];
        }
    unsigned hi = bits_of(hk[0]), lo = lk[0];
    if (group_kind(hi, lo) != GROUP_EXACT) return GROUP_SPECIAL;   // element by element, NaN or not
    int E_hi = (int)(hi >> 23), E_lo = (int)((lo + 2) >> 24);
    *p = E_lo - 1;                                        // units 2^(E_lo - 150): ulp of the smallest
    if (E_hi - E_lo <= 18 && E_hi <= 250 && E_lo >= 24) {   // no subnormal on the way
        // T = e_hi - 21: c = x + C rounds x to a multiple of 2^T (C = 1.5 2^(T+23)),
        // bits(c) - bits(C) = xh / 2^T; xl = x - xh exact, |xl| <= 2^(T-1), and
        // their sum exact in a float while 2^(T+4) <= 2^(e_lo+1).
        unsigned Cb = ((unsigned)(E_hi + 2) << 23) | 0x400000u;   // biased exponent (E_hi - 21) + 23
        float C = float_of(Cb);
        unsigned kh = 0;
        float sl = 0;
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++) {
            float c0 = v[k].x + C, c1 = v[k].y + C, c2 = v[k].z + C, c3 = v[k].w + C;
            kh += (bits_of(c0) + bits_of(c1)) + (bits_of(c2) + bits_of(c3));
            sl += ((v[k].x - (c0 - C)) + (v[k].y - (c1 - C))) + ((v[k].z - (c2 - C)) + (v[k].w - (c3 - C)));
        }
        if (!(fabsf(sl) < INFINITY)) return GROUP_SPECIAL;   // a NaN
        int h = (int)(kh - 4 * GROUP_VECTORS * Cb);          // sum of xh / 2^T, under 2^27
        *s = ((long long)h << (E_hi - E_lo + 2)) + (long long)((double)sl * pow2(149 - *p));
        return GROUP_EXACT;
    }
    double sum = 0;
    UNROLL
    for (int k = 0; k < GROUP_VECTORS; k++)
        sum += ((double)v[k].x + (double)v[k].y) + ((double)v[k].z + (double)v[k].w);
    if (!(fabs(sum) < INFINITY)) return GROUP_SPECIAL;        // a NaN
    *s = (long long)(sum * pow2(149 - *p));               // exact: a power of two
    return GROUP_EXACT;
}
