/* 09_multi_gpu.cu: one sum over several GPUs, with the same bits as step 08 on one.
 *
 *     make step09 && ./step09           every GPU of this machine, one process
 *     mpirun -np 2 ./step09             one process a GPU (how it spans machines)
 *
 * Changed since 08: where the chunks live. The array is split over G GPUs, a
 * rank each; rank r holds a run of whole chunks of step 08's chunking (the
 * harness deals them out: common/shard.c), so the chunk sums it computes with
 * step 08's code are the ones one GPU would compute. Then NCCL's all-gather
 * gives every rank every chunk sum, in chunk order, and every rank sums them
 * with step 08's combine: the same additions in the same order as step 08,
 * so the same bits, for any number of GPUs. (NCCL's all-reduce would add the
 * ranks' partial sums in an order of its own, which changes with G.)
 *
 * A rank's work comes in three phases, which the harness calls on every rank
 * (common/phases.c, grouping the NCCL calls of one process): local, gather, total.
 *
 * Changed functions: grid_size.
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
// [begin launcher]
// As in step 08, for a shard of L->n elements.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shard_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(div_up(L->n, CHUNK), (size_t)L->block / LANES);
    return min_size(resident, needed);
}

// Every rank's slots, then every level above them, each 16-byte aligned.
static size_t sums_size(const rank_t *R)
{
    size_t elems = div_up((size_t)R->ranks * R->per_rank, 4) * 4;
    for (size_t m = R->chunks; m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

// Phase 1: this shard's chunk sums, into this rank's slots.
static void local(const elem_t *d_shard, const rank_t *R, cudaStream_t stream)
{
    if (R->L.n == 0)
        return;                               // an empty shard (n smaller than the GPUs)
    shard_kernel<<<R->L.grid, R->L.block, 0, stream>>>(d_shard, R->L.n, R->sums + R->rank * R->per_rank);
    CUDA_CHECK(cudaGetLastError());
}

// Phase 2: every rank's slots to every rank, in place. An all-gather moves
// bytes and adds nothing, so it needs no element type.
static void gather(const rank_t *R, cudaStream_t stream)
{
    size_t bytes = R->per_rank * sizeof(elem_t);
    NCCL_CHECK(ncclAllGather(R->sums + R->rank * R->per_rank, R->sums, bytes, ncclUint8,
                             (ncclComm_t)R->comm, stream));
}

// Phase 3: the total, the same on every rank.
static void total(const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    total_kernel<<<1, R->L.block, 0, stream>>>(R->sums, R->chunks, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "09_multi_gpu",
    .technique = "step 08's order over GPUs: shards of whole chunks, all-gather, same combine",
    .chunk = CHUNK,
    .default_block = 512,
    .grid_size = grid_size,
    .sums_size = sums_size,
    .local = local,
    .gather = gather,
    .total = total,
};

int main(int argc, char **argv) { return run_multi(argc, argv, &step); }
