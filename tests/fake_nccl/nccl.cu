/* nccl.cu: the tests' stand-in for NCCL (see nccl.h), for G ranks that one
 * process drives on one GPU.
 *
 * Every rank has its own stream, so a collective is done the way the real
 * one behaves: every rank's stream waits until every rank has got there (a
 * barrier of events), the bytes move (copies; an all-reduce adds on rank 0's
 * stream with a small kernel, then every rank copies the result), and the
 * streams meet again before any rank may touch the buffers. Collectives of
 * several ranks must come inside ncclGroupStart/End, as with the real NCCL
 * in one thread; they run at ncclGroupEnd.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl.h"

#define MAX_RANKS 64

typedef enum { OP_NONE, OP_GATHER, OP_REDUCE } kind_t;
typedef struct {
    kind_t kind;
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t type;
    ncclRedOp_t op;
    cudaStream_t stream;
} op_t;

struct world {
    int nranks, posted;
    op_t ops[MAX_RANKS];
    void *tmp;
    size_t tmp_bytes;
};
struct ncclComm {
    int rank;
    struct world *w;
};

static int g_depth;                  /* ncclGroupStart nesting */
static struct world *g_pending;      /* the world with collectives posted in the group */
static char g_last[256];

static ncclResult_t fail(ncclResult_t r, const char *why)
{
    snprintf(g_last, sizeof g_last, "%s", why);
    return r;
}
#define CUDA_OR_FAIL(call) do { if ((call) != cudaSuccess) return fail(ncclUnhandledCudaError, #call); } while (0)

static size_t type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
    }
}

template <typename T>
__global__ void fold_kernel(T *acc, const T *x, size_t count, int max)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        acc[i] = max ? (x[i] > acc[i] ? x[i] : acc[i]) : acc[i] + x[i];
}

/* acc[i] = acc[i] (+ or max) x[i], on stream. */
static ncclResult_t fold(void *acc, const void *x, const op_t *o)
{
    int max = o->op == ncclMax, grid = 64;
    if (o->op != ncclSum && !max) return fail(ncclInvalidArgument, "only ncclSum and ncclMax");
    switch (o->type) {
    case ncclUint64: fold_kernel<<<grid, 256, 0, o->stream>>>((unsigned long long *)acc, (const unsigned long long *)x, o->count, max); break;
    case ncclInt64: fold_kernel<<<grid, 256, 0, o->stream>>>((long long *)acc, (const long long *)x, o->count, max); break;
    case ncclUint32: fold_kernel<<<grid, 256, 0, o->stream>>>((unsigned *)acc, (const unsigned *)x, o->count, max); break;
    case ncclFloat32: fold_kernel<<<grid, 256, 0, o->stream>>>((float *)acc, (const float *)x, o->count, max); break;
    case ncclFloat64: fold_kernel<<<grid, 256, 0, o->stream>>>((double *)acc, (const double *)x, o->count, max); break;
    default: return fail(ncclInvalidArgument, "this type is not reduced by the stand-in");
    }
    CUDA_OR_FAIL(cudaGetLastError());
    return ncclSuccess;
}

/* Every rank's stream waits for every other's work so far. */
static ncclResult_t barrier(struct world *w)
{
    cudaEvent_t ev[MAX_RANKS];
    for (int i = 0; i < w->nranks; i++) {
        CUDA_OR_FAIL(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
        CUDA_OR_FAIL(cudaEventRecord(ev[i], w->ops[i].stream));
    }
    for (int i = 0; i < w->nranks; i++)
        for (int j = 0; j < w->nranks; j++)
            if (i != j) CUDA_OR_FAIL(cudaStreamWaitEvent(w->ops[i].stream, ev[j], 0));
    for (int i = 0; i < w->nranks; i++) CUDA_OR_FAIL(cudaEventDestroy(ev[i]));
    return ncclSuccess;
}

static ncclResult_t move_bytes(struct world *w)
{
    const op_t *o = w->ops;
    size_t bytes = o[0].count * type_size(o[0].type);
    if (o[0].kind == OP_GATHER) {
        for (int i = 0; i < w->nranks; i++)
            for (int j = 0; j < w->nranks; j++) {
                char *to = (char *)o[i].recv + (size_t)j * bytes;
                if (to != o[j].send)
                    CUDA_OR_FAIL(cudaMemcpyAsync(to, o[j].send, bytes, cudaMemcpyDeviceToDevice, o[i].stream));
            }
        return ncclSuccess;
    }
    if (w->tmp_bytes < bytes) {
        CUDA_OR_FAIL(cudaFree(w->tmp));
        CUDA_OR_FAIL(cudaMalloc(&w->tmp, bytes));
        w->tmp_bytes = bytes;
    }
    CUDA_OR_FAIL(cudaMemcpyAsync(w->tmp, o[0].send, bytes, cudaMemcpyDeviceToDevice, o[0].stream));
    for (int j = 1; j < w->nranks; j++) {
        ncclResult_t r = fold(w->tmp, o[j].send, &o[0]);
        if (r != ncclSuccess) return r;
    }
    ncclResult_t r = barrier(w);              /* the total is ready on every stream */
    for (int i = 0; r == ncclSuccess && i < w->nranks; i++)
        CUDA_OR_FAIL(cudaMemcpyAsync(o[i].recv, w->tmp, bytes, cudaMemcpyDeviceToDevice, o[i].stream));
    return r;
}

/* Runs a world's collective once every rank has posted it. */
static ncclResult_t run(struct world *w)
{
    for (int i = 1; i < w->nranks; i++)
        if (w->ops[i].kind != w->ops[0].kind || w->ops[i].count != w->ops[0].count ||
            w->ops[i].type != w->ops[0].type || w->ops[i].op != w->ops[0].op)
            return fail(ncclInvalidUsage, "the ranks posted different collectives");
    ncclResult_t r = barrier(w);
    if (r == ncclSuccess) r = move_bytes(w);
    if (r == ncclSuccess) r = barrier(w);
    w->posted = 0;
    for (int i = 0; i < w->nranks; i++) w->ops[i].kind = OP_NONE;
    return r;
}

static ncclResult_t post(const op_t *o, ncclComm_t comm)
{
    struct world *w = comm->w;
    if (w->ops[comm->rank].kind != OP_NONE) return fail(ncclInvalidUsage, "two collectives of one rank in a group");
    if (g_pending && g_pending != w) return fail(ncclInvalidUsage, "two worlds in one group");
    w->ops[comm->rank] = *o;
    w->posted++;
    if (g_depth > 0) {
        g_pending = w;
        return ncclSuccess;
    }
    if (w->nranks > 1) return fail(ncclInvalidUsage, "a collective of several ranks outside a group");
    return run(w);
}

extern "C" {
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) { memset(id, 0, sizeof *id); return ncclSuccess; }
ncclResult_t ncclCommInitRank(ncclComm_t *, int, ncclUniqueId, int)
{
    return fail(ncclInvalidUsage, "the stand-in has no ranks in other processes");
}
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    (void)devlist;                            /* every rank on the GPU in use */
    if (ndev < 1 || ndev > MAX_RANKS) return fail(ncclInvalidArgument, "1 to 64 ranks");
    struct world *w = (struct world *)calloc(1, sizeof *w);
    if (!w) return fail(ncclSystemError, "out of host memory");
    w->nranks = ndev;
    for (int i = 0; i < ndev; i++) {
        comms[i] = (ncclComm_t)calloc(1, sizeof(struct ncclComm));
        if (!comms[i]) return fail(ncclSystemError, "out of host memory");
        comms[i]->rank = i;
        comms[i]->w = w;
    }
    return ncclSuccess;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    struct world *w = comm->w;
    if (--w->nranks == 0) { cudaFree(w->tmp); free(w); }     /* the last rank frees the world */
    free(comm);
    return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *e) { *e = ncclSuccess; return ncclSuccess; }
const char *ncclGetErrorString(ncclResult_t r) { return r == ncclSuccess ? "no error" : "stand-in NCCL error"; }
const char *ncclGetLastError(ncclComm_t) { return g_last; }
ncclResult_t ncclGroupStart(void) { g_depth++; return ncclSuccess; }
ncclResult_t ncclGroupEnd(void)
{
    if (g_depth == 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    if (--g_depth > 0 || !g_pending) return ncclSuccess;
    struct world *w = g_pending;
    g_pending = NULL;
    if (w->posted != w->nranks) return fail(ncclInvalidUsage, "a group without every rank's collective");
    return run(w);
}
ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t stream)
{
    op_t o = { OP_GATHER, send, recv, count, type, ncclSum, stream };
    return post(&o, comm);
}
ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream)
{
    op_t o = { OP_REDUCE, send, recv, count, type, op, stream };
    return post(&o, comm);
}
}
