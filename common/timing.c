/* timing.c: the driver, one place for one GPU and for several (measure): the
 * checked run, a warm-up whose time sets how many timed runs to make (fewer
 * when one run is slow), then the timed runs, queued in batches behind a gate
 * (below); a run's time is its slowest stream's.
 */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, nanosleep: POSIX, not C11 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "parts.h"

#define BATCH 16                 /* timed runs queued behind one gate */
#define SLOW_RUN_S 0.1           /* above this, automatic --reps shrinks */

static double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits for every stream of the work: its own way, or one by one. */
static void wait_all(const work_t *w, const char *when)
{
    if (w->wait) {
        w->wait(w->ctx, when);
        return;
    }
    for (int i = 0; i < w->count; i++) {
        CUDA_CHECK(cudaSetDevice(w->device[i]));
        sync_or_fail(w->stream[i], when);
    }
}

/* ---- the gate ---------------------------------------------------------------
 * To time device work only, the host must queue the runs faster than the GPU
 * finishes them; otherwise the GPU idles between launches and the events
 * measure the host. So each batch of timed runs queues behind a host function
 * that waits until the whole batch is queued, then lets the stream go. */
static atomic_int g_gate_open = 1;

static void CUDART_CB gate_wait(void *arg)
{
    (void)arg;
    double start = host_seconds();
    struct timespec pause = { 0, 20000 };
    while (!atomic_load(&g_gate_open) && host_seconds() - start < 60)   /* never hold */
        nanosleep(&pause, NULL);                                        /* the GPU forever */
}

/* Opens the gate: an exit hook, so that a program that stops between queueing
 * a batch and opening its gate does not leave a stream (and the driver's
 * thread that runs host functions) waiting. */
static void gate_release(void) { atomic_store(&g_gate_open, 1); }

/* Records event ev[i][e] on every stream i. */
static void record(const work_t *w, cudaEvent_t (*ev)[2 * BATCH], int e)
{
    for (int i = 0; i < w->count; i++) {
        CUDA_CHECK(cudaSetDevice(w->device[i]));
        CUDA_CHECK(cudaEventRecord(ev[i][e], w->stream[i]));
    }
}

/* Runs first .. first + m - 1 of the timed runs, one batch, between events
 * ev[i][j] and ev[i][BATCH + j]: us[j] is run first + j's time, that of its
 * slowest stream. */
static void time_batch(const work_t *w, int first, int m, cudaEvent_t (*ev)[2 * BATCH], double *us)
{
    atomic_store(&g_gate_open, 0);
    for (int i = 0; i < w->count; i++) {
        CUDA_CHECK(cudaSetDevice(w->device[i]));
        CUDA_CHECK(cudaLaunchHostFunc(w->stream[i], gate_wait, NULL));
    }
    for (int j = 0; j < m; j++) {
        int r = first + j;
        if (w->prepare) w->prepare(w->ctx, 2 + r);
        record(w, ev, j);
        w->run(w->ctx, 2 + r, (r + 1) % w->copies);
        record(w, ev, BATCH + j);
    }
    atomic_store(&g_gate_open, 1);
    wait_all(w, "during the timed runs");
    for (int j = 0; j < m; j++) {
        us[j] = 0;
        for (int i = 0; i < w->count; i++) {
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, ev[i][j], ev[i][BATCH + j]));
            if (ms * 1e3 > us[j]) us[j] = ms * 1e3;
        }
    }
}

void timed_runs(const work_t *w, int reps, double *us)
{
    static cudaEvent_t ev[MAX_STREAMS][2 * BATCH];     /* each run's start, then its stop */
    on_exit_cleanly(gate_release);
    for (int i = 0; i < w->count; i++) {
        CUDA_CHECK(cudaSetDevice(w->device[i]));
        for (int e = 0; e < 2 * BATCH; e++) CUDA_CHECK(cudaEventCreate(&ev[i][e]));
    }
    for (int b = 0; b < reps; b += BATCH)
        time_batch(w, b, reps - b < BATCH ? reps - b : BATCH, ev, us + b);
    for (int i = 0; i < w->count; i++) {
        CUDA_CHECK(cudaSetDevice(w->device[i]));
        for (int e = 0; e < 2 * BATCH; e++) CUDA_CHECK(cudaEventDestroy(ev[i][e]));
    }
}

/* --wait-each: a loop that waits for every sum, as a program that needs each
 * result before its next call does. Each timed run is queued alone and waited
 * for; its time is the host's, from the call to the end of the wait, so it
 * holds the host's queueing (NCCL's group call included) and the GPUs' work. */
static void waited_runs(const work_t *w, int reps, double *us)
{
    for (int r = 0; r < reps; r++) {
        if (w->prepare) w->prepare(w->ctx, 2 + r);
        wait_all(w, "before a timed run");
        double t0 = host_seconds();
        w->run(w->ctx, 2 + r, (r + 1) % w->copies);
        wait_all(w, "during the timed runs");
        us[r] = 1e6 * (host_seconds() - t0);
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void measure(const work_t *w, const options_t *opt, timing_t *t)
{
    /* The checked run and the warm-up, plain launches with no gate (whatever
     * runs them, a tool that serialises host functions included, sees only
     * the work), each waited for: a fault shows in the run that made it. */
    double last_s = 0;
    t->runs = opt->check_only ? 1 : 2;
    t->reps = 0;
    t->median_us = t->min_us = 0;
    for (int r = 0; r < t->runs; r++) {
        double t0 = host_seconds();
        if (w->prepare) w->prepare(w->ctx, r);
        w->run(w->ctx, r, 0);
        wait_all(w, r == 0 ? "in the checked run" : "in the warm-up run");
        last_s = host_seconds() - t0;
    }
    if (opt->check_only) return;

    int reps = opt->reps;
    if (reps == 0)
        reps = last_s > SLOW_RUN_S ? (int)fmax(3, fmin(DEFAULT_REPS, 2.0 / last_s)) : DEFAULT_REPS;
    double *us = (double *)calloc((size_t)reps, sizeof *us);
    if (!us) device_fail("out of host memory for the timings");
    if (opt->wait_each) waited_runs(w, reps, us);
    else timed_runs(w, reps, us);
    if (w->agree) w->agree(w->ctx, us, reps);     /* a run lasts as long as its slowest rank */
    qsort(us, (size_t)reps, sizeof *us, compare_double);
    t->min_us = us[0];
    t->median_us = reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
    t->reps = reps;
    t->runs = reps + 2;
    free(us);
}
