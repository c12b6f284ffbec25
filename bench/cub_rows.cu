/* cub_rows.cu: the library baseline of step 11, cub::DeviceSegmentedReduce::Sum,
 * one segment a row, on the rows harness.
 *
 *     make bench && ./build/bench/cub_rows --shape 4096x4096,16x2^20
 *     (built with -DFIXED_SIZE: ./build/bench/cub_rows_fixed, the same options)
 *
 * CUB's segmented reduction is what a reader would call instead of writing
 * step 11. It has two forms:
 *
 *   - offsets (every CCCL): segment s is [begin[s], end[s]). The offsets are
 *     not stored anywhere: an iterator computes begin[r] = r L from r, and
 *     end[r] = (r + 1) L is the same iterator one row on. CUB reduces each
 *     segment with one thread block, so a few long rows leave most of the
 *     GPU idle.
 *   - fixed-size segments (-DFIXED_SIZE; CCCL 3.1 or newer, documented from
 *     3.2, newer than the CUDA 13.0 toolkit's: the Makefile finds them as for
 *     cub_gpu_to_gpu): only R and L, the matrix's own description. CUB can
 *     then fit several short rows in a block, and (CCCL 3.4 on) split a long
 *     row over several blocks.
 *
 * Its temporary storage is the step's scratch, allocated once by the harness
 * before timing; CUB is documented as run-to-run deterministic on one GPU.
 */
#include <climits>
#include <cstdint>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/version>

#include "../common/rows/rows.h"

#ifdef FIXED_SIZE
#if CCCL_VERSION < 3001000
#error "-DFIXED_SIZE needs CCCL 3.1 or newer (DeviceSegmentedReduce::Sum with a fixed segment size): pip install nvidia-cuda-cccl, or -I the include folder of a newer CCCL (the one with cub/ and cuda/)"
#endif

// Sum(temp, bytes, in, out, int64_t num_segments, int segment_size, stream):
// the segment size is an int, so a row holds at most INT_MAX elements.
static cudaError_t row_sums(void *temp, size_t &bytes, const elem_t *d_in, elem_t *d_out,
                            const rows_launch_t *L, cudaStream_t stream)
{
    if (L->len > INT_MAX)
        device_fail("CUB's fixed-size segmented sum takes rows of at most 2^31-1 elements");
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, d_out, (int64_t)L->rows, (int)L->len,
                                           stream);
}
#else
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

// Row r begins at element r L: a functor, so the iterator needs no lambda flags.
template <typename OffsetT>
struct row_start {
    OffsetT len;
    __host__ __device__ OffsetT operator()(OffsetT r) const { return r * len; }
};

// CUB's index arithmetic is quicker in 32 bits; the offsets must be 64-bit
// once the last row's end, R L, no longer fits in an int.
template <typename OffsetT>
static cudaError_t row_sums_t(void *temp, size_t &bytes, const elem_t *d_in, elem_t *d_out,
                              const rows_launch_t *L, cudaStream_t stream)
{
    auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<OffsetT>(0),
                                                 row_start<OffsetT>{(OffsetT)L->len});
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, d_out, (int64_t)L->rows, begin, begin + 1,
                                           stream);
}

static cudaError_t row_sums(void *temp, size_t &bytes, const elem_t *d_in, elem_t *d_out,
                            const rows_launch_t *L, cudaStream_t stream)
{
    if (L->rows * L->len <= INT_MAX)
        return row_sums_t<int>(temp, bytes, d_in, d_out, L, stream);
    return row_sums_t<int64_t>(temp, bytes, d_in, d_out, L, stream);
}
#endif

// CUB picks its own grid and block; the harness needs a number for the report.
static size_t grid_size(const rows_launch_t *L)
{
    (void)L;
    return 1;
}

// Run with d_temp_storage == nullptr, CUB only says how much it needs.
static size_t scratch_size(const rows_launch_t *L)
{
    size_t bytes = 0;
    CUDA_CHECK(row_sums(nullptr, bytes, nullptr, nullptr, L, nullptr));
    return bytes;
}

static void reduce(const elem_t *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
{
    size_t bytes = scratch_size(L);
    CUDA_CHECK(row_sums(L->scratch, bytes, d_in, d_out, L, stream));
}

static const rows_step_t step = {
#ifdef FIXED_SIZE
    .name = "cub_segmented_fixed",
    .technique = "cub::DeviceSegmentedReduce::Sum, fixed-size segments",
#else
    .name = "cub_segmented",
    .technique = "cub::DeviceSegmentedReduce::Sum, offsets",
#endif
    .deterministic = 1,       // documented as run-to-run deterministic; the harness checks
    .combine = COMBINE_UNKNOWN,
    .chunk = 0,
    .block_rule = BLOCK_NONE,
    .default_block = 0,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_size = nullptr,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_rows(argc, argv, &step); }
