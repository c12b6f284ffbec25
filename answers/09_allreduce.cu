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
 * all_reduce takes the place of step 09's gather.
 *
 * Changed functions: local, sums_size, total.
 */
#include <nccl.h>

#include "../common/multi/multi.h"
#include "../steps/fixed_order.cuh"    // step 08's order: first_level, combine
#include "nccl_comms.cuh"              // step 09's communicators: connect, disconnect, comm_error

// ---- kernels ----------------------------------------------------------------
// [begin kernel]
// A shard's chunk sums into sums[chunk], as step 08's first level does.
__global__ void shard_kernel(const elem_t *in, size_t n, elem_t *sums)
{
    first_level(cg::this_thread_block(), in, n, sums, sums);
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

// ---- NCCL --------------------------------------------------------------------
// [begin nccl]
// The communicators are step 09's (answers/nccl_comms.cuh): connect, disconnect,
// comm_error.

// Phase 2: the ranks' totals added by NCCL, in NCCL's order.
static void all_reduce(const team_t *t, const rank_t *R, const cudaStream_t *stream)
{
#ifdef REDUCE_EXACT
    ncclDataType_t type = ncclUint32;
#else
    ncclDataType_t type = ncclFloat32;
#endif
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < t->local; i++)
        NCCL_CHECK(ncclAllReduce(R[i].sums, R[i].sums, 1, type, ncclSum, comms[i], stream[i]));
    NCCL_CHECK(ncclGroupEnd());
}
// [end nccl]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
// As in step 08, for a shard of L->n elements.
static size_t grid_size(const launch_t *L)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, shard_kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    return min_size(resident, first_level_blocks(L->n, L->block));
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
static void local(const elem_t *d_shard, const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    (void)d_out;                              // the total comes in phase 3
    elem_t *sums = (elem_t *)R->sums;
    if (R->L.n == 0) {                        // an empty shard adds nothing
        CUDA_CHECK(cudaMemsetAsync(sums, 0, sizeof(elem_t), stream));
        return;
    }
    size_t chunks = div_up(R->L.n, CHUNK);
    shard_kernel<<<R->L.grid, R->L.block, 0, stream>>>(d_shard, R->L.n, sums + 4);
    CUDA_CHECK(cudaGetLastError());
    total_kernel<<<1, R->L.block, 0, stream>>>(sums + 4, chunks, sums);
    CUDA_CHECK(cudaGetLastError());
}

// Phase 3: the all-reduce's result is the total.
static void total(const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemcpyAsync(d_out, R->sums, sizeof(elem_t), cudaMemcpyDeviceToDevice, stream));
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "09_allreduce",
    .technique = "step 09 with ncclAllReduce of the shards' totals",
    .combine = COMBINE_FIXED_ORDER,
    .chunk = CHUNK,
    .default_block = 512,
    .grid_size = grid_size,
    .sums_size = sums_size,
    .connect = connect,
    .disconnect = disconnect,
    .comm_error = comm_error,
    .local = local,
    .collective = all_reduce,
    .total = total,
};

int main(int argc, char **argv) { return run_multi(argc, argv, &step); }
