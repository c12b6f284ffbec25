/* oob_write.cu: a kernel that writes far out of bounds, on purpose.
 *
 * Step 03's algorithm, except that thread 0 of block 0 also stores its value
 * 2^60 elements past the result: an address (2^62 bytes on) that no GPU and
 * no process maps, so the store faults on every GPU, whatever else is in
 * memory. The index arrives as a kernel argument, so the compiler cannot see
 * it and drop the store.
 *
 * The fault must not pass for a result: the harness has to stop at the next
 * synchronisation, in the checked run, with exit 3 and one line that names
 * the program and says that its GPU work failed (tests/faults.sh).
 */
#include "../../common/harness.h"

__device__ elem_t warp_sum(elem_t v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *out, size_t far)
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
        if (threadIdx.x == 0) {
            atomicAdd(out, v);
            if (blockIdx.x == 0) out[far] = v;        // FAULT: far past the end
        }
    }
}

static size_t grid_size(const launch_t *L) { return min_size(div_up(L->n, L->block), 4 * (size_t)L->sm_count); }

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    const size_t far = (size_t)1 << 60;                // elements: 2^62 bytes on
    CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(elem_t), stream));
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out, far);
    CUDA_CHECK(cudaGetLastError());
}

static const step_t step = {
    .name = "fault_oob_write",
    .technique = "FAULTS on purpose: a store far out of bounds",
    .combine = COMBINE_ATOMIC_PER_BLOCK,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
