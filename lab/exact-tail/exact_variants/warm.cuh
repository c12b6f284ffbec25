// warm: the block runs its ending once while its first loads are in flight
// (block_words, the carries and the rounding, on zero digits), so that the
// instructions of the ending are in the multiprocessor's instruction cache
// when the stream ends, instead of fetched then through a memory system that
// the other multiprocessors keep busy. The kernel passes the ending as warm.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
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

#ifdef __CUDACC__
// The same, with warm() called once by every thread after its first group's
// loads are issued. The next group's loads are issued at the bottom of the loop.
template <typename Warm>
__device__ unsigned thread_accumulate_warm(const elem_t *in, size_t n, size_t rank, size_t threads,
                                           long long *d, int stride, Warm warm)
{
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned flags = 0;
    size_t i = rank;
    elem4_t v[GROUP_VECTORS];
    bool whole = 4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n;
    if (whole) {
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = in4[i + k * threads];
    }
    warm();
    for (; 4 * i < n; ) {
        if (!whole) {
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = load_vector(in, n, i + k * threads);
        }
        acc_add_group(d, stride, v, &flags);
        i += GROUP_VECTORS * threads;
        whole = 4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n;
        if (whole) {
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = in4[i + k * threads];
        }
    }
    return flags;
}
#endif
