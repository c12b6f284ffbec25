/* 09_multi_gpu.cu: one sum over several GPUs, with the same bits as step 08 on one.
 *
 *     make step09 && ./step09           every GPU of this machine, one process
 *     mpirun -np 2 ./step09             one process a GPU (how it spans machines)
 *
 * Changed since 08: where the chunks live. Rank r (a GPU) holds a run of whole
 * chunks of step 08's chunking (common/multi/shard.c) and computes their sums
 * with step 08's code; NCCL's all-gather gives every rank every chunk sum, in
 * chunk order; every rank sums them with step 08's combine. The same additions
 * in the same order as step 08, so the same bits, for any number of GPUs
 * (NCCL's all-reduce would add the ranks' partial sums in an order of its own).
 *
 * What is new is NCCL, all of it here: a communicator for each GPU, and one
 * collective a run, called for every GPU a process drives inside one group.
 * The harness starts the processes, hands out the GPUs, times the runs and
 * calls the three phases on every rank: local, collective, total.
 *
 * Changed functions: grid_size.
 */
#include <nccl.h>

#include "../common/multi/multi.h"
#include "fixed_order.cuh"             // step 08's order: first_level, combine

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
static ncclComm_t comms[MAX_GPUS];            // local rank i's communicator

// One process and every GPU: ncclCommInitAll makes their communicators at
// once. Under mpirun each process makes its own: rank 0 draws a unique id,
// the harness hands it to the others (MPI), and all join it at once.
static void connect(const team_t *t)
{
    if (!t->mpi) {
        NCCL_CHECK(ncclCommInitAll(comms, t->local, t->device));
        return;
    }
    ncclUniqueId id;
    if (t->first == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    team_share(t, &id, sizeof id);
    NCCL_CHECK(ncclCommInitRank(&comms[0], t->ranks, id, t->first));
}

// At the end, or on any error: ncclCommAbort also ends NCCL's kernels that
// still wait for a rank that is gone, so no process is left hanging.
static void disconnect(const team_t *t, int abort)
{
    for (int i = 0; i < t->local; i++) {
        if (!comms[i]) continue;
        if (abort) ncclCommAbort(comms[i]);
        else NCCL_CHECK(ncclCommDestroy(comms[i]));
        comms[i] = NULL;
    }
}

// Polled while the harness waits: a communicator's asynchronous error.
static const char *comm_error(const team_t *t)
{
    for (int i = 0; i < t->local; i++) {
        ncclResult_t r = ncclSuccess;
        if (comms[i]) ncclCommGetAsyncError(comms[i], &r);
        if (r != ncclSuccess && r != ncclInProgress) return ncclGetErrorString(r);
    }
    return NULL;
}

// Phase 2: every rank's chunk sums to every rank, in place. An all-gather
// moves bytes and adds nothing, so it needs no element type. One thread that
// drives several GPUs puts their calls in one group: each call waits for
// every rank, and the thread would otherwise wait in rank 0's call for rank
// 1's, which it has not made yet.
static void gather(const team_t *t, const rank_t *R, const cudaStream_t *stream)
{
    size_t bytes = R[0].per_rank * sizeof(elem_t);
    NCCL_CHECK(ncclGroupStart());
    for (int i = 0; i < t->local; i++) {
        elem_t *sums = (elem_t *)R[i].sums;
        NCCL_CHECK(ncclAllGather(sums + R[i].rank * R[i].per_rank, sums, bytes, ncclUint8,
                                 comms[i], stream[i]));
    }
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

// Every rank's slots, then every level above them, each 16-byte aligned.
static size_t sums_size(const rank_t *R)
{
    size_t elems = div_up((size_t)R->ranks * R->per_rank, 4) * 4;
    for (size_t m = R->chunks; m > 1; m = div_up(m, CHUNK))
        elems += div_up(m, 4) * 4;
    return elems * sizeof(elem_t);
}

// Phase 1: this shard's chunk sums, into this rank's slots.
static void local(const elem_t *d_shard, const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    (void)d_out;                              // the total comes in phase 3
    if (R->L.n == 0)
        return;                               // an empty shard (n smaller than the GPUs)
    elem_t *slots = (elem_t *)R->sums + R->rank * R->per_rank;
    shard_kernel<<<R->L.grid, R->L.block, 0, stream>>>(d_shard, R->L.n, slots);
    CUDA_CHECK(cudaGetLastError());
}

// Phase 3: the total, the same on every rank.
static void total(const rank_t *R, elem_t *d_out, cudaStream_t stream)
{
    total_kernel<<<1, R->L.block, 0, stream>>>((elem_t *)R->sums, R->chunks, d_out);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const multi_step_t step = {
    .name = "09_multi_gpu",
    .technique = "step 08's order over GPUs: shards of whole chunks, all-gather, same combine",
    .combine = COMBINE_FIXED_ORDER,
    .chunk = CHUNK,
    .default_block = 512,
    .grid_size = grid_size,
    .sums_size = sums_size,
    .connect = connect,
    .disconnect = disconnect,
    .comm_error = comm_error,
    .local = local,
    .collective = gather,
    .total = total,
};

int main(int argc, char **argv) { return run_multi(argc, argv, &step); }
