// async: each thread's next group copied into shared memory (cp.async) while it
// adds the one it has: 128 more bytes of shared memory a thread, no registers.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
#ifdef __CUDA_ARCH__
#include <cuda_pipeline.h>
#endif
// Thread `rank` of `threads`: its groups as the step's, but each one copied into
// shared memory (its slots after the block's digits, stage[k * blockDim.x]) while
// the thread adds the one before; the group the array ends in is loaded directly.
HOST_DEVICE unsigned thread_accumulate(const elem_t *in, size_t n, size_t rank, size_t threads,
                                       long long *d, int stride)
{
#ifdef __CUDA_ARCH__
    extern __shared__ long long smem[];
    elem4_t *stage = (elem4_t *)(smem + blockDim.x * DIGITS) + threadIdx.x;
    int sstride = blockDim.x;
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned flags = 0;
    size_t step = GROUP_VECTORS * threads, i = rank;
    if (4 * i < n && 4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n) {
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            __pipeline_memcpy_async(&stage[k * sstride], &in4[i + k * threads], 16);
    }
    __pipeline_commit();
    for (; 4 * i < n; i += step) {
        elem4_t v[GROUP_VECTORS];
        __pipeline_wait_prior(0);
        if (4 * (i + (GROUP_VECTORS - 1) * threads) + 4 <= n) {
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = stage[k * sstride];
        } else {
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                v[k] = load_vector(in, n, i + k * threads);
        }
        size_t j = i + step;
        if (4 * j < n && 4 * (j + (GROUP_VECTORS - 1) * threads) + 4 <= n) {
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                __pipeline_memcpy_async(&stage[k * sstride], &in4[j + k * threads], 16);
        }
        __pipeline_commit();
        acc_add_group(d, stride, v, &flags);
    }
    return flags;
#else
    (void)in; (void)n; (void)rank; (void)threads; (void)d; (void)stride;
    return 0;
#endif
}
