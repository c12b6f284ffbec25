// chunks: warp w of the grid's warps reads chunks w, w + warps, ...; a chunk is
// 32 lanes x 8 vectors, lane l's vectors l, l + 32, ..., l + 224: 4 KB a warp, its
// loads at constant offsets from one address.
// (bench/exact_variants.sh puts this in place of a block of step 10's accumulator)
// What pads a group past the end: -0 adds nothing and is no term other than -0.
#ifdef REDUCE_EXACT
#define PAD 0u
#else
#define PAD (-0.0f)
#endif

// Vector j of in[0..n), padded past n.
HOST_DEVICE elem4_t load_vector(const elem_t *in, size_t n, size_t j)
{
    if (4 * j + 4 <= n) return ((const elem4_t *)in)[j];
    elem4_t v = { PAD, PAD, PAD, PAD };
    if (4 * j + 0 < n) v.x = in[4 * j + 0];
    if (4 * j + 1 < n) v.y = in[4 * j + 1];
    if (4 * j + 2 < n) v.z = in[4 * j + 2];
    return v;
}

// Adds thread `rank` of `threads` share of in[0..n) to its digits, and
// returns its flags. Its groups are vectors i, i + threads, ...,
// i + 7 threads, for i = rank, rank + 8 threads, ...: each load coalesced
// across the warp, 8 in flight. Only a group that reaches the end of the
// array checks each index. in must be 16-byte aligned (cudaMalloc gives 256).
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
