/* late_null.cu: a kernel that is right three times, then stores through a
 * null pointer, on purpose.
 *
 * Step 03's algorithm. The launcher counts its launches; from the fourth on
 * it passes the kernel a pointer to address 16 instead of the result, and
 * thread 0 of every block stores there. Page 0 is never mapped, so the store
 * faults. The first three launches are the checked run, the warm-up and the
 * first timed run, so the fault happens inside a batch of timed runs, queued
 * behind the harness's gate.
 *
 * The harness must stop there, with exit 3 and one line that names the
 * program and says its GPU work failed during the timed runs, and not hang
 * with the gate closed (tests/faults.sh).
 */
#include <stdint.h>

#include "../../common/harness.h"

__device__ elem_t warp_sum(elem_t v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out)
{
    __shared__ elem_t warp_sums[32];
    size_t stride = (size_t)gridDim.x * blockDim.x;
    elem_t v = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        v += in[i];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        v = warp_sum(v);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}

static size_t grid_size(const launch_t *L) { return min_size(div_up(L->n, L->block), 4 * (size_t)L->sm_count); }

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    static int launches = 0;
    if (++launches > 3)
        d_out = (elem_t *)(uintptr_t)16;               // FAULT: a null-derived pointer
    else
        CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
}

static const step_t step = {
    .name = "fault_late_null",
    .technique = "FAULTS on purpose: a null store from the fourth launch on",
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
