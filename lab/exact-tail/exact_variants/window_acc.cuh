// window_acc: thread_accumulate with the register window of window_add.cuh.
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned flags = 0;
    window_t w = { 0, 0, 0, -1 };
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
        acc_add_group(d, stride, v, &flags, &w);
    }
    window_flush(&w, d, stride);
    return flags;
}
