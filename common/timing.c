/* timing.c: timing device work with CUDA events, with the GPU never waiting
 * for the host (time_device_work).
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

void gate_release(void)
{
    atomic_store(&g_gate.open, 1);
}

void time_device_work(work_fn prepare, work_fn timed, void *ctx, int reps, double *us,
                      cudaStream_t stream)
{
    cudaEvent_t start[BATCH], stop[BATCH];
    for (int j = 0; j < BATCH; j++) {
        CUDA_CHECK(cudaEventCreate(&start[j]));
        CUDA_CHECK(cudaEventCreate(&stop[j]));
    }
    for (int b = 0; b < reps; b += BATCH) {
        int m = reps - b < BATCH ? reps - b : BATCH;
        atomic_store(&g_gate.open, 0);
        CUDA_CHECK(cudaLaunchHostFunc(stream, gate_wait, &g_gate));
        for (int j = 0; j < m; j++) {
            if (prepare) prepare(ctx, b + j, stream);
            CUDA_CHECK(cudaEventRecord(start[j], stream));
            timed(ctx, b + j, stream);
            CUDA_CHECK(cudaEventRecord(stop[j], stream));
        }
        atomic_store(&g_gate.open, 1);
        sync_or_fail(stream, "during the timed runs");
        for (int j = 0; j < m; j++) {
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start[j], stop[j]));
            us[b + j] = ms * 1e3;
        }
    }
    for (int j = 0; j < BATCH; j++) {
        CUDA_CHECK(cudaEventDestroy(start[j]));
        CUDA_CHECK(cudaEventDestroy(stop[j]));
    }
}
