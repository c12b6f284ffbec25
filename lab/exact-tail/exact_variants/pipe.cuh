// pipe: the next group's loads issued as soon as the group's sum and exponents
// are known, before its add into the digits (a slow group is added from the
// elements first).
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
// The group at vector i: 8 whole vectors, or padded past n.
HOST_DEVICE void load_group(const elem_t *in, size_t n, size_t i, size_t threads, elem4_t *v)
{
    const elem4_t *in4 = (const elem4_t *)in;
    if (4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n) {
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = in4[i + k * threads];
    } else {
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = load_vector(in, n, i + k * threads);
    }
}

HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    unsigned flags = 0;
    size_t step = GROUP_VECTORS * threads;
    elem4_t v[GROUP_VECTORS];
    if (4 * rank < n)
        load_group(in, n, rank, threads, v);
    for (size_t i = rank; 4 * i < n; i += step) {
#ifndef REDUCE_EXACT
        long long s = 0;
        int p = 0;
        int kind = group_sum(v, &s, &p);
        if (kind != GROUP_EXACT)
            acc_add_group(d, stride, v, &flags);     // the slow ways, from the elements
        if (4 * (i + step) < n)
            load_group(in, n, i + step, threads, v); // the next group's loads fly during the add
        if (kind == GROUP_EXACT) {
            acc_add(d, stride, s, p);
            flags |= SAW_NOT_NEG_ZERO;
        }
#else
        acc_add_group(d, stride, v, &flags);
        if (4 * (i + step) < n)
            load_group(in, n, i + step, threads, v);
#endif
    }
    return flags;
}
