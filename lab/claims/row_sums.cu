/* row_sums.cu: batched row sums, one block per row, written four ways (claim A).
 *
 *     make claims-programs && build/claims/row_sums_cg_tree --n 2^28 --grid 2^14
 *
 * A blog post writes a batched reduction (a sum per row, a block per row)
 * with Cooperative Groups twice, a shared-memory tree and warp shuffles, and
 * says both perform like the same algorithms without CG and reach about 94%
 * of peak bandwidth for large batches. All four, chosen when built:
 *
 *     -DWITH_CG   Cooperative Groups (this_thread_block, tiled_partition<32>,
 *                 cg::reduce), else threadIdx, __syncthreads, __shfl_down_sync
 *     -DSHUFFLE   warp shuffles, then one value per warp in shared memory;
 *                 else a tree over one value per thread in shared memory
 *     -DVEC4      16-byte loads, four in flight (step 02's front half, inside
 *                 the row), when every row starts 16-byte aligned
 *
 * n floats are rows of ceil(n / rows) elements, --grid rows (a block each):
 * `--n 2^28 --grid 2^14` is 16384 rows of 16384. Thread t adds elements t,
 * t + blockDim, ... of its row, the block reduces, thread 0 writes the row's
 * sum. One more block adds the row sums in a fixed order so that the harness
 * can check one number; that kernel (4 bytes read per row) is in the time.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "../../common/harness.h"

namespace cg = cooperative_groups;

#ifdef WITH_CG
#define API "cg"
#else
#define API "plain"
#endif
#ifdef SHUFFLE
#define REDUCTION "shfl"
#else
#define REDUCTION "tree"
#endif
#ifdef VEC4
#define LOADS "_vec"
#else
#define LOADS ""
#endif
#define LOADS_IN_FLIGHT 4   // with VEC4: independent 16-byte loads per thread per round
#define DEFAULT_ROW 4096    // elements per row without --grid

// ---- the thread's share of a row --------------------------------------------
// Elements t, t + threads, ... of row[0..len): scalar loads, any alignment.
__device__ elem_t share_scalar(const elem_t *row, size_t len, unsigned t, unsigned threads)
{
    elem_t sum = 0;
    for (size_t j = t; j < len; j += threads)
        sum += row[j];
    return sum;
}

// The same with 16-byte vectors, LOADS_IN_FLIGHT issued before any is added,
// then the last len % 4 elements; row must be 16-byte aligned.
__device__ elem_t share_vec4(const elem_t *row, size_t len, unsigned t, unsigned threads)
{
    const elem4_t *row4 = (const elem4_t *)row;
    size_t n4 = len / 4, i = t;
    elem_t sum = 0;
    for (; i + (LOADS_IN_FLIGHT - 1) * threads < n4; i += LOADS_IN_FLIGHT * threads) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = row4[i + k * threads];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < n4; i += threads) {
        elem4_t v = row4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (t < len - n4 * 4)                   // a short last row's last elements
        sum += row[n4 * 4 + t];
    return sum;
}

// This thread's share of a row of len elements (the last row may be shorter,
// mine); with VEC4, 16-byte loads when every row starts 16-byte aligned.
__device__ elem_t row_share(const elem_t *row, size_t mine, size_t len, unsigned t, unsigned threads)
{
#ifdef VEC4
    if (len % 4 == 0)                       // rows start at multiples of 16 bytes
        return share_vec4(row, mine, t, threads);
#else
    (void)len;
#endif
    return share_scalar(row, mine, t, threads);
}

// ---- the block's sum, four ways ---------------------------------------------
// Each returns the sum of v over the block, valid in thread 0. partial[] is
// blockDim.x elements of shared memory (only the trees use it all); the block
// size is a power of two from 32 to 1024.
#if defined(WITH_CG) && !defined(SHUFFLE)
__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    partial[t] = v;
    block.sync();
    for (unsigned stride = block.size() / 2; stride > 0; stride /= 2) {
        if (t < stride)
            partial[t] += partial[t + stride];
        block.sync();                       // a level ends before the next reads it
    }
    return partial[0];
}
#elif defined(WITH_CG)
__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<elem_t>());
    if (tile.thread_rank() == 0)
        partial[tile.meta_group_rank()] = v;
    block.sync();                           // every tile's sum is written
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<elem_t>());
    }
    return v;
}
#elif !defined(SHUFFLE)
__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    unsigned t = threadIdx.x;
    partial[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            partial[t] += partial[t + stride];
        __syncthreads();                    // a level ends before the next reads it
    }
    return partial[0];
}
#else
__device__ elem_t warp_sum(elem_t v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__device__ elem_t block_sum(elem_t v, elem_t *partial)
{
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();                        // every warp's sum is written
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? partial[lane] : 0;
        v = warp_sum(v);
    }
    return v;
}
#endif

// ---- kernels ------------------------------------------------------------------
// Block r writes the sum of row r, in[r len .. min((r + 1) len, n)).
__global__ void row_sums_kernel(const elem_t *in, size_t n, size_t len, elem_t *row_sums)
{
    extern __shared__ elem_t partial[];
    size_t row = blockIdx.x, first = row * len;
    size_t mine = first >= n ? 0 : n - first < len ? n - first : len;   // the last rows may be short
    elem_t total = block_sum(row_share(in + first, mine, len, threadIdx.x, blockDim.x), partial);
    if (threadIdx.x == 0)
        row_sums[row] = total;
}

// One block adds the row sums in a fixed order (as pass 2 of step 05).
__global__ void final_kernel(const elem_t *row_sums, size_t rows, elem_t *out)
{
    extern __shared__ elem_t partial[];
    elem_t total = block_sum(share_scalar(row_sums, rows, threadIdx.x, blockDim.x), partial);
    if (threadIdx.x == 0)
        *out = total;
}

// ---- launcher ---------------------------------------------------------------
static size_t grid_size(const launch_t *L)
{
    return div_up(L->n, DEFAULT_ROW);
}

static size_t scratch_size(const launch_t *L)
{
    return L->grid * sizeof(elem_t);        // one sum per row
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *row_sums = (elem_t *)L->scratch;
    size_t len = div_up(L->n, L->grid), shared = L->block * sizeof(elem_t);
    row_sums_kernel<<<L->grid, L->block, shared, stream>>>(d_in, L->n, len, row_sums);
    CUDA_CHECK(cudaGetLastError());
    final_kernel<<<1, L->block, shared, stream>>>(row_sums, L->grid, d_out);
    CUDA_CHECK(cudaGetLastError());
}

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "row_sums_" API "_" REDUCTION LOADS,
    .technique = "batched row sums, a block per row (--grid rows): " API ", " REDUCTION LOADS,
    .deterministic = 1,
    .combine = COMBINE_TREE,
    .block_rule = BLOCK_POW2,
    .default_block = 256,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
