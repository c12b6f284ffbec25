// dynamic1, dynamic4: the warps take the array's 4 KB chunks (as in chunks.cuh)
// from a counter in the grid's state, CLAIM at a time (1 unless the variant's sed
// defines it), instead of every so many by rank: a multiprocessor that streams
// faster takes more. Each warp's first take is its rank; it asks for the next
// while it adds the one it has.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
#ifndef CLAIM
#define CLAIM 1
#endif
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride, unsigned *next)
{
    unsigned flags = 0;
    size_t lane = rank % 32, warps = threads / 32, take = rank / 32;
    size_t vectors = n / 4, whole = vectors / (32 * GROUP_VECTORS);   // chunks with no end in them
    size_t chunks = (n + 4 * 32 * GROUP_VECTORS - 1) / (4 * 32 * GROUP_VECTORS);
    while (take * CLAIM < chunks) {
        unsigned t = 0;
#ifdef __CUDA_ARCH__
        if (lane == 0)
            t = atomicAdd(next, 1u);                      // the next take, while this one adds
#else
        t = (*next)++;
#endif
        for (size_t chunk = take * CLAIM; chunk < take * CLAIM + CLAIM && chunk < chunks; chunk++) {
            elem4_t v[GROUP_VECTORS];
            const elem4_t *p = (const elem4_t *)in + chunk * 32 * GROUP_VECTORS + lane;
            if (chunk < whole) {
                UNROLL
                for (int k = 0; k < GROUP_VECTORS; k++)
                    v[k] = p[32 * k];
            } else {
                UNROLL
                for (int k = 0; k < GROUP_VECTORS; k++)
                    v[k] = load_vector(in, n, chunk * 32 * GROUP_VECTORS + lane + 32 * k);
            }
            acc_add_group(d, stride, v, &flags);
        }
#ifdef __CUDA_ARCH__
        t = __shfl_sync(0xffffffffu, t, 0);
#endif
        take = warps + t;
    }
    return flags;
}
