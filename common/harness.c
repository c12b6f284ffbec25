/* harness.c: run_step(), and one run of a step.
 *
 *   one run             run_one: plan, allocate, draw, run, time, check, report
 *   run_step            arguments, then every size and seed
 *
 * It uses the parts below it (parts.h lists them): check.c (is the result
 * right?), timing.c (timing device work), device.c (the GPU), fail.c
 * (failing clearly), args.c, data.c, order.c, report.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"

/* ---- one run ---------------------------------------------------------------- */
#define SLOW_RUN_S 0.1           /* above this, automatic --reps shrinks */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Draws the input into d_in (input.c), with the reference and, for a step
 * that fixes its order, the CPU replica. Everything the harness does on the
 * GPU goes through the step's stream: work on the legacy default stream would
 * not be ordered with it (the stream is non-blocking, so a step that forgets
 * its stream argument is caught, not silently serialised). */
static void fill_input(const step_t *step, elem_t *d_in, size_t n, uint64_t seed, reference_t *ref,
                       const device_t *dev, cudaStream_t stream)
{
    part_t whole = { d_in, 0, n, dev->id, stream };
    fill_parts(seed, n, step->combine == COMBINE_FIXED_ORDER ? step->chunk : 0, &whole, 1, ref);
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
    cudaStream_t stream;
} step_run_t;

static void poison_scratch(void *ctx, int r)
{
    step_run_t *c = (step_run_t *)ctx;
    (void)r;
    if (c->scratch_bytes) CUDA_CHECK(cudaMemsetAsync(c->L->scratch, POISON, c->scratch_bytes, c->stream));
}

static void run_step_once(void *ctx, int r)
{
    step_run_t *c = (step_run_t *)ctx;
    const elem_t *in = c->d_in + (size_t)((r + 1) % c->copies) * c->copy_stride;
    c->step->reduce(in, c->d_slots + r, c->L, c->stream);
}

/* How one run is laid out: the launch, and the memory it needs. */
typedef struct {
    launch_t L;
    size_t bytes;             /* of the input */
    size_t stride;            /* bytes between input copies, each 256-aligned */
    int copies;               /* of the input, so that timed runs outrun L2 */
    int runs_max;             /* result slots: checked, warm-up, timed */
    size_t scratch_bytes;
} plan_t;

/* Sizes the launch and checks that everything fits, or stops saying why:
 * memory first (the clearest message), then the grid the step asks for. */
static void plan_run(const step_t *step, const options_t *opt, const device_t *dev, size_t n,
                     plan_t *p)
{
    launch_t *L = &p->L;
    memset(p, 0, sizeof *p);
    L->n = n;
    L->device = dev->id;
    L->sm_count = dev->sm_count;
    L->block = opt->block ? opt->block
             : step->block_size ? step->block_size(L) : step->default_block;

    p->bytes = n * sizeof(elem_t);
    p->stride = div_up(p->bytes, 256) * 256;
    int max_reps = opt->check_only ? 0 : (opt->reps ? opt->reps : DEFAULT_REPS);
    size_t fresh = opt->warm ? 1 : div_up(3 * (size_t)dev->l2_bytes, p->bytes); /* to outrun L2 */
    p->copies = (int)min_size(fresh, (size_t)(max_reps > 0 ? max_reps : 1));
    p->runs_max = max_reps + 2;

    /* The input alone may not fit: say so before anything about the launch
     * (at n = 2^40, step 00 would otherwise ask for a larger --block). */
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t results_bytes = (size_t)p->runs_max * sizeof(elem_t);
    size_t margin = (size_t)1 << 20;
    if ((size_t)p->copies * p->stride + results_bytes + margin > free_b)
        memory_fail(n, (size_t)p->copies * p->stride + results_bytes + margin, free_b, dev->name);

    size_t grid = step->grid_size(L);       /* always asked: it may check the device */
    if (opt->grid) grid = (size_t)opt->grid;
    if (grid < 1) {
        fprintf(stderr, "%s: no block of %d threads fits on %s (the kernel needs too many "
                "registers or too much shared memory); try a smaller --block\n",
                g_step, L->block, dev->name);
        exit_cleanly(EXIT_DEVICE);
    }
    if (grid > (size_t)dev->max_grid_x) {
        fprintf(stderr, "%s: n = %zu needs %zu blocks of %d threads, but %s allows at most %d "
                "in a launch; use a larger --block\n", g_step, n, grid, L->block, dev->name,
                dev->max_grid_x);
        exit_cleanly(EXIT_USAGE);
    }
    L->grid = (int)grid;
    p->scratch_bytes = step->scratch_size ? step->scratch_size(L) : 0;

    size_t need = (size_t)p->copies * p->stride + p->scratch_bytes + step->state_bytes +
                  results_bytes + margin;
    if (need > free_b) memory_fail(n, need, free_b, dev->name);
}

/* The checked run, which also loads the module, then (unless --check-only) a
 * warm-up run whose time sets the automatic number of repetitions. Returns
 * the number of runs made; *warm_ms is the last one's time. */
static int first_runs(const step_t *step, const options_t *opt, plan_t *p, const elem_t *d_in,
                      elem_t *d_slots, cudaStream_t stream, float *warm_ms)
{
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    int runs = opt->check_only ? 1 : 2;
    for (int r = 0; r < runs; r++) {
        if (p->scratch_bytes) CUDA_CHECK(cudaMemsetAsync(p->L.scratch, POISON, p->scratch_bytes, stream));
        CUDA_CHECK(cudaEventRecord(t0, stream));
        step->reduce(d_in, d_slots + r, &p->L, stream);
        CUDA_CHECK(cudaEventRecord(t1, stream));
        sync_or_fail(stream, r == 0 ? "in the checked run" : "in the warm-up run");
    }
    CUDA_CHECK(cudaEventElapsedTime(warm_ms, t0, t1));
    CUDA_CHECK(cudaEventDestroy(t0));
    CUDA_CHECK(cudaEventDestroy(t1));
    return runs;
}

/* The timed runs, after the warm-up: --reps of them, or DEFAULT_REPS (fewer
 * when one run is slow). Returns each run's time in µs; *reps says how many. */
static double *timed_runs(const step_t *step, const options_t *opt, plan_t *p, const elem_t *d_in,
                          elem_t *d_slots, cudaStream_t stream, float warm_ms, int *reps)
{
    int n = opt->reps;
    if (n == 0) {
        n = DEFAULT_REPS;
        if (warm_ms * 1e-3 > SLOW_RUN_S) n = (int)fmax(3, fmin(DEFAULT_REPS, 2.0 / (warm_ms * 1e-3)));
    }
    double *us = (double *)calloc((size_t)n, sizeof *us);
    if (!us) device_fail("out of host memory for the timings");
    step_run_t ctx = { step, &p->L, p->scratch_bytes, d_in, p->stride / sizeof(elem_t), p->copies,
                       d_slots + 2, stream };
    streams_t on = { .count = 1, .stream = { stream }, .device = { p->L.device } };
    time_device_work(poison_scratch, run_step_once, &ctx, n, us, &on);
    *reps = n;
    return us;
}

static void print_result(const options_t *opt, const result_t *res)
{
    char line[1024];
    if (opt->csv) format_csv(line, sizeof line, res);
    else format_report(line, sizeof line, res);
    printf("%s\n", line);
    fflush(stdout);
}

static int run_one(const step_t *step, const options_t *opt, const device_t *dev,
                   size_t n, uint64_t seed)
{
    plan_t p;
    plan_run(step, opt, dev, n, &p);
    launch_t *L = &p.L;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    elem_t *d_in = (elem_t *)device_alloc((size_t)p.copies * p.stride, "the input");
    elem_t *d_slots = (elem_t *)device_alloc((size_t)p.runs_max * sizeof(elem_t), "the results");
    L->scratch = p.scratch_bytes ? device_alloc(p.scratch_bytes, "the step's scratch") : NULL;
    L->state = step->state_bytes ? device_alloc(step->state_bytes, "the step's state") : NULL;

    reference_t ref;
    fill_input(step, d_in, n, seed, &ref, dev, stream);
    for (int c = 1; c < p.copies; c++)
        CUDA_CHECK(cudaMemcpyAsync((char *)d_in + (size_t)c * p.stride, d_in, p.bytes,
                                   cudaMemcpyDeviceToDevice, stream));
    if (L->state) CUDA_CHECK(cudaMemsetAsync(L->state, 0, step->state_bytes, stream));
    /* Poison every result slot: a step that writes nothing leaves NaN. */
    CUDA_CHECK(cudaMemsetAsync(d_slots, POISON, (size_t)p.runs_max * sizeof(elem_t), stream));

    float warm_ms = 0;
    int runs = first_runs(step, opt, &p, d_in, d_slots, stream, &warm_ms);
    int reps = 0;
    double *us = NULL;
    if (!opt->check_only) {
        us = timed_runs(step, opt, &p, d_in, d_slots, stream, warm_ms, &reps);
        runs = reps + 2;
    }

    /* Every run's result, and the step's state, back to the host. */
    elem_t *h_results = (elem_t *)malloc((size_t)runs * sizeof(elem_t));
    unsigned char *h_state = (unsigned char *)malloc(step->state_bytes + 1);
    if (!h_results || !h_state) device_fail("out of host memory for the results");
    CUDA_CHECK(cudaMemcpyAsync(h_results, d_slots, (size_t)runs * sizeof(elem_t),
                               cudaMemcpyDeviceToHost, stream));
    if (L->state) CUDA_CHECK(cudaMemcpyAsync(h_state, L->state, step->state_bytes,
                                             cudaMemcpyDeviceToHost, stream));
    sync_or_fail(stream, "copying the results back");

    result_t res = { .step = step->name, .technique = step->technique, .device = dev->name,
                     .n = n, .seed = seed, .block = L->block, .grid = L->grid, .reps = reps,
                     .runs = runs, .warm = opt->warm, .peak_gbps = dev->peak_gbps };
    check_runs(step, h_results, runs, h_state, &ref, seed, &res);
    if (reps > 0) {
        qsort(us, (size_t)reps, sizeof *us, compare_double);
        res.min_us = us[0];
        res.median_us = reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
    }

    print_result(opt, &res);

    free(us);
    free(h_results);
    free(h_state);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_slots));
    if (L->scratch) CUDA_CHECK(cudaFree(L->scratch));
    if (L->state) CUDA_CHECK(cudaFree(L->state));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return res.ok ? EXIT_OK : EXIT_WRONG;
}

/* ---- run_step ---------------------------------------------------------------- */
int run_step(int argc, char **argv, const step_t *step)
{
    g_step = step->name;
    if (step->combine == COMBINE_FIXED_ORDER &&
        (step->chunk == 0 || step->chunk % 128 || step->chunk > ((size_t)1 << 24)))
        device_fail("the step's chunk must be a multiple of 128 elements, at most 2^24");
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
