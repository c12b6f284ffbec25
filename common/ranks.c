/* ranks.c: the ranks of a run on several GPUs and their communicators: the
 * one part of the harness that knows NCCL and MPI (step 09 only; steps 00-08
 * build and run without either).
 *
 *   starting    one process driving every GPU (ncclCommInitAll), or, under
 *               mpirun, one process a GPU, where MPI only says which rank a
 *               process is and passes NCCL's unique id; or virtual ranks on
 *               one GPU with no NCCL at all (for the tests)
 *   waiting     a watchdog in place of cudaStreamSynchronize: it also asks
 *               NCCL for errors, and gives up after WATCHDOG_S seconds, so a
 *               rank that died never leaves the others waiting
 *   agreeing    the largest of a few numbers over every rank
 *   stopping    communicators destroyed, or aborted on any way out
 *
 * NVLink multicast stays off (NCCL_NVLS_ENABLE=0 unless the caller set it).
 */
#define _POSIX_C_SOURCE 200809L    /* setenv, sigaction, nanosleep, clock_gettime */
#include <mpi.h>
#include <nccl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parts.h"

#define WATCHDOG_S 60              /* no GPU work of ours takes this long */

static team_t *g_team;             /* the exit hook aborts its communicators */

/* ---- failing -------------------------------------------------------------------- */
static void abort_comms(void)
{
    if (!g_team) return;
    for (int i = 0; i < g_team->local; i++)
        if (g_team->comm[i]) {
            ncclCommAbort((ncclComm_t)g_team->comm[i]);   /* ends NCCL's kernels too */
            g_team->comm[i] = NULL;
        }
}

void nccl_check(int result, const char *what, const char *file, int line)
{
    if (result == ncclSuccess || result == ncclInProgress) return;
    const char *last = ncclGetLastError(NULL);
    fprintf(stderr, "%s: %s failed at %s:%d: %s%s%s%s\n", g_step, what, file, line,
            ncclGetErrorString((ncclResult_t)result), last && *last ? " (" : "",
            last ? last : "", last && *last ? ")" : "");
    exit_cleanly(EXIT_DEVICE);
}

/* Under mpirun, a rank that fails ends the job: mpirun stops the others with
 * SIGTERM. Each says so in one line (only write() is safe in a handler). */
static char g_stopped[256];
static void stopped_from_outside(int sig)
{
    (void)sig;
    ssize_t w = write(STDERR_FILENO, g_stopped, strlen(g_stopped));
    (void)w;
    _exit(EXIT_DEVICE);
}

/* ---- starting ------------------------------------------------------------------- */
static void start_single(team_t *t, const options_t *opt)
{
    int count = count_devices();
    int g = opt->gpus ? opt->gpus : count;
    if (g > count || g > MAX_GPUS) {
        const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr, "%s: --gpus %d: this machine shows %d GPU%s%s\n", g_step, g, count,
                count == 1 ? "" : "s", cvd ? " (CUDA_VISIBLE_DEVICES is set)" : "");
        exit_cleanly(EXIT_DEVICE);
    }
    t->ranks = t->local = g;
    ncclComm_t comms[MAX_GPUS];
    for (int i = 0; i < g; i++) t->device[i] = i;
    ncclResult_t r = ncclCommInitAll(comms, g, t->device);
    if (r != ncclSuccess) {
        fprintf(stderr, "%s: NCCL could not set up %d communicator%s: %s\n", g_step, g,
                g == 1 ? "" : "s", ncclGetErrorString(r));
        exit_cleanly(EXIT_DEVICE);
    }
    for (int i = 0; i < g; i++) t->comm[i] = comms[i];
}

/* Every rank checks, then all agree; the lowest failing rank says why, in one
 * line, and every rank stops with the same status. */
static void agree_or_stop(const team_t *t, int status, const char *why)
{
    int worst = 0, first_bad = t->ranks, me = status ? t->first : t->ranks;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&me, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!worst) return;
    if (first_bad == t->first) fprintf(stderr, "%s: %s\n", g_step, why);
    MPI_Finalize();
    exit(worst);
}

static void start_mpi(team_t *t, const options_t *opt)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI could not start (this program was started by mpirun)\n", g_step);
        exit(EXIT_DEVICE);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1, local_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;                              /* the processes on this machine */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    t->ranks = size;
    t->local = 1;
    t->first = rank;
    snprintf(g_stopped, sizeof g_stopped, "%s: rank %d of %d: stopped from outside (mpirun ends "
             "every rank when one fails)\n", g_step, rank, size);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stopped_from_outside;
    sigaction(SIGTERM, &sa, NULL);

    char why[300] = "";
    int status = 0;
    if (opt->gpus && opt->gpus != size) {
        status = EXIT_USAGE;
        snprintf(why, sizeof why, "--gpus %d, but mpirun started %d process%s: under mpirun each "
                 "process drives one GPU (leave --gpus out)", opt->gpus, size, size == 1 ? "" : "es");
    }
    agree_or_stop(t, status, why);
    int count = count_devices();
    if (local_rank >= count) {
        status = EXIT_DEVICE;
        snprintf(why, sizeof why, "rank %d of %d has no GPU of its own: this machine shows %d GPU%s "
                 "to %d processes, and NCCL takes one GPU a rank", rank, size, count,
                 count == 1 ? "" : "s", local_rank + 1);
    }
    agree_or_stop(t, status, why);
    t->device[0] = local_rank;
    CUDA_CHECK(cudaSetDevice(local_rank));

    ncclUniqueId id;                           /* rank 0 makes it; MPI hands it out */
    memset(&id, 0, sizeof id);
    ncclResult_t r = rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
    snprintf(why, sizeof why, "NCCL could not make its unique id: %s", ncclGetErrorString(r));
    agree_or_stop(t, r == ncclSuccess ? 0 : EXIT_DEVICE, why);
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    r = ncclCommInitRank(&comm, size, id, rank);
    if (r != ncclSuccess) {
        fprintf(stderr, "%s: rank %d of %d: NCCL could not set up its communicator: %s\n", g_step,
                rank, size, ncclGetErrorString(r));
        exit(EXIT_DEVICE);                     /* mpirun stops the others */
    }
    t->comm[0] = comm;
}

void team_start(team_t *t, const options_t *opt)
{
    memset(t, 0, sizeof *t);
    setenv("NCCL_NVLS_ENABLE", "0", 0);        /* no NVLink multicast, unless asked for */
    t->mpi = getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL;
    if (opt->virtual_ranks) {
        if (t->mpi) {
            fprintf(stderr, "%s: --virtual-ranks runs every rank in one process: not under mpirun\n",
                    g_step);
            exit(EXIT_USAGE);
        }
        count_devices();
        t->ranks = t->local = opt->virtual_ranks;
        t->virtual_ranks = 1;                  /* every device[] stays 0, every comm NULL */
        return;
    }
    if (t->mpi) start_mpi(t, opt);
    else start_single(t, opt);
    g_team = t;
    on_exit_cleanly(abort_comms);
}

void team_finish(team_t *t)
{
    for (int i = 0; i < t->local; i++)
        if (t->comm[i]) {
            CUDA_CHECK(cudaSetDevice(t->device[i]));
            NCCL_CHECK(ncclCommDestroy((ncclComm_t)t->comm[i]));
            t->comm[i] = NULL;
        }
    g_team = NULL;
    if (t->mpi) MPI_Finalize();
}

/* ---- the phases' NCCL group -------------------------------------------------------- */
/* One thread that drives several GPUs must put their collectives in one
 * group: a collective waits for every rank, and the thread would otherwise
 * wait in rank 0's call for rank 1's, which it has not made yet. */
void team_group_start(const team_t *t)
{
    if (!t->virtual_ranks) NCCL_CHECK(ncclGroupStart());
}

void team_group_end(const team_t *t)
{
    if (!t->virtual_ranks) NCCL_CHECK(ncclGroupEnd());
}

/* ---- waiting ------------------------------------------------------------------------ */
static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for every stream, polling: a stream that failed, or a communicator
 * with an error, ends the program (the exit hook aborts every communicator,
 * which also ends NCCL kernels still waiting for a dead rank). */
void team_wait(const streams_t *on, const char *when)
{
    double start = seconds();
    struct timespec pause = { 0, 10000 };    /* 10 us, doubling to 1 ms: short waits */
    for (;;) {                               /* answered fast, long ones cheaply */
        int busy = 0;
        for (int i = 0; i < on->count; i++) {
            CUDA_CHECK(cudaSetDevice(on->device[i]));
            cudaError_t err = cudaStreamQuery(on->stream[i]);
            if (err == cudaErrorNotReady) { busy = 1; continue; }
            if (err == cudaSuccess) continue;
            fprintf(stderr, "%s: the GPU work of rank %d failed %s: %s (%s)\n", g_step,
                    g_team ? g_team->first + i : i, when, cudaGetErrorString(err),
                    cudaGetErrorName(err));
            exit_cleanly(EXIT_DEVICE);
        }
        for (int i = 0; g_team && i < g_team->local; i++) {
            ncclResult_t r = ncclSuccess;
            if (g_team->comm[i]) ncclCommGetAsyncError((ncclComm_t)g_team->comm[i], &r);
            if (r != ncclSuccess && r != ncclInProgress) {
                fprintf(stderr, "%s: NCCL reported an error on rank %d %s: %s\n", g_step,
                        g_team->first + i, when, ncclGetErrorString(r));
                exit_cleanly(EXIT_DEVICE);
            }
        }
        if (!busy) return;
        if (seconds() - start > WATCHDOG_S) {
            fprintf(stderr, "%s: no progress in %d s %s: another rank has stopped, or a GPU hangs\n",
                    g_step, WATCHDOG_S, when);
            exit_cleanly(EXIT_DEVICE);
        }
        nanosleep(&pause, NULL);
        if (pause.tv_nsec < 1000000) pause.tv_nsec *= 2;
    }
}

/* ---- agreeing ----------------------------------------------------------------------- */
/* v[0..count) becomes the largest value over every process. One process that
 * drives every rank has taken the largest already. */
void team_max(const team_t *t, double *v, int count)
{
    if (!t->mpi || t->ranks == 1) return;
    size_t bytes = (size_t)count * sizeof(double);
    double *d = (double *)device_alloc(bytes, "the ranks' agreement"), *h = NULL;
    CUDA_CHECK(cudaMallocHost((void **)&h, bytes));      /* so that no copy waits unwatched */
    memcpy(h, v, bytes);
    streams_t on = { .count = 1, .device = { t->device[0] } };
    CUDA_CHECK(cudaSetDevice(t->device[0]));
    CUDA_CHECK(cudaStreamCreateWithFlags(&on.stream[0], cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, on.stream[0]));
    NCCL_CHECK(ncclAllReduce(d, d, (size_t)count, ncclFloat64, ncclMax, (ncclComm_t)t->comm[0],
                             on.stream[0]));
    CUDA_CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, on.stream[0]));
    team_wait(&on, "agreeing on the results");
    memcpy(v, h, bytes);
    CUDA_CHECK(cudaStreamDestroy(on.stream[0]));
    CUDA_CHECK(cudaFreeHost(h));
    CUDA_CHECK(cudaFree(d));
}
