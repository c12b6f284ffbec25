/* bysize.cu: step 08's order with the schedule chosen by n, in one kernel.
 *
 * The question (lab/fixed-order/README.md, "What is left"): how close does one
 * kernel come to step 07 if it picks, by n alone, the fastest schedule of the
 * order that variants.sh found? Up to 512 chunks (2^21 elements) a block sums
 * a chunk (staged_sums: every thread loads two vectors at once and reduces each
 * to (x + y) + (z + w) in shared memory; warp 0 adds them in lane_sum's
 * sequence and tree); above, a warp a chunk, as step 08. In both, the last
 * block sums the levels as combine does, but the last level (one chunk) with
 * the whole block's loads. The same additions in the same order: the harness
 * checks every run against the CPU replica. Built and timed by variants.sh.
 */
#include "../../common/harness.h"
#include "../../steps/fixed_order.cuh"             // CHUNK, chunk_sum, sum_chunks, combine: the order

// ---- kernels ----------------------------------------------------------------
// [begin staged]
// Sums of up to 512 chunks (2^21 elements) are too few chunks to keep the GPU
// busy at a warp each: 2^16 elements are 16 chunks, 16 warps. There a block
// takes a chunk: its threads reduce the chunk's vectors, two each at once, to
// (x + y) + (z + w) in shared memory; then warp 0 adds those 1024 values as
// lane_sum does (lane l: vectors l, l + 32, ..., in sequence) and in chunk_sum's
// tree. The same additions in the same order: the same bits, with every load
// of the chunk in flight at once. The schedule is free; the order is not.
#ifndef ONE_FENCE                         // -DONE_FENCE=1: thread 0 alone fences, after the barrier
#define ONE_FENCE 0
#endif
#ifndef STAGED_MAX                        // -DSTAGED_MAX=0: the last level alone (variants.sh)
#define STAGED_MAX (512 * (size_t)CHUNK)
#endif
#define VECS (CHUNK / 4)                  // vectors in a chunk: 1024

__device__ elem4_t vector_at(const elem_t *p, unsigned i, unsigned len)
{
    return 4 * i + 4 <= len ? ((const elem4_t *)p)[i] : tail_vector(p, i, len);
}

// Block b sums chunks first, first + stride, ... of from[0..m) into to[chunk],
// or into *out when there is only one chunk, as sum_chunks does with warps.
__device__ void staged_sums(cg::thread_block block, elem_t *stage, const elem_t *from, size_t m,
                            elem_t *to, elem_t *out, size_t first, size_t stride)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned t = block.thread_rank(), b = block.size();
    size_t chunks = (m + CHUNK - 1) / CHUNK;
    for (size_t c = first; c < chunks; c += stride) {
        const elem_t *p = from + c * CHUNK;
        unsigned len = m - c * CHUNK < CHUNK ? (unsigned)(m - c * CHUNK) : CHUNK;
        for (unsigned i = t; i < VECS; i += 2 * b) {       // two loads in flight a thread
            unsigned j = i + b < VECS ? i + b : i;          // (blocks of 1024: one, twice)
            elem4_t x = vector_at(p, i, len), y = vector_at(p, j, len);
            stage[i] = (x.x + x.y) + (x.z + x.w);
            stage[j] = (y.x + y.y) + (y.z + y.w);
        }
        block.sync();                                       // the chunk's 1024 values are in stage
        if (warp.meta_group_rank() == 0) {
            elem_t sum = 0;
            for (int k = 0; k < PER_LANE; k++)
                sum += stage[warp.thread_rank() + LANES * k];
            for (int offset = LANES / 2; offset > 0; offset /= 2)
                sum += warp.shfl_down(sum, offset);
            if (warp.thread_rank() == 0)
                *(chunks == 1 ? out : to + c) = sum;
        }
        block.sync();                                       // stage is read: the next chunk may write it
    }
}
// [end staged]

// [begin kernel]
// Up to STAGED_MAX elements block b sums chunks b, b + grid, ...; above, warp w
// of the grid sums chunks w, w + warps, ... into sums[chunk]. Then the last
// block to finish (step 06's ticket) or the only one sums them, level after
// level as combine does, the last level (one chunk) with the block's loads.
__global__ void reduce_kernel(const elem_t *in, size_t n, elem_t *sums, unsigned *blocks_done,
                              elem_t *out)
{
    __shared__ bool is_last;
    __shared__ elem_t stage[VECS];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t warps = (size_t)gridDim.x * warp.meta_group_size();
    if (n <= STAGED_MAX)
        staged_sums(block, stage, in, n, sums, out, blockIdx.x, gridDim.x);
    else
        sum_chunks(warp, in, n, sums, out, (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank(),
                   warps);
    if (n <= CHUNK) return;                   // one chunk: its block wrote *out
#if !ONE_FENCE
    if (gridDim.x > 1)
        __threadfence();                      // release: this thread's chunk sums before the ticket
#endif
    block.sync();                             // every chunk sum of this block is written
    if (block.thread_rank() == 0) {
#if ONE_FENCE
        if (gridDim.x > 1)
            __threadfence();                  // release, cumulative: the block's sums, seen through the barrier
#endif
        is_last = gridDim.x == 1 || atomicAdd(blocks_done, 1) == gridDim.x - 1;
        if (is_last && gridDim.x > 1)
            __threadfence();                  // acquire: the tickets before the chunk sums
    }
    block.sync();                             // share is_last (and what thread 0 saw)
    if (!is_last) return;
    size_t m = (n + CHUNK - 1) / CHUNK;
    for (elem_t *level = sums; m > 1; m = (m + CHUNK - 1) / CHUNK) {
        elem_t *next = level + (m + 3) / 4 * 4;
        if (m <= CHUNK)                       // the last level: one chunk, the block's loads at once
            staged_sums(block, stage, level, m, next, out, 0, 1);
        else
            sum_chunks(warp, level, m, next, out, warp.meta_group_rank(), warp.meta_group_size());
        block.sync();                         // this level is written: the next may read it
        level = next;
    }
    if (gridDim.x > 1 && block.thread_rank() == 0)
        *blocks_done = 0;                     // every ticket drawn: ready for the next launch
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// As many blocks as fit on the GPU at once, no more warps than chunks. Any
// other grid gives the same bits (try --grid).
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t chunks = div_up(L->n, CHUNK);     // a block a chunk up to STAGED_MAX, else a warp a chunk
    size_t needed = L->n <= STAGED_MAX ? chunks : div_up(chunks, (size_t)L->block / LANES);
    return min_size(resident, needed);
}

// The sums of every level that has more than one, each 16-byte aligned.
static size_t scratch_size(const launch_t *L)
{
    size_t elems = 0;
    for (size_t m = div_up(L->n, CHUNK); m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    elem_t *sums = (elem_t *)L->scratch;
    unsigned *blocks_done = (unsigned *)L->state;     // zero between launches
    reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, sums, blocks_done, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const step_t step = {
    .name = "08_bysize",
    .technique = "step 08's order, a block a chunk up to 2^21, the last level by the block",
    .deterministic = 1,
    .combine = COMBINE_FIXED_ORDER,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_bytes = sizeof(unsigned),
    .chunk = CHUNK,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_step(argc, argv, &step); }
