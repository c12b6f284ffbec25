// window (with window_acc.cuh): a fast group goes into three digits held in
// registers (the window: digits q, q + 1, q + 2) instead of into shared
// memory; the window goes to the digits in shared memory only when a group
// needs another q, and at the end. Most inputs keep one q for most groups.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
typedef struct {
    long long w0, w1, w2;                // what digits q, q + 1, q + 2 are owed
    int q;                               // -1: none yet
} window_t;

HOST_DEVICE void window_flush(window_t *w, long long *d, int stride)
{
    if (w->q >= 0) {
        long long *d0 = d + w->q * stride, *d1 = d0 + stride, *d2 = d1 + stride;
        long long x0 = *d0, x1 = *d1, x2 = *d2;
        *d0 = x0 + w->w0;
        *d1 = x1 + w->w1;
        *d2 = x2 + w->w2;
    }
    w->w0 = w->w1 = w->w2 = 0;
}

HOST_DEVICE void acc_add_group(long long *d, int stride, const elem4_t *v, unsigned *flags, window_t *w)
{
    long long s = 0;
    int p = 0;
    int kind = group_sum(v, &s, &p);
    if (kind == GROUP_EXACT) {
        int q = p >> 5, r = p & 31;
        if (q != w->q) {
            window_flush(w, d, stride);
            w->q = q;
        }
        unsigned long long low = (unsigned long long)s << r;   // as acc_add
        w->w0 += (unsigned)low;
        w->w1 += (unsigned)(low >> 32);
        w->w2 += ((s >> 32) << r) >> 32;
        *flags |= SAW_NOT_NEG_ZERO;
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
