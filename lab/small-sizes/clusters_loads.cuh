/* clusters_loads.cuh: one thread's share of the sum, for clusters.cu,
 * two ways: 16-byte loads into registers, as step 07 does (thread_sum, from
 * thread_sum.cuh),
 * or the same vectors in the same order copied through shared memory with
 * cg::memcpy_async (thread_sum_async, the clusters_async build), so that the
 * two give the same bits and differ only in how the bytes arrive.
 *
 * cg::memcpy_async(group, dst, src, bytes) has the group's threads start
 * copies from global to shared memory (LDGSTS on sm_80 and newer: the bytes
 * go to shared memory without passing through registers) and commits them as
 * one batch; cg::wait_prior<N>(group) waits until at most the N newest
 * batches are still on their way, then synchronises the group; cg::wait is
 * wait_prior<0>.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

#include "../../common/harness.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4    // 16-byte loads (or chunks of the block's) in flight per thread
#ifndef ASYNC_LOADS
#define ASYNC_LOADS 0        // 1: thread_sum_async instead of thread_sum
#endif

#include "thread_sum.cuh"     // thread_sum: 16-byte loads into registers

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

// Vectors [start, start + BLOCK) of in4, those below n4, copied by the block
// into slot and committed as one batch (an empty one past the end, so that
// every thread counts the same batches).
template <int BLOCK>
__device__ void copy_chunk(cg::thread_block block, elem4_t *slot, const elem4_t *in4, size_t start,
                           size_t n4)
{
    size_t count = start >= n4 ? 0 : n4 - start < (size_t)BLOCK ? n4 - start : BLOCK;
    cg::memcpy_async(block, slot, in4 + (count ? start : 0), count * sizeof(elem4_t));
}

// [begin thread_sum_async]
// thread_sum's vectors, in its order: chunk j of the block is its
// threads' j-th vectors, BLOCK of them side by side. LOADS_IN_FLIGHT chunks
// are on their way at a time, in a ring of LOADS_IN_FLIGHT + 1 slots of
// dynamic shared memory; thread t adds vector t of each chunk that arrives.
template <int BLOCK>
__device__ elem_t thread_sum_async(cg::thread_block block, const elem_t *in, size_t n)
{
    extern __shared__ elem4_t slot[];
    const size_t SLOTS = LOADS_IN_FLIGHT + 1;
    const elem4_t *in4 = (const elem4_t *)in;
    size_t n4 = n / 4, first = (size_t)blockIdx.x * BLOCK, step = (size_t)gridDim.x * BLOCK;
    size_t chunks = first < n4 ? (n4 - first + step - 1) / step : 0;
    for (size_t c = 0; c < LOADS_IN_FLIGHT; c++)
        copy_chunk<BLOCK>(block, slot + c * BLOCK, in4, first + c * step, n4);
    elem_t sum = 0;
    for (size_t j = 0; j < chunks; j++) {
        cg::wait_prior<LOADS_IN_FLIGHT - 1>(block);       // chunk j is in; and, a barrier, no
        size_t next = j + LOADS_IN_FLIGHT;                // thread still reads chunk j - 1,
        copy_chunk<BLOCK>(block, slot + next % SLOTS * BLOCK, in4, first + next * step, n4);
        if (first + j * step + threadIdx.x < n4) {        // whose slot the next chunk takes
            elem4_t v = slot[j % SLOTS * BLOCK + threadIdx.x];
            sum += (v.x + v.y) + (v.z + v.w);
        }
    }
    if (first + threadIdx.x < n - n4 * 4)
        sum += in[n4 * 4 + first + threadIdx.x];
    return sum;
}
// [end thread_sum_async]
#endif
