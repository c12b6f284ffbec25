// chunks: warp w of the grid's warps reads chunks w, w + warps, ...; a chunk is
// 32 lanes x 8 vectors, lane l's vectors l, l + 32, ..., l + 224: 4 KB a warp, its
// loads at constant offsets from one address.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    unsigned flags = 0;
    size_t lane = rank % 32, chunk = rank / 32, chunks = threads / 32;
    size_t vectors = n / 4, whole = vectors / (32 * GROUP_VECTORS);   // chunks with no end in them
    const elem4_t *p = (const elem4_t *)in + chunk * 32 * GROUP_VECTORS + lane;
    for (; chunk < whole; chunk += chunks, p += chunks * 32 * GROUP_VECTORS) {
        elem4_t v[GROUP_VECTORS];
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = p[32 * k];
        acc_add_group(d, stride, v, &flags);
    }
    if (chunk == whole && 4 * whole * 32 * GROUP_VECTORS < n) {   // the chunk the array ends in
        elem4_t v[GROUP_VECTORS];
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = load_vector(in, n, chunk * 32 * GROUP_VECTORS + lane + 32 * k);
        acc_add_group(d, stride, v, &flags);
    }
    return flags;
}
