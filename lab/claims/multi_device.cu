/* multi_device.cu: what is left of the multi-device cooperative launch (claim C).
 *
 *     make claims-programs && build/claims/multi_device
 *
 * CUDA 9 let one kernel span several GPUs: cudaLaunchCooperativeKernelMultiDevice
 * started it, this_multi_grid().sync() was its barrier, and the device
 * attribute cudaDevAttrCooperativeMultiDeviceLaunch said whether a GPU could
 * take part. CUDA 11.3 deprecated all of it. That the runtime API and the
 * Cooperative Groups header no longer have them is a question for the
 * compiler (lab/claims/claims.py compiles a line that uses each). The driver API's
 * header still declares cuLaunchCooperativeKernelMultiDevice, marked
 * deprecated; this program asks the driver on this machine, without linking
 * against it (the entry point is looked up by name, as CUDA 13 offers):
 *
 *   versions     the runtime and driver versions
 *   entry        does the driver still export the launch function?
 *   attribute    CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH of GPU 0
 *   launch       a one-block kernel on GPU 0 alone, through that function:
 *                the driver's answer, and whether the kernel ran
 *
 * It prints CSV: check,result,detail. The driver call under test is not a
 * failure when it fails: its answer is the result. Every other call is checked.
 */
#include <cstdio>
#include <cuda.h>

#include "../../common/parts.h"

typedef CUresult (*launch_multi_fn)(CUDA_LAUNCH_PARAMS *params, unsigned int devices, unsigned int flags);
typedef CUresult (*get_attribute_fn)(int *value, CUdevice_attribute attribute, CUdevice device);
typedef CUresult (*error_name_fn)(CUresult error, const char **name);

__global__ void mark_kernel(int *flag)
{
    *flag = 1;
}

// The driver's function called name, as of the CUDA 13.0 interface, or NULL.
static void *driver_entry(const char *name)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 13000, cudaEnableDefault, &found));
    return found == cudaDriverEntryPointSuccess ? fn : NULL;
}

static const char *result_name(CUresult r)
{
    error_name_fn error_name = (error_name_fn)driver_entry("cuGetErrorName");
    const char *name = NULL;
    if (!error_name || error_name(r, &name) != CUDA_SUCCESS || !name) return "unknown";
    return name;
}

// One one-block launch of mark_kernel on GPU 0 through the multi-device call.
static void try_launch(launch_multi_fn launch)
{
    int *d_flag = NULL, flag = 0;
    cudaStream_t stream;
    CUDA_CHECK(cudaMalloc(&d_flag, sizeof *d_flag));
    CUDA_CHECK(cudaMemset(d_flag, 0, sizeof *d_flag));
    CUDA_CHECK(cudaStreamCreate(&stream));
    cudaFunction_t fn;
    CUDA_CHECK(cudaGetFuncBySymbol(&fn, (const void *)mark_kernel));
    void *args[] = { &d_flag };
    CUDA_LAUNCH_PARAMS p = { (CUfunction)fn, 1, 1, 1, 32, 1, 1, 0, (CUstream)stream, args };
    CUresult r = launch(&p, 1, 0);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(&flag, d_flag, sizeof flag, cudaMemcpyDeviceToHost));
    printf("launch,%s,\"the kernel %s\"\n", result_name(r), flag ? "ran" : "did not run");
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_flag));
}

int main(void)
{
    int count = 0, runtime = 0, driver = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) device_fail("no CUDA GPU found");
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(0));                  // the runtime's context is current from here on
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    printf("check,result,detail\n");
    printf("versions,%d.%d,\"runtime %d, driver %d\"\n", runtime / 1000, runtime % 1000 / 10, runtime, driver);

    get_attribute_fn get_attribute = (get_attribute_fn)driver_entry("cuDeviceGetAttribute");
    if (!get_attribute) device_fail("the driver has no cuDeviceGetAttribute");
    int supported = -1;
    CUresult r = get_attribute(&supported, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, 0);
    printf("attribute,%d,\"%s\"\n", supported, result_name(r));

    launch_multi_fn launch = (launch_multi_fn)driver_entry("cuLaunchCooperativeKernelMultiDevice");
    printf("entry,%s,\"cuLaunchCooperativeKernelMultiDevice in the driver\"\n", launch ? "found" : "not found");
    if (launch) try_launch(launch);
    return EXIT_OK;
}
