// bulk: each warp's next 4 KB chunk copied by the copy engine (cp.async.bulk,
// sm_90) into the warp's buffer in shared memory while its lanes add the chunk
// before: loads in flight all the time, and no registers or L1 for them.
// Chunks as in chunks.cuh: warp w of the grid's warps takes w, w + warps, ...;
// lane l's group is vectors l, l + 32, ..., l + 224 of the chunk. 4 KB of
// buffer a warp (128 bytes a thread) after the block's digits, one mbarrier a
// warp. Below sm_90, the step's own loop.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE unsigned step_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                     long long *d, int stride)
{
    unsigned flags = 0;
    for (size_t i = rank; 4 * i < n; i += GROUP_VECTORS * threads) {
        elem4_t v[GROUP_VECTORS];
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = load_vector(in, n, i + k * threads);
        acc_add_group(d, stride, v, &flags);
    }
    return flags;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CHUNK_BYTES (32 * GROUP_VECTORS * 16)
// Lane 0: the barrier expects CHUNK_BYTES more, and the copy will bring them.
__device__ void bulk_copy(unsigned dst, const elem4_t *src, unsigned bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "n"(CHUNK_BYTES) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(src), "n"(CHUNK_BYTES), "r"(bar) : "memory");
}
// Every lane: until the barrier's phase `parity` has completed (the copy is in).
__device__ void bulk_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}
#endif

HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ long long smem[];
    __shared__ unsigned long long bars[32];
    unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    const elem4_t *buf = (const elem4_t *)(smem + blockDim.x * DIGITS) + w * 32 * GROUP_VECTORS;
    unsigned dst = (unsigned)__cvta_generic_to_shared(buf), bar = (unsigned)__cvta_generic_to_shared(&bars[w]);
    const elem4_t *in4 = (const elem4_t *)in;
    size_t chunk = rank / 32, warps = threads / 32, whole = n / (4 * 32 * GROUP_VECTORS);
    unsigned flags = 0, parity = 0;
    if (lane == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        if (chunk < whole)
            bulk_copy(dst, in4 + chunk * 32 * GROUP_VECTORS, bar);
    }
    __syncwarp();
    for (; chunk < whole; chunk += warps) {
        elem4_t v[GROUP_VECTORS];
        bulk_wait(bar, parity);
        parity ^= 1;
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            v[k] = buf[32 * k + lane];
        __syncwarp();                                    // every lane has read the buffer
        if (lane == 0 && chunk + warps < whole)
            bulk_copy(dst, in4 + (chunk + warps) * 32 * GROUP_VECTORS, bar);
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
#else
    return step_accumulate(in, n, rank, threads, d, stride);
#endif
}
