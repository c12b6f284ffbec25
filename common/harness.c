/* harness.c: run_step(), one run of a step and its checks.
 *
 *   one run             run_one: allocate, draw, check, time, report
 *   run_step            arguments, then every size and seed
 *
 * The other parts of the harness are beside it: device.c (the GPU, and
 * failing clearly), timing.c (timing device work), args.c, data.c, report.c.
 */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime: POSIX, not C11 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parts.h"

/* ---- one run ---------------------------------------------------------------- */
#define STAGE ((size_t)1 << 24)  /* elements drawn on the CPU per copy to the GPU */
#define SLOW_RUN_S 0.1           /* above this, automatic --reps shrinks */
#define POISON 0xFF              /* every byte: a float NaN, or 0xFFFFFFFF */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Is one result right? For floats: finite and within the bound. */
static int result_ok(elem_t got, const reference_t *ref, double bound, double *error)
{
#ifdef REDUCE_EXACT
    *error = got == ref->u_sum ? 0 : 1;
    (void)bound;
    return got == ref->u_sum;
#else
    *error = fabs((double)got - reference_sum(ref));
    return isfinite(got) && *error <= bound;
#endif
}

static int all_zero(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i]) return 0;
    return 1;
}

/* Draws the input into d_in, STAGE elements at a time, and computes the
 * reference on the way. Everything the harness does on the GPU goes through
 * the step's stream: work on the legacy default stream would not be ordered
 * with it (the stream is non-blocking, so a step that forgets its stream
 * argument is caught, not silently serialised). */
static void fill_input(elem_t *d_in, size_t n, uint64_t seed, reference_t *ref, cudaStream_t stream)
{
    size_t stage = min_size(n, STAGE);
    elem_t *h_stage = NULL;
    CUDA_CHECK(cudaMallocHost((void **)&h_stage, stage * sizeof(elem_t)));
    memset(ref, 0, sizeof *ref);
    for (size_t first = 0; first < n; first += stage) {
        size_t count = min_size(stage, n - first);
        draw_input(seed, first, count, h_stage, ref);
        CUDA_CHECK(cudaMemcpyAsync(d_in + first, h_stage, count * sizeof(elem_t),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));    /* before h_stage is drawn again */
    }
    CUDA_CHECK(cudaFreeHost(h_stage));
}

/* What one timed run of a step needs. Run r reads input copy (r + 1) % copies
 * (copy 0 was just used by the checked and warm-up runs), so that a small
 * input is not still in L2 from the run before, and writes result slot r. */
typedef struct {
    const step_t *step;
    launch_t *L;
    size_t scratch_bytes;
    const elem_t *d_in;
    size_t copy_stride;       /* elements between copies */
    int copies;
    elem_t *d_slots;
} step_run_t;

static void poison_scratch(void *ctx, int r, cudaStream_t stream)
{
    step_run_t *c = (step_run_t *)ctx;
    (void)r;
    if (c->scratch_bytes) CUDA_CHECK(cudaMemsetAsync(c->L->scratch, POISON, c->scratch_bytes, stream));
}

static void run_step_once(void *ctx, int r, cudaStream_t stream)
{
    step_run_t *c = (step_run_t *)ctx;
    const elem_t *in = c->d_in + (size_t)((r + 1) % c->copies) * c->copy_stride;
    c->step->reduce(in, c->d_slots + r, c->L, stream);
}

/* Counts distinct bit patterns among the results and their spread in ulps:
 * sorted copies of the bits, so that 100000 runs take milliseconds, not the
 * seconds that comparing every pair would. */
static int compare_bits(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

static void determinism(const elem_t *h, int runs, int *distinct, double *spread)
{
    _Static_assert(sizeof(elem_t) == sizeof(uint32_t), "compare_bits compares 32-bit elements");
    *distinct = 0;
    *spread = 0;
    elem_t *sorted = (elem_t *)malloc((size_t)runs * sizeof(elem_t));
    if (!sorted) device_fail("out of host memory for the results");
    memcpy(sorted, h, (size_t)runs * sizeof(elem_t));
    qsort(sorted, (size_t)runs, sizeof(elem_t), compare_bits);
    for (int i = 0; i < runs; i++)
        if (i == 0 || compare_bits(&sorted[i], &sorted[i - 1]) != 0) (*distinct)++;
    free(sorted);
#ifndef REDUCE_EXACT
    /* The widest pair is the smallest and the largest; a NaN is infinitely far. */
    if (runs < 2) return;
    float lo = h[0], hi = h[0];
    for (int i = 1; i < runs; i++) {
        if (isnan(h[i]) || isnan(lo)) { *spread = INFINITY; return; }
        if (h[i] < lo) lo = h[i];
        if (h[i] > hi) hi = h[i];
    }
    *spread = ulp_distance(lo, hi);
#endif
}

static int run_one(const step_t *step, const options_t *opt, const device_t *dev,
                   size_t n, uint64_t seed)
{
    launch_t L = { 0 };
    L.n = n;
    L.block = opt->block ? opt->block : step->default_block;
    L.device = dev->id;
    L.sm_count = dev->sm_count;

    /* Memory first: a size that cannot fit is the clearest message. */
    size_t bytes = n * sizeof(elem_t);
    size_t stride = div_up(bytes, 256) * 256;                /* keeps each copy aligned */
    int max_reps = opt->check_only ? 0 : (opt->reps ? opt->reps : DEFAULT_REPS);
    size_t fresh = opt->warm ? 1 : div_up(3 * (size_t)dev->l2_bytes, bytes); /* to outrun L2 */
    int copies = (int)min_size(fresh, (size_t)(max_reps > 0 ? max_reps : 1));
    int runs_max = max_reps + 2;                             /* checked, warm-up, timed */

    /* The input alone may not fit: say so before anything about the launch
     * (at n = 2^40, step 00 would otherwise ask for a larger --block). */
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t results_bytes = (size_t)runs_max * sizeof(elem_t);
    size_t margin = (size_t)1 << 20;
    if ((size_t)copies * stride + results_bytes + margin > free_b)
        memory_fail(n, (size_t)copies * stride + results_bytes + margin, free_b, dev);

    size_t grid = step->grid_size(&L);      /* always asked: it may check the device */
    if (opt->grid) grid = (size_t)opt->grid;
    if (grid < 1) {
        fprintf(stderr, "%s: no block of %d threads fits on %s (the kernel needs too many "
                "registers or too much shared memory); try a smaller --block\n",
                g_step, L.block, dev->name);
        die(EXIT_DEVICE);
    }
    if (grid > (size_t)dev->max_grid_x) {
        fprintf(stderr, "%s: n = %zu needs %zu blocks of %d threads, but %s allows at most %d "
                "in a launch; use a larger --block\n", g_step, n, grid, L.block, dev->name,
                dev->max_grid_x);
        die(EXIT_USAGE);
    }
    L.grid = (int)grid;
    size_t scratch_bytes = step->scratch_size ? step->scratch_size(&L) : 0;

    size_t need = (size_t)copies * stride + scratch_bytes + step->state_bytes + results_bytes + margin;
    if (need > free_b) memory_fail(n, need, free_b, dev);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    elem_t *d_in = (elem_t *)device_alloc((size_t)copies * stride, "the input");
    elem_t *d_slots = (elem_t *)device_alloc((size_t)runs_max * sizeof(elem_t), "the results");
    L.scratch = scratch_bytes ? device_alloc(scratch_bytes, "the step's scratch") : NULL;
    L.state = step->state_bytes ? device_alloc(step->state_bytes, "the step's state") : NULL;

    reference_t ref;
    fill_input(d_in, n, seed, &ref, stream);
    for (int c = 1; c < copies; c++)
        CUDA_CHECK(cudaMemcpyAsync((char *)d_in + (size_t)c * stride, d_in, bytes,
                                   cudaMemcpyDeviceToDevice, stream));
    if (L.state) CUDA_CHECK(cudaMemsetAsync(L.state, 0, step->state_bytes, stream));
    /* Poison every result slot: a step that writes nothing leaves NaN. */
    CUDA_CHECK(cudaMemsetAsync(d_slots, POISON, (size_t)runs_max * sizeof(elem_t), stream));

    /* The checked run, which also loads the module, then a warm-up run whose
     * time sets the automatic number of repetitions. */
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    int runs = opt->check_only ? 1 : 2;
    for (int r = 0; r < runs; r++) {
        if (scratch_bytes) CUDA_CHECK(cudaMemsetAsync(L.scratch, POISON, scratch_bytes, stream));
        CUDA_CHECK(cudaEventRecord(t0, stream));
        step->reduce(d_in, d_slots + r, &L, stream);
        CUDA_CHECK(cudaEventRecord(t1, stream));
        sync_or_fail(stream, r == 0 ? "in the checked run" : "in the warm-up run");
    }
    float warm_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&warm_ms, t0, t1));

    int reps = 0;
    double *us = NULL;
    if (!opt->check_only) {
        reps = opt->reps;
        if (reps == 0) {
            reps = DEFAULT_REPS;
            if (warm_ms * 1e-3 > SLOW_RUN_S) reps = (int)fmax(3, fmin(DEFAULT_REPS, 2.0 / (warm_ms * 1e-3)));
        }
        us = (double *)calloc((size_t)reps, sizeof *us);
        if (!us) device_fail("out of host memory for the timings");
        step_run_t ctx = { step, &L, scratch_bytes, d_in, stride / sizeof(elem_t), copies, d_slots + 2 };
        time_device_work(poison_scratch, run_step_once, &ctx, reps, us, stream);
        runs = reps + 2;
    }

    /* Check every run, and that the step left its state as it found it. */
    elem_t *h_results = (elem_t *)malloc((size_t)runs * sizeof(elem_t));
    unsigned char *h_state = (unsigned char *)malloc(step->state_bytes + 1);
    if (!h_results || !h_state) device_fail("out of host memory for the results");
    CUDA_CHECK(cudaMemcpyAsync(h_results, d_slots, (size_t)runs * sizeof(elem_t),
                               cudaMemcpyDeviceToHost, stream));
    if (L.state) CUDA_CHECK(cudaMemcpyAsync(h_state, L.state, step->state_bytes,
                                            cudaMemcpyDeviceToHost, stream));
    sync_or_fail(stream, "copying the results back");

    result_t res = { 0 };
    res.step = step->name;
    res.technique = step->technique;
    res.device = dev->name;
    res.n = n;
    res.seed = seed;
    res.block = L.block;
    res.grid = L.grid;
    res.reps = reps;
    res.runs = runs;
    res.warm = opt->warm;
    res.peak_gbps = dev->peak_gbps;
    res.sum = h_results[0];
    res.reference = reference_sum(&ref);
    res.reference_u32 = ref.u_sum;
    res.declared_deterministic = step->deterministic;
    res.bound = error_bound(summation_depth(step->combine, n, L.grid, L.block), reference_abs_sum(&ref));
    res.ok = 1;
    for (int r = 0; r < runs; r++) {
        double e;
        int ok = result_ok(h_results[r], &ref, res.bound, &e);
        if (e > res.error || isnan(e)) res.error = e;
        if (!ok && res.ok) {
#ifdef REDUCE_EXACT
            fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %u, expected %u\n",
                    g_step, n, (unsigned long long)seed, r + 1, runs, h_results[r], ref.u_sum);
#else
            fprintf(stderr, "%s: n = %zu, seed %llu: run %d of %d gave %.9g, expected %.9g: "
                    "error %.3g is over the bound %.3g\n", g_step, n, (unsigned long long)seed,
                    r + 1, runs, (double)h_results[r], res.reference, e, res.bound);
#endif
        }
        res.ok &= ok;
    }
    if (res.error != res.error) res.error = INFINITY;
    determinism(h_results, runs, &res.distinct, &res.spread_ulp);
    if (step->deterministic && res.distinct > 1) {
        fprintf(stderr, "%s: declared deterministic, but %d runs gave %d different results\n",
                g_step, runs, res.distinct);
        res.ok = 0;
    }
    if (L.state && !all_zero(h_state, step->state_bytes)) {
        fprintf(stderr, "%s: the step left its state changed; the next launch would start "
                "from what this one left behind\n", g_step);
        res.ok = 0;
    }
    if (reps > 0) {
        qsort(us, (size_t)reps, sizeof *us, compare_double);
        res.min_us = us[0];
        res.median_us = reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
    }

    char line[1024];
    if (opt->csv) format_csv(line, sizeof line, &res);
    else format_report(line, sizeof line, &res);
    printf("%s\n", line);
    fflush(stdout);

    free(us);
    free(h_results);
    free(h_state);
    CUDA_CHECK(cudaEventDestroy(t0));
    CUDA_CHECK(cudaEventDestroy(t1));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_slots));
    if (L.scratch) CUDA_CHECK(cudaFree(L.scratch));
    if (L.state) CUDA_CHECK(cudaFree(L.state));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return res.ok ? EXIT_OK : EXIT_WRONG;
}

/* ---- run_step ---------------------------------------------------------------- */
int run_step(int argc, char **argv, const step_t *step)
{
    g_step = step->name;
    options_t opt;
    char err[512];
    if (parse_args(argc, argv, step->block_rule, &opt, err, sizeof err)) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        return EXIT_USAGE;
    }
    if (opt.help) {
        print_help(stdout, argv[0], step);
        return EXIT_OK;
    }

    device_t dev;
    open_device(&dev);
    if (opt.csv) {
        char header[512];
        format_csv_header(header, sizeof header);
        printf("%s\n", header);
    } else {
        printf("# %s on %s (sm_%d%d, %d SMs, %.0f MB L2, nominal %.0f GB/s), %s elements\n",
               step->name, dev.name, dev.cc_major, dev.cc_minor, dev.sm_count,
               dev.l2_bytes / 1e6, dev.peak_gbps, ELEM_NAME);
    }

    int worst = EXIT_OK;
    for (int i = 0; i < opt.n_count; i++)
        for (int s = 0; s < opt.seed_count; s++) {
            int rc = run_one(step, &opt, &dev, opt.n[i], opt.seed[s]);
            if (rc > worst) worst = rc;
        }
    CUDA_CHECK(cudaDeviceReset());     /* lets compute-sanitizer check for leaks */
    return worst;
}
