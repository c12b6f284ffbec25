/* cub_gpu_to_gpu.cu: CUB's reproducible sum, the second baseline of step 08.
 *
 *     make bench && ./build/bench/cub_gpu_to_gpu --n 2^24
 *
 * cub::DeviceReduce::Sum with cuda::execution::determinism::gpu_to_gpu
 * required: the same bits on any GPU. For floats CUB gets there without
 * fixing an order: a reproducible floating-point accumulator puts every value
 * into a few bins by its exponent, where adding is exact, so the order in
 * which values arrive no longer matters. Step 08 gets there by fixing the
 * order instead. Both are timed here with the same harness.
 *
 * The mode exists only in CUB's environment API (CCCL 3.x headers newer than
 * the CUDA 13.0 toolkit's; `pip install nvidia-cuda-cccl` brings them, and
 * the Makefile finds them there). That API takes its temporary storage from a
 * memory resource, not from a pointer, and by default allocates and frees it
 * on every call (cudaMallocAsync, cudaFreeAsync): microseconds that the
 * classic API does not pay. To time only CUB's kernels, the environment here
 * holds a resource that hands out the harness's scratch, allocated once
 * before timing.
 */
#include <climits>
#include <new>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/execution>
#include <cuda/stream_ref>

#include "../common/harness.h"

// A memory resource that owns nothing: it hands out one buffer allocated
// elsewhere, and refuses (throws, which CUB turns into an error code) any
// request larger than that buffer. With no buffer it only records what was
// asked for: that is how scratch_size learns CUB's need.
struct one_buffer {
    void *base;
    size_t bytes;
    size_t *asked;    // where to record the largest request, or nullptr

    void *allocate_sync(size_t want, size_t)
    {
        if (asked && want > *asked) *asked = want;
        if (!base || want > bytes) throw std::bad_alloc();
        return base;
    }
    void deallocate_sync(void *, size_t, size_t) noexcept {}
    void *allocate(cuda::stream_ref, size_t want, size_t align) { return allocate_sync(want, align); }
    void deallocate(cuda::stream_ref, void *, size_t, size_t) noexcept {}
    bool operator==(const one_buffer &o) const { return base == o.base && bytes == o.bytes; }
    bool operator!=(const one_buffer &o) const { return !(*this == o); }
};

// The call, with an environment of three parts: the determinism required,
// the memory resource and the stream.
static cudaError_t g2g_sum(const elem_t *d_in, elem_t *d_out, size_t n, one_buffer mr,
                           cudaStream_t stream)
{
    auto need = cuda::execution::require(cuda::execution::determinism::gpu_to_gpu);
    auto memory = cuda::std::execution::prop{cuda::mr::get_memory_resource, mr};
    auto where = cuda::stream_ref{stream};
    cuda::std::execution::env<decltype(need), decltype(memory), decltype(where)> env{need, memory, where};
    if (n <= INT_MAX)                       // 32-bit counts where they fit, as for the default CUB
        return cub::DeviceReduce::Sum(d_in, d_out, (int)n, env);
    return cub::DeviceReduce::Sum(d_in, d_out, n, env);
}

// CUB picks its own grid and block; the harness needs a number for the report.
static size_t grid_size(const launch_t *L)
{
    (void)L;
    return 1;
}

// A call with a resource that has nothing to give fails at its allocation,
// before any kernel, and leaves the size it asked for (kept: the timed runs
// ask again).
static size_t scratch_size(const launch_t *L)
{
    static size_t last_n = 0, last_bytes = 0;
    if (L->n == last_n) return last_bytes;
    size_t asked = 0;
    cudaError_t err = g2g_sum(nullptr, nullptr, L->n, one_buffer{nullptr, 0, &asked}, nullptr);
    if (err != cudaErrorMemoryAllocation)
        CUDA_CHECK(err);                    // anything else is a real failure
    last_n = L->n;
    last_bytes = asked;
    return asked;
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    one_buffer mr{L->scratch, scratch_size(L), nullptr};
    CUDA_CHECK(g2g_sum(d_in, d_out, L->n, mr, stream));
}

static const step_t step = {
    .name = "cub_gpu_to_gpu",
    .technique = "cub::DeviceReduce::Sum, determinism gpu_to_gpu (CCCL 3.x)",
    .deterministic = 1,       // documented as the same bits on any GPU; the harness checks run to run
    .combine = COMBINE_UNKNOWN,
    .block_rule = BLOCK_NONE,
    .default_block = 0,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
