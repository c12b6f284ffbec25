/* device.c: the GPUs: how many (count_devices), what one can do
 * (open_device_id), and the report's first line, which names it
 * (print_header). Failing clearly is fail.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

/* ---- the device ------------------------------------------------------------- */
static int attribute(enum cudaDeviceAttr attr, int dev)
{
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, dev));
    return v;
}

int count_devices(void)
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
    return count;
}

void open_device_id(device_t *d, int id)
{
    d->id = id;
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

size_t checked_grid(size_t chosen, int asked, size_t n, int block, size_t most, const device_t *d)
{
    size_t grid = asked ? (size_t)asked : chosen;
    if (most && grid > most) {
        if (asked)
            fprintf(stderr, "%s: --grid %d is more blocks than this step can combine (at most %zu)\n", g_step,
                    asked, most);
        else
            fprintf(stderr, "%s: n = %zu needs %zu blocks of %d threads, but this step can combine at most "
                    "%zu; use a larger --block\n", g_step, n, grid, block, most);
        exit_cleanly(EXIT_USAGE);
    }
    if (chosen < 1) {
        fprintf(stderr, "%s: no block of %d threads fits on %s (the kernel needs too many "
                "registers or too much shared memory); try a smaller --block\n", g_step, block, d->name);
        exit_cleanly(EXIT_DEVICE);
    }
    if (grid > (size_t)d->max_grid_x) {
        if (asked)
            fprintf(stderr, "%s: --grid %d is more blocks than %s allows in a launch (%d)\n", g_step, asked,
                    d->name, d->max_grid_x);
        else
            fprintf(stderr, "%s: n = %zu needs %zu blocks of %d threads, but %s allows at most %d "
                    "in a launch; use a larger --block\n", g_step, n, grid, block, d->name, d->max_grid_x);
        exit_cleanly(EXIT_USAGE);
    }
    return grid;
}

void print_header(const options_t *opt, const program_t *p, const device_t *d, const char *how)
{
    if (opt->csv) {
        char header[512];
        format_csv_header(header, sizeof header, p->matrix);
        printf("%s\n", header);
    } else {
        printf("# %s on %s (sm_%d%d, %d SMs, %.0f MB L2, nominal %.0f GB/s), %s elements, %s %s%s%s\n",
               p->name, d->name, d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes / 1e6,
               d->peak_gbps, ELEM_NAME, opt->input_file ? "from" : "input",
               opt->input_file ? opt->input_file : dist_info[opt->input].name, how ? ", " : "", how ? how : "");
    }
    fflush(stdout);
}
