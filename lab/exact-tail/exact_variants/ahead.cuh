// ahead1, ahead2: chunks as in chunks.cuh (warp w of the grid's warps takes
// chunks w, w + warps, ...; lane l's group is vectors l, l + 32, ..., l + 224),
// and before a warp loads a chunk, its lane 0 asks L2 for the warp's chunk
// AHEAD turns later with one bulk prefetch of 4 KB (cp.async.bulk.prefetch.L2,
// sm_90): the memory has the warp's next chunks to work on while its lanes add,
// without registers, shared memory or a request for each load.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
    unsigned flags = 0;
    size_t lane = rank % 32, chunk = rank / 32, chunks = threads / 32;
    size_t vectors = n / 4, whole = vectors / (32 * GROUP_VECTORS);   // chunks with no end in them
    const elem4_t *p = (const elem4_t *)in + chunk * 32 * GROUP_VECTORS + lane;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const elem4_t *first = (const elem4_t *)in + chunk * 32 * GROUP_VECTORS;
    if (lane == 0)                                       // the turns before the first AHEAD
        for (int a = 1; a < AHEAD; a++)
            if (chunk + a * chunks < whole)
                asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;"
                             :: "l"(first + a * chunks * 32 * GROUP_VECTORS), "n"(32 * GROUP_VECTORS * 16));
#endif
    for (; chunk < whole; chunk += chunks, p += chunks * 32 * GROUP_VECTORS) {
        elem4_t v[GROUP_VECTORS];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (lane == 0 && chunk + AHEAD * chunks < whole)
            asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;"
                         :: "l"(p + AHEAD * chunks * 32 * GROUP_VECTORS), "n"(32 * GROUP_VECTORS * 16));
#endif
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
