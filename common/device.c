/* device.c: the GPU, and failing clearly.
 *
 *   failing clearly     cuda_check, device_fail, and the messages for a kernel
 *                       fault, a failed allocation and too little memory
 *   the device          open_device: which GPU, what it can do, its peak
 *
 * Every failure here ends the program with one line on stderr that names the
 * program (g_step), and exit status EXIT_DEVICE.
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

const char *g_step = "reduce";              /* names the program in messages */

/* ---- failing clearly -------------------------------------------------------- */
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

void exit_cleanly(int code)
{
    gate_release();                    /* let a waiting stream go before exiting */
    fflush(stdout);
    exit(code);
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

/* Kernel faults surface at the next synchronisation: name the step there. */
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

static void human_gb(char *buf, size_t len, double bytes) { snprintf(buf, len, "%.2f GB", bytes / 1e9); }

void *device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        char need[32], have[32];
        human_gb(need, sizeof need, (double)bytes);
        human_gb(have, sizeof have, (double)free_b);
        fprintf(stderr, "%s: could not allocate %zu bytes (%s) for %s: %s; %zu bytes (%s) free\n",
                g_step, bytes, need, what, cudaGetErrorString(err), free_b, have);
        exit_cleanly(EXIT_DEVICE);
    }
    return p;
}

void memory_fail(size_t n, size_t need, size_t free_b, const device_t *dev)
{
    char need_s[32], free_s[32];
    human_gb(need_s, sizeof need_s, (double)need);
    human_gb(free_s, sizeof free_s, (double)free_b);
    fprintf(stderr, "%s: n = %zu needs %zu bytes (%s) of GPU memory, but only %zu bytes "
            "(%s) are free on %s\n", g_step, n, need, need_s, free_b, free_s, dev->name);
    exit_cleanly(EXIT_DEVICE);
}

/* ---- the device ------------------------------------------------------------- */
static int attribute(enum cudaDeviceAttr attr, int dev)
{
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, dev));
    return v;
}

void open_device(device_t *d)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver) {
        int drv = 0, rt = 0;
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        if (drv == 0)
            fprintf(stderr, "%s: no NVIDIA driver found: this program needs an NVIDIA GPU "
                    "and its driver\n", g_step);
        else
            fprintf(stderr, "%s: the NVIDIA driver supports CUDA %d.%d, but this program was "
                    "built with CUDA %d.%d: update the driver\n", g_step, drv / 1000,
                    drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
        exit_cleanly(EXIT_DEVICE);
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr, "%s: no CUDA GPU found%s\n", g_step,
                cvd ? " (CUDA_VISIBLE_DEVICES is set: does it name a GPU?)" : "");
        exit_cleanly(EXIT_DEVICE);
    }
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: cannot use the GPU: %s (%s)\n", g_step, cudaGetErrorString(err),
                cudaGetErrorName(err));
        exit_cleanly(EXIT_DEVICE);
    }

    d->id = 0;
    CUDA_CHECK(cudaSetDevice(d->id));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, d->id));
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    d->cc_major = attribute(cudaDevAttrComputeCapabilityMajor, d->id);
    d->cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, d->id);
    d->sm_count = attribute(cudaDevAttrMultiProcessorCount, d->id);
    d->l2_bytes = attribute(cudaDevAttrL2CacheSize, d->id);
    d->max_grid_x = attribute(cudaDevAttrMaxGridDimX, d->id);
    /* Nominal peak: memory clock (kHz) x 2 transfers per clock x bus width in
     * bytes. CUDA 13 dropped these from cudaDeviceProp; the attributes stay. */
    double clock_khz = attribute(cudaDevAttrMemoryClockRate, d->id);
    double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d->id);
    d->peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8) / 1e9;

    if (d->cc_major * 10 + d->cc_minor < 75) {
        fprintf(stderr, "%s: %s has compute capability %d.%d; this course needs 7.5 or newer\n",
                g_step, d->name, d->cc_major, d->cc_minor);
        exit_cleanly(EXIT_DEVICE);
    }
}
