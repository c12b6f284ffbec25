// roll: a thread's loads roll from group to group: as soon as vector k of a
// group has gone into the group's ends and sum, vector k of the thread's next
// group is loaded into its registers, so that the next group is in flight
// while this one is added, with no registers more. A group that is not exact
// is read again, element by element (from L1 or L2), for the slow ways.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
#ifndef REDUCE_EXACT
// Element j of the group at vector i, padded past n.
HOST_DEVICE unsigned group_element(const elem_t *in, size_t n, size_t i, size_t threads, int j)
{
    size_t e = 4 * (i + (size_t)(j >> 2) * threads) + (j & 3);
    return e < n ? bits_of(in[e]) : bits_of(PAD);
}

HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    unsigned flags = 0;
    size_t step = GROUP_VECTORS * threads;
    elem4_t v[GROUP_VECTORS];
    if (4 * rank < n) {
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = load_vector(in, n, rank + k * threads);
    }
    for (size_t i = rank; 4 * i < n; i += step) {
        size_t next = i + step;
        bool more = 4 * next < n;
        unsigned hi = 0, lo = 0xffffffff;
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
            if (more)
                v[k] = load_vector(in, n, next + k * threads);    // vector k of the next group
        }
        int kind = group_kind(hi >> 1, lo);
        if (kind == GROUP_EXACT) {
            int p = (int)((lo + 2) >> 24) - 1;
            acc_add(d, stride, (long long)(sum * pow2(149 - p)), p);
            flags |= SAW_NOT_NEG_ZERO;
            continue;
        }
        for (int j = 0; j < 4 * GROUP_VECTORS; j++) {         // the slow ways, read again
            unsigned u = group_element(in, n, i, threads, j);
            if (kind == GROUP_WIDE) {
                flags |= SAW_NOT_NEG_ZERO;
                acc_add_float(d, stride, u);
            } else {
                flags |= special_flags(u);
                acc_add_float(d, stride, (u & POS_INF_BITS) == POS_INF_BITS ? 0 : u);
            }
        }
        acc_carry(d, stride);
    }
    return flags;
}
#else
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned flags = 0;
    for (size_t i = rank; 4 * i < n; i += GROUP_VECTORS * threads) {
        elem4_t v[GROUP_VECTORS];
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = load_vector(in, n, i + k * threads);
        acc_add_group(d, stride, v, &flags);
    }
    (void)in4;
    return flags;
}
#endif
