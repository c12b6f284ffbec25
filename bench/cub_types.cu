/* cub_types.cu: CUB on the arrays step 12 reduces, any type and any operator.
 *
 *     make bench && ./step12 --type bf16 --op sum --n 2^24 --save-input x.bf16
 *     ./build/bench/cub_types --type bf16 --op sum --input-file x.bf16
 *
 * The array comes from a file, the one ./step12 --save-input wrote: a .npy of
 * '<f2' (half), '<f4' (float), '<f8' (double) or '<i4' (int32), one-dimensional,
 * or a raw file of little-endian bf16 words named *.bf16 (NumPy has no bf16).
 * Its dtype must be --type's. The .npy header is read by the harness's reader
 * (common/inputs/npy.c). Each pair runs the call a reader of CUB would write:
 *
 *   sum     float, double: DeviceReduce::Sum. int32: Sum into an int64 output
 *           (CUB accumulates in the type of its initial value, the output's).
 *           half, bf16: TransformReduce, a conversion to float, plus, 0.0f: the
 *           accumulator is float (Sum would add in the input's 16 bits).
 *   max     float, bf16, int32: DeviceReduce::Max
 *   min     float, bf16, int32: DeviceReduce::Min
 *   argmax  float, bf16, int32: DeviceReduce::ArgMax, the overload with one
 *           output for the value and one for its index (an int64)
 *   sumsq   float, bf16: TransformReduce, x * x in float, plus, 0.0f
 *
 * Timed as the harness times a step (common/timing.c): a checked run and a
 * warm-up, then --reps runs queued behind a gate, each reading the next of as
 * many copies of the input as it takes to outrun L2 (one with --warm); the
 * median. 32-bit item counts where n fits, as bench/cub_sum.cu (ArgMax takes
 * 64-bit ones only). Prints a CSV header and one row:
 *
 *     lib,type,op,device,n,bytes,median_us,gbps,result,index
 *
 * result with enough digits to round-trip (integers as integers), index the
 * argmax's position (- for the other operators). A bad command line or file:
 * one line on stderr, exit 2; a CUDA failure: one line, exit 3 (base.h).
 */
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cub/device/device_reduce.cuh>

#include "../common/inputs/npy.h"
#include "../common/parts.h"

typedef __nv_bfloat16 bf16;
enum op_t { SUM, MAX, MIN, ARGMAX, SUMSQ };

NORETURN static void usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cub_types: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit_cleanly(EXIT_USAGE);
}

// ---- the calls ------------------------------------------------------------------------
struct to_float {
    template <class T> __device__ float operator()(T x) const { return (float)x; }
};
struct square_float {
    template <class T> __device__ float operator()(T x) const
    {
        float f = (float)x;
        return f * f;
    }
};

template <class In> constexpr bool narrow = std::is_same_v<In, __half> || std::is_same_v<In, bf16>;
// The result's type: float for the sums of half and bf16 and every sum of squares,
// int64 for the sum of int32, else the input's.
template <class In, int OP>
using out_t = std::conditional_t<OP == SUMSQ || (OP == SUM && narrow<In>), float,
                                 std::conditional_t<OP == SUM && std::is_same_v<In, int>, long long, In>>;

template <class In, int OP, class N>
static cudaError_t cub_call(void *tmp, size_t &bytes, const In *in, out_t<In, OP> *out, int64_t *index,
                            N n, cudaStream_t s)
{
    using cub::DeviceReduce;
    if constexpr (OP == ARGMAX) return DeviceReduce::ArgMax(tmp, bytes, in, out, index, (int64_t)n, s);
    else if constexpr (OP == MAX) return DeviceReduce::Max(tmp, bytes, in, out, n, s);
    else if constexpr (OP == MIN) return DeviceReduce::Min(tmp, bytes, in, out, n, s);
    else if constexpr (OP == SUMSQ)
        return DeviceReduce::TransformReduce(tmp, bytes, in, out, n, cuda::std::plus<>{}, square_float{}, 0.0f, s);
    else if constexpr (narrow<In>)
        return DeviceReduce::TransformReduce(tmp, bytes, in, out, n, cuda::std::plus<>{}, to_float{}, 0.0f, s);
    else return DeviceReduce::Sum(tmp, bytes, in, out, n, s);
}

// One pair's call without its types: tmp == nullptr asks for the scratch's size.
template <class In, int OP>
static cudaError_t call(void *tmp, size_t &bytes, const void *in, void *out, int64_t *index, size_t n,
                        cudaStream_t s)
{
    auto x = (const In *)in;
    auto o = (out_t<In, OP> *)out;
    if (OP != ARGMAX && n <= INT_MAX) return cub_call<In, OP>(tmp, bytes, x, o, index, (int)n, s);
    return cub_call<In, OP>(tmp, bytes, x, o, index, (int64_t)n, s);
}

// The result, as text: integers as integers, floating point with 17 digits.
template <class In, int OP>
static void show(const void *out, char *buf, size_t len)
{
    out_t<In, OP> v;
    memcpy(&v, out, sizeof v);
    if constexpr (std::is_integral_v<decltype(v)>) snprintf(buf, len, "%lld", (long long)v);
    else if constexpr (std::is_same_v<decltype(v), double>) snprintf(buf, len, "%.17g", v);
    else snprintf(buf, len, "%.17g", (double)(float)v);    // float, half, bf16
}

struct pair_t {
    const char *type, *op;
    cudaError_t (*call)(void *, size_t &, const void *, void *, int64_t *, size_t, cudaStream_t);
    void (*show)(const void *, char *, size_t);
    size_t size;             // bytes an element
    const char *descr;       // the .npy dtype, or NULL: a raw *.bf16 file
};
#define PAIR(T, NAME, DESCR, OP, OPNAME) { NAME, OPNAME, call<T, OP>, show<T, OP>, sizeof(T), DESCR }
static const pair_t PAIRS[] = {
    PAIR(float, "float", "<f4", SUM, "sum"),   PAIR(double, "double", "<f8", SUM, "sum"),
    PAIR(__half, "half", "<f2", SUM, "sum"),   PAIR(bf16, "bf16", NULL, SUM, "sum"),
    PAIR(int, "int32", "<i4", SUM, "sum"),
    PAIR(float, "float", "<f4", MAX, "max"),   PAIR(bf16, "bf16", NULL, MAX, "max"),
    PAIR(int, "int32", "<i4", MAX, "max"),
    PAIR(float, "float", "<f4", MIN, "min"),   PAIR(bf16, "bf16", NULL, MIN, "min"),
    PAIR(int, "int32", "<i4", MIN, "min"),
    PAIR(float, "float", "<f4", ARGMAX, "argmax"), PAIR(bf16, "bf16", NULL, ARGMAX, "argmax"),
    PAIR(int, "int32", "<i4", ARGMAX, "argmax"),
    PAIR(float, "float", "<f4", SUMSQ, "sumsq"), PAIR(bf16, "bf16", NULL, SUMSQ, "sumsq"),
};
#define PAIR_COUNT (sizeof PAIRS / sizeof PAIRS[0])
#define VALID "sum: float, double, half, bf16, int32; max, min, argmax: float, bf16, int32; sumsq: bf16, float"

static const pair_t *find_pair(const char *type, const char *op)
{
    for (size_t k = 0; k < PAIR_COUNT; k++)
        if (!strcmp(PAIRS[k].type, type) && !strcmp(PAIRS[k].op, op)) return &PAIRS[k];
    usage("--type %s --op %s is not a pair CUB is run on here (%s)", type, op, VALID);
}

// ---- the file -------------------------------------------------------------------------
// The array in path, checked against the pair's type: its bytes in *host, its length.
static size_t read_input(const char *path, const pair_t *p, unsigned char **host)
{
    FILE *f = fopen(path, "rb");
    if (!f) usage("'%s': cannot open it: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    uint64_t size = end > 0 ? (uint64_t)end : 0, at = 0;
    unsigned char b[NPY_PREFIX] = { 0 };
    rewind(f);
    size_t got = fread(b, 1, sizeof b, f);
    char why[300];
    int raw_bf16 = strlen(path) > 5 && !strcmp(path + strlen(path) - 5, ".bf16");
    if (got >= 6 && !memcmp(b, NPY_MAGIC, 6)) {
        uint32_t hlen = 0;
        npy_header_t h;
        if (npy_layout(b, size, &at, &hlen, why, sizeof why)) usage("'%s': %s", path, why);
        char *hdr = (char *)calloc(hlen + 1, 1);
        if (!hdr || fseek(f, (long)at, SEEK_SET) || fread(hdr, 1, hlen, f) != hlen)
            usage("'%s': cannot read its .npy header", path);
        if (npy_parse_header(hdr, &h, why, sizeof why)) usage("'%s': %s", path, why);
        free(hdr);
        at += hlen;
        if (!p->descr || strcmp(h.descr, p->descr))
            usage("'%s': .npy dtype '%s', but --type %s reads %s", path, h.descr, p->type,
                  p->descr ? p->descr : "a raw file of bf16 words named *.bf16");
        if (h.dims != 1 || h.shape[0] == 0 || h.shape[0] * p->size != size - at)
            usage("'%s': .npy shape %s with %llu bytes of data is not a 1-D array of n >= 1 %s", path,
                  h.shape_text, (unsigned long long)(size - at), p->type);
    } else if (p->descr || !raw_bf16 || size == 0 || size % 2) {
        usage("'%s': not a .npy file%s", path, p->descr ? "" : " nor an even, non-empty *.bf16 file of bf16 words");
    }
    size_t bytes = (size_t)(size - at);
    *host = (unsigned char *)malloc(bytes);
    if (!*host || fseek(f, (long)at, SEEK_SET) || fread(*host, 1, bytes, f) != bytes)
        usage("'%s': cannot read its %zu bytes of data", path, bytes);
    fclose(f);
    return bytes / p->size;
}

// ---- timing, as the harness's -----------------------------------------------------------
struct job_t {
    const pair_t *p;
    unsigned char *in;       // copies of the input, stride bytes apart
    size_t stride, n, scratch_bytes;
    void *scratch, *out;
    int64_t *index;
    cudaStream_t stream;
};

static void run_once(void *ctx, int slot, int copy)
{
    job_t *j = (job_t *)ctx;
    (void)slot;
    size_t bytes = j->scratch_bytes;
    CUDA_CHECK(j->p->call(j->scratch, bytes, j->in + (size_t)copy * j->stride, j->out, j->index, j->n, j->stream));
}

struct args_t { const char *type = "float", *op = "sum", *file = nullptr; int reps = 0, warm = 0; };

static args_t parse(int argc, char **argv)
{
    args_t a;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!strcmp(o, "--csv")) continue;                   // always CSV
        if (!strcmp(o, "--warm")) { a.warm = 1; continue; }
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            printf("usage: cub_types --type T --op O --input-file PATH [--reps R] [--warm] [--csv]\n"
                   "  pairs: " VALID "\n");
            exit(EXIT_OK);
        }
        if (!v) usage("%s: unknown option, or its value is missing (--help)", o);
        i++;
        if (!strcmp(o, "--type")) a.type = v;
        else if (!strcmp(o, "--op")) a.op = v;
        else if (!strcmp(o, "--input-file")) a.file = v;
        else if (!strcmp(o, "--reps")) {
            char *end;
            long r = strtol(v, &end, 10);
            if (*end || r < 1 || r > MAX_REPS) usage("--reps %s: give a whole number 1 to %d", v, MAX_REPS);
            a.reps = (int)r;
        } else usage("%s: unknown option (--help)", o);
    }
    if (!a.file) usage("--input-file PATH is needed: the array to reduce (./step12 --save-input PATH writes one)");
    return a;
}

int main(int argc, char **argv)
{
    g_step = "cub_types";
    args_t a = parse(argc, argv);
    const pair_t *p = find_pair(a.type, a.op);
    unsigned char *host = nullptr;
    size_t n = read_input(a.file, p, &host), bytes = n * p->size;
    count_devices();
    device_t dev;
    open_device_id(&dev, 0);
    options_t opt = {};
    opt.reps = a.reps;
    opt.warm = a.warm;
    job_t j = { p, nullptr, (bytes + 255) / 256 * 256, n, 0, nullptr, nullptr, nullptr, nullptr };
    work_t w = {};
    w.ctx = &j;
    w.count = 1;
    w.device[0] = dev.id;
    w.copies = input_copies(&opt, bytes, dev.l2_bytes);
    w.run = run_once;
    CUDA_CHECK(cudaStreamCreate(&j.stream));
    w.stream[0] = j.stream;
    CUDA_CHECK(p->call(nullptr, j.scratch_bytes, nullptr, nullptr, nullptr, n, j.stream));
    j.in = (unsigned char *)device_alloc((size_t)w.copies * j.stride, "the input and its copies");
    j.scratch = device_alloc(j.scratch_bytes ? j.scratch_bytes : 1, "CUB's scratch");
    j.out = device_alloc(16, "the result");
    j.index = (int64_t *)device_alloc(sizeof(int64_t), "the index");
    for (int c = 0; c < w.copies; c++) CUDA_CHECK(cudaMemcpy(j.in + (size_t)c * j.stride, host, bytes, cudaMemcpyHostToDevice));
    free(host);
    timing_t t;
    measure(&w, &opt, &t);
    unsigned char out[16];
    int64_t index = -1;
    CUDA_CHECK(cudaMemcpy(out, j.out, sizeof out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&index, j.index, sizeof index, cudaMemcpyDeviceToHost));
    char result[64], where[32] = "-";
    p->show(out, result, sizeof result);
    if (!strcmp(p->op, "argmax")) snprintf(where, sizeof where, "%lld", (long long)index);
    printf("lib,type,op,device,n,bytes,median_us,gbps,result,index\n");
    printf("cub,%s,%s,\"%s\",%zu,%zu,%.3f,%.1f,%s,%s\n", p->type, p->op, dev.name, n, bytes, t.median_us,
           bytes / (t.median_us * 1e3), result, where);
    return EXIT_OK;
}
