/* harness.c: run_step() (harness.h), a step on one GPU, every size and seed.
 * The runs themselves, their timing and the median are the driver's
 * (timing.c); this file says what one run of a step is.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "parts.h"

/* ---- the plan ------------------------------------------------------------------ */
/* Everything one run of a step needs, and the work the driver runs. */
typedef struct {
    const step_t *step;
    launch_t L;
    size_t bytes;             /* of the input */
    size_t stride;            /* bytes between input copies, each 256-aligned */
    int slots;                /* result slots: checked, warm-up, timed */
    size_t scratch_bytes;
    elem_t *d_in, *d_slots;
    work_t work;
} plan_t;

/* Sizes the launch and checks that everything fits, or stops saying why:
 * memory first (the clearest message), then the grid the step asks for. */
static void plan_run(plan_t *p, const options_t *opt, const device_t *dev, size_t n)
{
    const step_t *step = p->step;
    launch_t *L = &p->L;
    L->n = n;
    L->device = dev->id;
    L->sm_count = dev->sm_count;
    L->block = opt->block ? opt->block : step->block_size ? step->block_size(L) : step->default_block;
    p->bytes = n * sizeof(elem_t);
    p->stride = div_up(p->bytes, 256) * 256;
    p->work.copies = input_copies(opt, p->bytes, dev->l2_bytes);
    p->slots = (opt->check_only ? 0 : opt->reps ? opt->reps : DEFAULT_REPS) + 2;
    size_t fixed = (size_t)p->work.copies * p->stride + (size_t)p->slots * sizeof(elem_t) + ((size_t)1 << 20);
    /* The input alone may not fit: say so before anything about the launch
     * (at n = 2^40, step 00 would otherwise ask for a larger --block). */
    check_memory(n, fixed, dev->name);

    size_t grid = checked_grid(step->grid_size(L), opt->grid, n, L->block, step->max_grid, dev);
    L->grid = (int)grid;
    p->scratch_bytes = step->scratch_size ? step->scratch_size(L) : 0;
    check_memory(n, fixed + p->scratch_bytes + step->state_bytes, dev->name);
}

/* ---- the work ------------------------------------------------------------------- */
/* Before every run: the scratch poisoned, so that a step that reads what it
 * never wrote is caught. Everything the harness does on the GPU goes through
 * the step's stream: work on the legacy default stream would not be ordered
 * with it (the stream is non-blocking, so a step that forgets its stream
 * argument is caught, not silently serialised). */
static void poison_scratch(void *ctx, int slot)
{
    plan_t *p = (plan_t *)ctx;
    (void)slot;
    if (p->scratch_bytes)
        CUDA_CHECK(cudaMemsetAsync(p->L.scratch, POISON, p->scratch_bytes, p->work.stream[0]));
}

static void run_once(void *ctx, int slot, int copy)
{
    plan_t *p = (plan_t *)ctx;
    const elem_t *in = p->d_in + (size_t)copy * (p->stride / sizeof(elem_t));
    p->step->reduce(in, p->d_slots + slot, &p->L, p->work.stream[0]);
}

/* The memory, the input and its copies, the poisoned result slots. */
static void set_up(plan_t *p, size_t n, const source_t *src, const device_t *dev, reference_t *ref)
{
    const step_t *step = p->step;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    p->work = (work_t){ .ctx = p, .count = 1, .stream = { stream }, .device = { dev->id },
                        .copies = p->work.copies, .prepare = poison_scratch, .run = run_once };
    p->d_in = (elem_t *)device_alloc((size_t)p->work.copies * p->stride, "the input");
    p->d_slots = (elem_t *)device_alloc((size_t)p->slots * sizeof(elem_t), "the results");
    p->L.scratch = p->scratch_bytes ? device_alloc(p->scratch_bytes, "the step's scratch") : NULL;
    p->L.state = step->state_bytes ? device_alloc(step->state_bytes, "the step's state") : NULL;

    part_t whole = { p->d_in, 0, n, dev->id, stream };
    fill_parts(src, n, step->combine == COMBINE_FIXED_ORDER ? step->chunk : 0, &whole, 1, ref);
    for (int c = 1; c < p->work.copies; c++)
        CUDA_CHECK(cudaMemcpyAsync((char *)p->d_in + (size_t)c * p->stride, p->d_in, p->bytes,
                                   cudaMemcpyDeviceToDevice, stream));
    if (p->L.state) CUDA_CHECK(cudaMemsetAsync(p->L.state, 0, step->state_bytes, stream));
    /* Every result slot poisoned: a step that writes nothing leaves NaN. */
    CUDA_CHECK(cudaMemsetAsync(p->d_slots, POISON, (size_t)p->slots * sizeof(elem_t), stream));
}

static void tear_down(plan_t *p)
{
    CUDA_CHECK(cudaFree(p->d_in));
    CUDA_CHECK(cudaFree(p->d_slots));
    if (p->L.scratch) CUDA_CHECK(cudaFree(p->L.scratch));
    if (p->L.state) CUDA_CHECK(cudaFree(p->L.state));
    CUDA_CHECK(cudaStreamDestroy(p->work.stream[0]));
}

/* ---- one run ---------------------------------------------------------------------- */
/* Every run's result, and the step's state, which must be as the step found
 * it (all zero): the next launch starts from what this one left behind. */
static void check_results(const plan_t *p, int runs, const reference_t *ref, result_t *res)
{
    size_t state = p->step->state_bytes;
    elem_t *h = (elem_t *)malloc((size_t)runs * sizeof(elem_t) + state);
    if (!h) device_fail("out of host memory for the results");
    CUDA_CHECK(cudaMemcpy(h, p->d_slots, (size_t)runs * sizeof(elem_t), cudaMemcpyDeviceToHost));
    rule_t rule = { p->step->combine, p->step->chunk, p->step->deterministic };
    check_runs(&rule, h, runs, ref, res);
    unsigned char *s = (unsigned char *)(h + runs);
    if (state) CUDA_CHECK(cudaMemcpy(s, p->L.state, state, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < state; i++)
        if (s[i]) {
            fprintf(stderr, "%s: the step left its state changed; the next launch would start "
                    "from what this one left behind\n", g_step);
            res->ok = 0;
            break;
        }
    free(h);
}

static int run_one(const step_t *step, const options_t *opt, const device_t *dev, size_t n,
                   const source_t *src)
{
    plan_t p;
    memset(&p, 0, sizeof p);
    p.step = step;
    plan_run(&p, opt, dev, n);
    static reference_t ref;
    set_up(&p, n, src, dev, &ref);
    timing_t t;
    measure(&p.work, opt, &t);
    result_t res = { .step = step->name, .technique = step->technique, .device = dev->name,
                     .input = src->file ? src->file->path : dist_info[src->dist].name,
                     .n = n, .seed = src->seed, .block = p.L.block, .grid = p.L.grid, .reps = t.reps,
                     .runs = t.runs, .warm = opt->warm, .waited = opt->wait_each, .median_us = t.median_us,
                     .min_us = t.min_us, .peak_gbps = dev->peak_gbps };
    check_results(&p, t.runs, &ref, &res);
    print_result(opt, &res);
    tear_down(&p);
    return res.ok ? EXIT_OK : EXIT_WRONG;
}

/* ---- the one driver -------------------------------------------------------------- */
int drive(int argc, char **argv, driver_t *d)
{
    options_t opt;
    infile_t file;
    if (d->extra) add_options(d->extra, d->extra_count);
    memset(&file, 0, sizeof file);
    int done = d->read ? d->read(d, argc, argv, &opt) : read_command_line(argc, argv, &d->prog, &opt, &file);
    if (done >= 0) return done;     /* --help, or a mistake */
    if (d->read) opt.input_file = NULL;     /* the program's own file, in its ctx */
    if (d->after_options && (done = d->after_options(d, argc, argv, &opt, &file)) != EXIT_OK) {
        if (opt.input_file) infile_close(&file);
        return done;
    }
    const char *how = NULL;
    const device_t *dev = d->open(d, &opt, &how);
    if (dev) print_header(&opt, &d->prog, dev, how);
    int worst = EXIT_OK, inputs = d->inputs ? d->inputs : opt.n_count;
    for (int i = 0; i < inputs; i++)
        for (int s = 0; s < opt.seed_count; s++) {
            source_t src = { opt.input, opt.seed[s], opt.input_file ? &file : NULL };
            int rc = d->one(d, &opt, i, &src);
            if (rc > worst) worst = rc;
        }
    if (opt.input_file) infile_close(&file);
    if (d->close) d->close(d);
    else CUDA_CHECK(cudaDeviceReset());     /* lets compute-sanitizer check for leaks */
    return worst;
}

/* ---- run_step ----------------------------------------------------------------------- */
static device_t g_dev;

static const device_t *open_one(driver_t *d, const options_t *opt, const char **how)
{
    (void)d, (void)opt, (void)how;
    count_devices();
    open_device_id(&g_dev, 0);
    return &g_dev;
}

static int step_one(driver_t *d, const options_t *opt, int i, const source_t *src)
{
    return run_one((const step_t *)d->ctx, opt, &g_dev, opt->n[i], src);
}

int run_step(int argc, char **argv, const step_t *step)
{
    g_step = step->name;
    if (step->combine == COMBINE_FIXED_ORDER &&
        (step->chunk == 0 || step->chunk % 128 || step->chunk > ((size_t)1 << 24)))
        device_fail("the step's chunk must be a multiple of 128 elements, at most 2^24");
    driver_t d = { .prog = { step->name, step->technique, step->block_rule, step->default_block,
                             step->block_size != NULL, 0, 0 },
                   .ctx = (void *)step, .open = open_one, .one = step_one };
    return drive(argc, argv, &d);
}
