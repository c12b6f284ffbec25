/* nccl_comms.cuh: step 09's communicators, for the answers on several GPUs.
 *
 * Step 09 teaches NCCL's communicators: it makes one for each GPU (all at
 * once from one process, or one a process under mpirun from rank 0's unique
 * id), aborts them on any error and asks them for errors while the harness
 * waits. The answers that run step 10's sum on several GPUs (10_multi_gpu,
 * 10_round_ranks) need the same, word for word, and include them from here
 * (tests/alike.py holds them to step 09's). After <nccl.h> and multi.h.
 */
#ifndef NCCL_COMMS_CUH
#define NCCL_COMMS_CUH

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

#endif
