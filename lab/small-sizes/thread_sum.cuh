/* thread_sum.cuh: one thread's share of the sum, with 16-byte loads in
 * flight, as step 07 reads: the front half of the lab programs that time
 * what happens after it (flag_sum.cu, clusters.cu,
 * latency.cu) and of the answers on flag words, written once so that
 * they all read the same way.
 *
 * Included after the harness (elem_t, elem4_t) and LOADS_IN_FLIGHT.
 */
#ifndef THREAD_SUM_CUH
#define THREAD_SUM_CUH

// [begin thread_sum]
// The sum of this thread's share of in[0..n): vectors i, i + stride,
// i + 2 stride, ... (i the thread's rank in the grid, stride the grid's
// threads), in whole rounds of LOADS_IN_FLIGHT loads, then one guarded round
// with all its loads still in flight (past the end: zeros, added exactly),
// then the last n % 4 elements. in must be 16-byte aligned. Valid in every
// thread.
template <int BLOCK>
__device__ elem_t thread_sum(const elem_t *in, size_t n)
{
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4, rank = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    size_t stride = (size_t)gridDim.x * BLOCK, i = rank;
    elem_t sum = 0;
    elem4_t v[LOADS_IN_FLIGHT];
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < n4; i += LOADS_IN_FLIGHT * stride) {
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = in4[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    #pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; k++)
        v[k] = i + k * stride < n4 ? in4[i + k * stride] : elem4_t{};
    #pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; k++)
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    if (rank < n - n4 * 4)
        sum += in[n4 * 4 + rank];
    return sum;
}
// [end thread_sum]
#endif
