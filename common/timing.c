/* timing.c: timing device work with CUDA events, with the GPU never waiting
 * for the host (time_device_work), on one GPU or on several at once.
 */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime, nanosleep: POSIX, not C11 */
#include <stdatomic.h>
#include <time.h>

#include "parts.h"

#define BATCH 16                 /* timed runs queued behind one gate */

/* ---- the gate ---------------------------------------------------------------
 * To time device work only, the host must queue the runs faster than the GPU
 * finishes them; otherwise the GPU idles between launches and the events
 * measure the host. So each batch of timed runs queues behind a host function
 * that waits until the whole batch is queued, then lets the stream go. */
typedef struct { atomic_int open; } gate_t;
static gate_t g_gate = { 1 };

static void CUDART_CB gate_wait(void *arg)
{
    gate_t *gate = (gate_t *)arg;
    struct timespec start, now, pause = { 0, 20000 };
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!atomic_load(&gate->open)) {
        nanosleep(&pause, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 60) break;    /* never hold the GPU forever */
    }
}

/* Opens the gate: registered as an exit hook, so that a program that stops
 * between queueing a batch and opening its gate does not leave the stream
 * (and the driver's thread that runs host functions) waiting. */
static void gate_release(void)
{
    atomic_store(&g_gate.open, 1);
}

/* Waits for every stream of the run: the caller's way, or one by one. */
static void wait_all(const streams_t *on, const char *when)
{
    if (on->wait) {
        on->wait(on, when);
        return;
    }
    for (int i = 0; i < on->count; i++) {
        CUDA_CHECK(cudaSetDevice(on->device[i]));
        sync_or_fail(on->stream[i], when);
    }
}

void time_device_work(work_fn prepare, work_fn timed, void *ctx, int reps, double *us,
                      const streams_t *on)
{
    cudaEvent_t start[MAX_GPUS][BATCH] = { { 0 } }, stop[MAX_GPUS][BATCH] = { { 0 } };
    on_exit_cleanly(gate_release);
    for (int i = 0; i < on->count; i++) {
        CUDA_CHECK(cudaSetDevice(on->device[i]));
        for (int j = 0; j < BATCH; j++) {
            CUDA_CHECK(cudaEventCreate(&start[i][j]));
            CUDA_CHECK(cudaEventCreate(&stop[i][j]));
        }
    }
    for (int b = 0; b < reps; b += BATCH) {
        int m = reps - b < BATCH ? reps - b : BATCH;
        atomic_store(&g_gate.open, 0);
        for (int i = 0; i < on->count; i++) {
            CUDA_CHECK(cudaSetDevice(on->device[i]));
            CUDA_CHECK(cudaLaunchHostFunc(on->stream[i], gate_wait, &g_gate));
        }
        for (int j = 0; j < m; j++) {
            if (prepare) prepare(ctx, b + j);
            for (int i = 0; i < on->count; i++) {
                CUDA_CHECK(cudaSetDevice(on->device[i]));
                CUDA_CHECK(cudaEventRecord(start[i][j], on->stream[i]));
            }
            timed(ctx, b + j);
            for (int i = 0; i < on->count; i++) {
                CUDA_CHECK(cudaSetDevice(on->device[i]));
                CUDA_CHECK(cudaEventRecord(stop[i][j], on->stream[i]));
            }
        }
        atomic_store(&g_gate.open, 1);
        wait_all(on, "during the timed runs");
        for (int j = 0; j < m; j++) {          /* a run lasts as long as its slowest GPU */
            us[b + j] = 0;
            for (int i = 0; i < on->count; i++) {
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, start[i][j], stop[i][j]));
                if (ms * 1e3 > us[b + j]) us[b + j] = ms * 1e3;
            }
        }
    }
    for (int i = 0; i < on->count; i++) {
        CUDA_CHECK(cudaSetDevice(on->device[i]));
        for (int j = 0; j < BATCH; j++) {
            CUDA_CHECK(cudaEventDestroy(start[i][j]));
            CUDA_CHECK(cudaEventDestroy(stop[i][j]));
        }
    }
}
