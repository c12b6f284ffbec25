/* cub_sum.cu: the library baseline, cub::DeviceReduce::Sum, on the course harness.
 *
 *     make bench && ./build/bench/cub_sum --n 2^24
 *
 * CUB (part of NVIDIA's CCCL, shipped with the CUDA Toolkit) is what a reader
 * would use instead of writing a reduction. Wrapped as a step, it gets the same
 * input, checks, warm-up, timing and report as steps 00-07. Its temporary
 * storage is the step's scratch, allocated once by the harness before timing.
 *
 * CUB is given its fastest form: 32-bit item counts when n fits (64-bit
 * offsets cost it some index arithmetic), 64-bit otherwise.
 */
#include <climits>
#include <cub/device/device_reduce.cuh>

#include "../common/harness.h"

// CUB picks its own grid and block; the harness needs a number for the report.
static size_t grid_size(const launch_t *L)
{
    (void)L;
    return 1;
}

// Run with d_temp_storage == nullptr, CUB only says how much it needs.
static size_t scratch_size(const launch_t *L)
{
    size_t bytes = 0;
    if (L->n <= INT_MAX)
        CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, (const elem_t *)nullptr,
                                          (elem_t *)nullptr, (int)L->n));
    else
        CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, (const elem_t *)nullptr,
                                          (elem_t *)nullptr, L->n));
    return bytes;
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    size_t bytes = scratch_size(L);
    if (L->n <= INT_MAX)
        CUDA_CHECK(cub::DeviceReduce::Sum(L->scratch, bytes, d_in, d_out, (int)L->n, stream));
    else
        CUDA_CHECK(cub::DeviceReduce::Sum(L->scratch, bytes, d_in, d_out, L->n, stream));
}

static const step_t step = {
    .name = "cub",
    .technique = "cub::DeviceReduce::Sum (CUDA Toolkit)",
    .deterministic = 1,       // documented as run-to-run deterministic; the harness checks
    .combine = COMBINE_UNKNOWN,
    .block_rule = BLOCK_NONE,
    .default_block = 0,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
