/* fail.c: failing clearly, at the bottom of the harness: every other part may
 * use it, and it uses none of them. Every failure here ends the program with
 * one line on stderr that names the program (g_step), and exit status
 * EXIT_DEVICE.
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

const char *g_step = "reduce";

/* ---- the way out ------------------------------------------------------------- */
#define MAX_HOOKS 4
static void (*g_hooks[MAX_HOOKS])(void);
static int g_hook_count;

void on_exit_cleanly(void (*hook)(void))
{
    for (int i = 0; i < g_hook_count; i++)
        if (g_hooks[i] == hook) return;
    if (g_hook_count < MAX_HOOKS) g_hooks[g_hook_count++] = hook;
}

void exit_cleanly(int code)
{
    while (g_hook_count > 0)
        g_hooks[--g_hook_count]();     /* a hook that fails again finds the list shorter */
    fflush(stdout);
    exit(code);
}

/* ---- CUDA's errors -------------------------------------------------------------- */
static const char *hint(cudaError_t err)
{
    switch (err) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
        return " (this program was built for another GPU: rebuild with 'make clean && make')";
    case cudaErrorCooperativeLaunchTooLarge:
        return " (a cooperative launch may use only as many blocks as fit on the GPU at once)";
    case cudaErrorMemoryAllocation:
        return " (the GPU is out of memory)";
    default:
        return "";
    }
}

/* Errors that only a kernel can cause. A kernel that faults spoils the
 * context, and its error comes back from whichever CUDA call is next, which
 * is rarely the one to blame: say that the GPU work failed. */
static int kernel_fault(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress: case cudaErrorLaunchTimeout: case cudaErrorAssert:
    case cudaErrorHardwareStackError: case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc: case cudaErrorLaunchFailure:
        return 1;
    default:
        return 0;
    }
}

void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess) return;
    if (kernel_fault(err))
        fprintf(stderr, "%s: the step's GPU work failed (reported by %s at %s:%d): %s (%s)\n",
                g_step, what, file, line, cudaGetErrorString(err), cudaGetErrorName(err));
    else
        fprintf(stderr, "%s: %s failed at %s:%d: %s (%s)%s\n", g_step, what, file, line,
                cudaGetErrorString(err), cudaGetErrorName(err), hint(err));
    exit_cleanly(EXIT_DEVICE);
}

void device_fail(const char *why)
{
    fprintf(stderr, "%s: %s\n", g_step, why);
    exit_cleanly(EXIT_DEVICE);
}

void sync_or_fail(cudaStream_t stream, const char *when)
{
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: the step's GPU work failed %s: %s (%s)%s\n", g_step, when,
                cudaGetErrorString(err), cudaGetErrorName(err), hint(err));
        exit_cleanly(EXIT_DEVICE);
    }
}

void *device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        fprintf(stderr, "%s: could not allocate %zu bytes (%.2f GB) for %s: %s; %zu bytes (%.2f GB) "
                "free\n", g_step, bytes, (double)bytes / 1e9, what, cudaGetErrorString(err), free_b,
                (double)free_b / 1e9);
        exit_cleanly(EXIT_DEVICE);
    }
    return p;
}

void check_memory(size_t n, size_t need, const char *gpu)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need <= free_b) return;
    fprintf(stderr, "%s: n = %zu needs %zu bytes (%.2f GB) of GPU memory, but only %zu bytes "
            "(%.2f GB) are free on %s\n", g_step, n, need, (double)need / 1e9, free_b,
            (double)free_b / 1e9, gpu);
    exit_cleanly(EXIT_DEVICE);
}

