/* team.c: the ranks of a run on several GPUs: the processes, their GPUs,
 * and waiting for them without ever hanging (steps 09 and 10).
 *
 *   starting    one process driving every GPU, or, under mpirun, one process
 *               a GPU, where MPI says which rank a process is and passes
 *               bytes from rank 0 (NCCL's unique id) to the others; then the
 *               step makes its communicators
 *   waiting     a watchdog in place of cudaStreamSynchronize: it also asks
 *               the step whether a communicator failed, and gives up after
 *               WATCHDOG_S seconds, so a rank that died never leaves the
 *               others waiting
 *   agreeing    the largest of a few numbers over every process
 *   stopping    the communicators destroyed, or aborted on any way out
 *
 * NVLink multicast stays off (NCCL_NVLS_ENABLE=0 unless the caller set it).
 */
#define _POSIX_C_SOURCE 200809L    /* setenv, sigaction, nanosleep, clock_gettime */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../parts.h"
#include "team.h"

#define WATCHDOG_S 60              /* no GPU work of ours takes this long */

static const team_t *g_team;       /* the exit hook aborts its communicators */
static const multi_step_t *g_mstep;

/* ---- failing -------------------------------------------------------------------- */
static void abort_comms(void)
{
    const team_t *t = g_team;
    g_team = NULL;                 /* once, even if aborting fails again */
    if (t) g_mstep->disconnect(t, 1);
}

void multi_fail(const char *what, const char *error, const char *detail, const char *file, int line)
{
    fprintf(stderr, "%s: %s failed at %s:%d: %s%s%s%s\n", g_step, what, file, line, error,
            detail && *detail ? " (" : "", detail ? detail : "", detail && *detail ? ")" : "");
    exit_cleanly(EXIT_DEVICE);
}

/* Under mpirun, a rank that fails ends the job: mpirun stops the others with
 * SIGTERM. Each says so in one line (only write() is safe in a handler),
 * unless the ranks have already agreed to stop and one has said why. */
static char g_stopped[256];
static volatile sig_atomic_t g_agreed;     /* the status all ranks agreed to stop with */
static void stopped_from_outside(int sig)
{
    (void)sig;
    if (g_agreed) _exit(g_agreed);
    ssize_t w = write(STDERR_FILENO, g_stopped, strlen(g_stopped));
    (void)w;
    _exit(EXIT_DEVICE);
}

/* ---- starting ------------------------------------------------------------------- */
/* Every rank checks, then all agree; the lowest failing rank says why, in one
 * line, and every rank stops with the same status. */
static void agree_or_stop(const team_t *t, int status, const char *why)
{
    int worst = 0, first_bad = t->ranks, me = status ? t->first : t->ranks;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&me, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!worst) return;
    g_agreed = worst;                          /* mpirun's SIGTERM, if it comes first: no second line */
    if (first_bad == t->first) fprintf(stderr, "%s: %s\n", g_step, why);
    MPI_Finalize();
    exit(worst);
}

static void start_mpi(team_t *t, int gpus)
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
    *t = (team_t){ .ranks = size, .local = 1, .first = rank, .device = { local_rank }, .mpi = 1 };
    snprintf(g_stopped, sizeof g_stopped, "%s: rank %d of %d: stopped from outside (mpirun ends "
             "every rank when one fails)\n", g_step, rank, size);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stopped_from_outside;
    sigaction(SIGTERM, &sa, NULL);

    char why[300] = "";
    int status = 0;
    if (gpus && gpus != size) {
        status = EXIT_USAGE;
        snprintf(why, sizeof why, "--gpus %d, but mpirun started %d process%s: under mpirun each "
                 "process drives one GPU (leave --gpus out)", gpus, size, size == 1 ? "" : "es");
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
    CUDA_CHECK(cudaSetDevice(local_rank));
}

/* A test seam: the tests' build (-DVIRTUAL_RANKS, with a stand-in NCCL) puts
 * every rank on GPU 0. */
#ifdef VIRTUAL_RANKS
enum { VIRTUAL = 1 };
#else
enum { VIRTUAL = 0 };
#endif

/* One process, the first `gpus` GPUs (every one if 0). */
static void start_single(team_t *t, int gpus)
{
    int count = count_devices();
    int g = gpus ? gpus : count;
    if ((!VIRTUAL && g > count) || g > MAX_GPUS) {
        const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr, "%s: --gpus %d: this machine shows %d GPU%s%s\n", g_step, g, count,
                count == 1 ? "" : "s", cvd ? " (CUDA_VISIBLE_DEVICES is set)" : "");
        exit_cleanly(EXIT_DEVICE);
    }
    *t = (team_t){ .ranks = g, .local = g };
    for (int i = 0; i < g; i++) t->device[i] = VIRTUAL ? 0 : i;
}

void team_start(team_t *t, const multi_step_t *step, int gpus)
{
    setenv("NCCL_NVLS_ENABLE", "0", 0);        /* no NVLink multicast, unless asked for */
    int mpi = getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL;
    if (mpi && VIRTUAL) {
        fprintf(stderr, "%s: --virtual-ranks runs every rank in one process: not under mpirun\n", g_step);
        exit(EXIT_USAGE);
    }
    if (mpi) start_mpi(t, gpus);
    else start_single(t, gpus);
    g_mstep = step;
    step->connect(t);
    g_team = t;
    on_exit_cleanly(abort_comms);
}

void team_share(const team_t *t, void *bytes, size_t len)
{
    if (t->mpi) MPI_Bcast(bytes, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
}

void team_finish(const team_t *t)
{
    g_team = NULL;
    g_mstep->disconnect(t, 0);
    if (t->mpi) MPI_Finalize();
}

/* ---- waiting ------------------------------------------------------------------------ */
static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Is every stream done? A stream that failed, or a communicator with an
 * error, ends the program (the exit hook aborts every communicator, which
 * also ends NCCL kernels still waiting for a dead rank). */
static int all_done(const team_t *t, const cudaStream_t *stream, int count, const char *when)
{
    int busy = 0;
    for (int i = 0; i < count; i++) {
        CUDA_CHECK(cudaSetDevice(t->device[i]));
        cudaError_t err = cudaStreamQuery(stream[i]);
        if (err == cudaErrorNotReady) { busy = 1; continue; }
        if (err == cudaSuccess) continue;
        fprintf(stderr, "%s: the GPU work of rank %d failed %s: %s (%s)\n", g_step, t->first + i,
                when, cudaGetErrorString(err), cudaGetErrorName(err));
        exit_cleanly(EXIT_DEVICE);
    }
    const char *why = g_mstep->comm_error(t);
    if (why) {
        fprintf(stderr, "%s: NCCL reported an error %s: %s\n", g_step, when, why);
        exit_cleanly(EXIT_DEVICE);
    }
    return !busy;
}

void team_wait(const team_t *t, const cudaStream_t *stream, int count, const char *when)
{
    double start = seconds();
    struct timespec pause = { 0, 10000 };    /* after 1 ms of polling, 10 us doubling to 1 ms: */
    while (!all_done(t, stream, count, when)) {   /* short waits answered at once, long ones cheaply */
        if (seconds() - start < 1e-3) continue;
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
void team_max(const team_t *t, double *v, int count)
{
    if (t->mpi && t->ranks > 1)
        MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}
