/* 09_allreduce.cu: step 09 with NCCL's all-reduce instead of the all-gather
 * (the answer to exercise 1 of the step 09 chapter).
 *
 *     make answers && ./build/answers/09_allreduce --gpus 1 --check-only --n 10^8+7
 *
 * Each rank sums its whole shard (step 08's order, on the shard: its chunk
 * sums, then step 08's combine), and ncclAllReduce adds the ranks' totals.
 * On one GPU the shard is the array and the all-reduce of one value is that
 * value: step 08's bits. On two GPUs the last additions are (shard 0's total)
 * + (shard 1's total), where step 08 adds the chunk sums in its own tree: a
 * correct sum, within its bound, and the same bits run after run on one
 * machine, but other bits than step 08's, and other again for three GPUs. The
 * harness compares every result with the CPU replica of step 08's order and
 * says so ("the CPU replica of the order ... ulp apart"), so with G > 1 this
 * program reports WRONG, which is the answer.
 *
 * Changed functions: gather, local, sums_size, total.
 */
#include <cooperative_groups.h>
#include <nccl.h>

#include "../common/harness.h"

namespace cg = cooperative_groups;

#define CHUNK 4096                        // elements per chunk: part of the order, the same on every GPU
#define LANES 32
#define PER_LANE (CHUNK / (4 * LANES))    // 4-element vectors each lane adds: 32
#define LOADS_IN_FLIGHT 8                 // loads issued before the first add: speed only, not the order

// ---- kernels ----------------------------------------------------------------
// [begin chunk_sum]
// Vector i of p[0..len) where the chunk ends inside or before it: 0 past len.
__device__ elem4_t tail_vector(const elem_t *p, unsigned i, unsigned len)
{
    elem4_t v = { 0, 0, 0, 0 };           // v.w stays 0: 4 i + 3 < len is a whole vector
    if (4 * i + 0 < len) v.x = p[4 * i + 0];
    if (4 * i + 1 < len) v.y = p[4 * i + 1];
    if (4 * i + 2 < len) v.z = p[4 * i + 2];
    return v;
}

// Lane l's share of p[0..len): vectors l, l + 32, ..., l + 992, added in that
// sequence, each as (x + y) + (z + w). whole says that len == CHUNK, so that
// the compiler drops every comparison with len. p must be 16-byte aligned.
__device__ __forceinline__ elem_t lane_sum(const elem_t *p, unsigned lane, unsigned len, bool whole)
{
    const elem4_t *p4 = (const elem4_t *)p;
    elem_t sum = 0;
    for (int j = 0; j < PER_LANE; j += LOADS_IN_FLIGHT) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++) {
            unsigned i = lane + LANES * (j + k);
            v[k] = whole || 4 * i + 4 <= len ? p4[i] : tail_vector(p, i, len);
        }
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    return sum;
}

// The sum of p[0..len), len <= CHUNK, in the chunk's fixed order; valid in
// lane 0. The tree is written out: cg::reduce's is the library's to change.
__device__ elem_t chunk_sum(cg::thread_block_tile<32> warp, const elem_t *p, unsigned len)
{
    unsigned lane = warp.thread_rank();
    elem_t sum = len == CHUNK ? lane_sum(p, lane, CHUNK, true) : lane_sum(p, lane, len, false);
    for (int offset = LANES / 2; offset > 0; offset /= 2)
        sum += warp.shfl_down(sum, offset);       // lane l adds lane l + offset
    return sum;
}
// [end chunk_sum]

// [begin combine]
// One level: warps first, first + stride, ... sum the chunks of from[0..m),
// chunk c into to[c], or into *out when there is only one chunk.
__device__ void sum_chunks(cg::thread_block_tile<32> warp, const elem_t *from, size_t m,
                           elem_t *to, elem_t *out, size_t first, size_t stride)
{
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    for (size_t c = first; c < chunks; c += stride) {
        size_t left = m - c * CHUNK;
        elem_t s = chunk_sum(warp, from + c * CHUNK, left < CHUNK ? (unsigned)left : CHUNK);
        if (warp.thread_rank() == 0)
            *(chunks == 1 ? out : to + c) = s;
    }
}

// Sums m >= 2 chunk sums, level after level, in one block, into *out. Each
// level's sums follow the level below, 16-byte aligned. Step 09 runs this on
// chunk sums that came from other GPUs.
__device__ void combine(cg::thread_block block, elem_t *sums, size_t m, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {
        elem_t *next = level + (m + 3) / 4 * 4;
        sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());
        block.sync();                         // this level is written: the next may read it
        level = next;
    }
}
// [end combine]

// [begin kernel]
// A shard's chunk sums: warp w of the grid sums chunks w, w + warps, ... of
// in[0..n) into sums[chunk], as step 08's first level does.
__global__ void shard_kernel(const elem_t *in, size_t n, elem_t *sums)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t warps = (size_t)gridDim.x * warp.meta_group_size();
    sum_chunks(warp, in, n, sums, sums, (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank(),
               warps);
}

// Every chunk sum of the array into *out, in one block: step 08's levels.
__global__ void total_kernel(elem_t *sums, size_t chunks, elem_t *out)
{
    cg::thread_block block = cg::this_thread_block();
    if (chunks > 1)
        combine(block, sums, chunks, out);
    else if (block.thread_rank() == 0)
        *out = sums[0];                       // one chunk: its sum is the total
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// As in step 08, for a shard of L->n elements.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shard_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(div_up(L->n, CHUNK), (size_t)L->block / LANES);
    return min_size(resident, needed);
}

// sums[0]: the shard's total (then the all-reduce's); from sums[4]: the
// shard's chunk sums and the levels above them.
static size_t sums_size(const rank_t *R)
{
    size_t elems = 4 + div_up(R->per_rank, 4) * 4;
    for (size_t m = R->per_rank; m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

// Phase 1: the shard's total, in step 08's order on the shard.
static void local(const elem_t *d_shard, const rank_t *R, cudaStream_t stream)
{
    if (R->L.n == 0) {                        // an empty shard adds nothing
        CUDA_CHECK(cudaMemsetAsync(R->sums, 0, sizeof(elem_t), stream));
        return;
    }
    size_t chunks = div_up(R->L.n, CHUNK);
    shard_kernel<<<R->L.grid, R->L.block, 0, stream>>>(d_shard, R->L.n, R->sums + 4);
    CUDA_CHECK(cudaGetLastError());
    total_kernel<<<1, R->L.block, 0, stream>>>(R->sums + 4, chunks, R->sums);
    CUDA_CHECK(cudaGetLastError());
}

// Phase 2: the ranks' totals added by NCCL, in NCCL's order.
static void gather(const rank_t *R, cudaStream_t stream)
{
#ifdef REDUCE_EXACT
    ncclDataType_t type = ncclUint32;
#else
    ncclDataType_t type = ncclFloat32;
#endif
    NCCL_CHECK(ncclAllReduce(R->sums, R->sums, 1, type, ncclSum, (ncclComm_t)R->comm, stream));
}

// Phase 3: the all-reduce's result is the total.
static void total(const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemcpyAsync(d_out, R->sums, sizeof(elem_t), cudaMemcpyDeviceToDevice, stream));
}

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "09_allreduce",
    .technique = "step 09 with ncclAllReduce of the shards' totals",
    .chunk = CHUNK,
    .default_block = 512,
    .grid_size = grid_size,
    .sums_size = sums_size,
    .local = local,
    .gather = gather,
    .total = total,
};

int main(int argc, char **argv) { return run_multi(argc, argv, &step); }
