/* rows/rows.c: run_rows() (rows.h), a sum for every row of a matrix, every
 * row checked. The driver (timing.c) makes the runs and times them; the
 * input, the references and the checks are those of steps 00-10, row by row.
 *
 * Contents
 *   1. the shapes: --shape RxL, --rows R with --n, a 2-D .npy
 *   2. one matrix: plan, input, runs
 *   3. every row checked
 *   4. the report line
 *   5. run_rows
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../parts.h"
#include "rows.h"

#define SLOT_BUDGET ((size_t)1 << 30)  /* bytes of result slots kept: past it, runs share slots */
#define DEFAULT_ROWS ((size_t)1 << 16) /* without --shape or --n: 65536 rows of 4096 */

/* ---- 1. the shapes ---------------------------------------------------------- */
static size_t g_shape[MAX_LIST][2];    /* rows, length */
static int g_shapes;
static size_t g_rows;                  /* --rows, or 0 */
static const char *g_sums;             /* --sums: where the checked run's row sums go, or NULL */

/* "RxL[,RxL...]": each side a size as --n takes it (2^20, 4K, 1000). */
static int set_shape(const char *value, char *why, size_t len)
{
    char item[128], err[160];
    for (const char *p = value;; p++) {
        size_t k = strcspn(p, ",");
        char *x;
        if (g_shapes == MAX_LIST) return snprintf(why, len, "more than %d shapes", MAX_LIST), -1;
        snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item ? k : sizeof item - 1), p);
        if (!(x = strpbrk(item, "xX")))
            return snprintf(why, len, "'%s' is not ROWSxLENGTH (e.g. 1000x4096)", item), -1;
        *x = '\0';
        size_t *s = g_shape[g_shapes];
        if (parse_size(item, &s[0], err, sizeof err) || parse_size(x + 1, &s[1], err, sizeof err))
            return snprintf(why, len, "%s", err), -1;
        if (s[0] == 0 || s[1] == 0)
            return snprintf(why, len, "%zux%zu holds no elements: at least 1x1", s[0], s[1]), -1;
        if (s[0] > MAX_N / s[1])
            return snprintf(why, len, "%zux%zu is more than the 2^40 elements the harness takes",
                            s[0], s[1]), -1;
        g_shapes++;
        p += k;
        if (*p != ',') return 0;
    }
}

static int set_rows(const char *value, char *why, size_t len)
{
    uint64_t v;
    int rc = parse_count(value, MAX_N, &v, why, len);
    g_rows = (size_t)v;
    return rc;
}

static int set_sums(const char *value, char *why, size_t len)
{
    if (*value == '\0') return snprintf(why, len, "the value is empty"), -1;
    g_sums = value;
    return 0;
}

static const extra_option_t row_options[] = {
    { "--shape", "RxL[,..]", "the matrices: R rows of L elements each (default 65536x4096);\n"
      "                     each side a size as --n takes it: 2^16x4K, 7x1000", set_shape },
    { "--rows", "R", "with --n: each n cut into R rows (R must divide it); --n\n"
      "                     alone is one row of n", set_rows },
    { "--sums", "PATH", "write the checked run's row sums to PATH, 4 bytes each (raw\n"
      "                     float32): to compare batches; the last shape's", set_sums },
};

static int given(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0 || (strncmp(argv[i], name, strlen(name)) == 0 &&
                                           argv[i][strlen(name)] == '='))
            return 1;
    return 0;
}

/* The list of shapes from the options (and the file), or a reason in why. */
static int resolve_shapes(int argc, char **argv, const options_t *opt, const infile_t *file,
                          char *why, size_t len)
{
    int n_given = given(argc, argv, "--n");
    if (g_shapes && (n_given || g_rows))
        return snprintf(why, len, "--shape gives the sizes: leave out --%s",
                        n_given ? "n" : "rows"), -1;
    if (opt->input_file) {
        size_t r = g_shapes ? g_shape[0][0] : g_rows ? g_rows : file->rows, n = file->n;
        if (g_shapes > 1) return snprintf(why, len, "one --shape for one --input-file"), -1;
        if (file->rows > 1 && r != file->rows)
            return snprintf(why, len, "'%s' is a matrix of %zu rows, not %zu", file->path,
                            file->rows, r), -1;
        if (g_shapes && r * g_shape[0][1] != n)
            return snprintf(why, len, "--shape %zux%zu is %zu elements, but '%s' holds %zu", r,
                            g_shape[0][1], r * g_shape[0][1], file->path, n), -1;
        if (n % r)
            return snprintf(why, len, "--rows %zu does not divide the %zu floats of '%s'", r, n,
                            file->path), -1;
        g_shape[0][0] = r, g_shape[0][1] = n / r, g_shapes = 1;
        return 0;
    }
    if (g_shapes) return 0;
    for (int i = 0; i < opt->n_count; i++) {
        size_t n = opt->n[i], r = g_rows ? g_rows : n_given ? 1 : DEFAULT_ROWS;
        if (n % r)
            return snprintf(why, len, "--rows %zu does not divide --n %zu (%zu rows of %zu, "
                            "%zu left over)", r, n, r, n / r, n % r), -1;
        g_shape[i][0] = r, g_shape[i][1] = n / r;
    }
    g_shapes = opt->n_count;
    return 0;
}

/* ---- 2. one matrix ------------------------------------------------------------ */
typedef struct {
    const rows_step_t *step;
    rows_launch_t L;
    size_t n, stride;          /* elements; bytes between input copies */
    size_t slot_stride;        /* bytes between result slots */
    int slots, runs_max;       /* slots kept; runs that write one */
    size_t scratch_bytes, state_bytes;
    elem_t *d_in, *d_slots;
    work_t work;
} plan_t;

static size_t round256(size_t b) { return div_up(b, 256) * 256; }

/* The memory, the grid, and how many result slots fit in SLOT_BUDGET. */
static void plan_run(plan_t *p, const options_t *opt, const device_t *dev, size_t rows, size_t len)
{
    const rows_step_t *step = p->step;
    p->L = (rows_launch_t){ rows, len, opt->block ? opt->block : step->default_block, 0, dev->id,
                            dev->sm_count, NULL, NULL };
    p->n = rows * len;
    p->stride = round256(p->n * sizeof(elem_t));
    p->slot_stride = round256(rows * sizeof(elem_t));
    p->work.copies = input_copies(opt, p->stride + p->slot_stride, dev->l2_bytes);
    p->runs_max = (opt->check_only ? 0 : opt->reps ? opt->reps : DEFAULT_REPS) + 2;
    p->slots = (int)min_size((size_t)p->runs_max, SLOT_BUDGET / p->slot_stride > 2
                                                      ? SLOT_BUDGET / p->slot_stride : 2);
    size_t fixed = (size_t)p->work.copies * p->stride + (size_t)p->slots * p->slot_stride + ((size_t)1 << 20);
    check_memory(p->n, fixed, dev->name);
    p->L.grid = (int)checked_grid(step->grid_size(&p->L), opt->grid, p->n, p->L.block, 0, dev);
    p->scratch_bytes = step->scratch_size ? step->scratch_size(&p->L) : 0;
    p->state_bytes = step->state_size ? step->state_size(&p->L) : 0;
    check_memory(p->n, fixed + p->scratch_bytes + p->state_bytes, dev->name);
}

static elem_t *slot_at(const plan_t *p, int slot)
{
    return p->d_slots + (size_t)(slot % p->slots) * (p->slot_stride / sizeof(elem_t));
}

/* Before every run: the scratch poisoned, and the run's slot if an earlier
 * run wrote it (so that a run that writes nothing is caught). */
static void poison(void *ctx, int slot)
{
    plan_t *p = (plan_t *)ctx;
    cudaStream_t s = p->work.stream[0];
    if (p->scratch_bytes) CUDA_CHECK(cudaMemsetAsync(p->L.scratch, POISON, p->scratch_bytes, s));
    if (slot >= p->slots)
        CUDA_CHECK(cudaMemsetAsync(slot_at(p, slot), POISON, p->L.rows * sizeof(elem_t), s));
}

static void run_once(void *ctx, int slot, int copy)
{
    plan_t *p = (plan_t *)ctx;
    const elem_t *in = p->d_in + (size_t)copy * (p->stride / sizeof(elem_t));
    p->step->reduce(in, slot_at(p, slot), &p->L, p->work.stream[0]);
}

/* The matrix on the CPU (the references need every row) and on the GPU. */
static elem_t *set_up(plan_t *p, const source_t *src, const device_t *dev)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    p->work = (work_t){ .ctx = p, .count = 1, .stream = { stream }, .device = { dev->id },
                        .copies = p->work.copies, .prepare = poison, .run = run_once };
    elem_t *h = (elem_t *)malloc(p->n * sizeof(elem_t));
    if (!h) device_fail("out of host memory for the matrix");
    char err[512];
    if (src->file && infile_read(src->file, 0, p->n, h, err, sizeof err)) {
        fprintf(stderr, "%s: --input-file: %s\n", g_step, err);
        exit_cleanly(EXIT_USAGE);
    }
#ifdef REDUCE_EXACT
    if (!src->file) dist_draw_bits(src->dist, src->seed, 0, p->n, p->n, h, NULL);
#else
    if (!src->file) dist_draw(src->dist, src->seed, 0, p->n, p->n, h, NULL);
#endif
    p->d_in = (elem_t *)device_alloc((size_t)p->work.copies * p->stride, "the matrix");
    p->d_slots = (elem_t *)device_alloc((size_t)p->slots * p->slot_stride, "the row sums");
    p->L.scratch = p->scratch_bytes ? device_alloc(p->scratch_bytes, "the step's scratch") : NULL;
    p->L.state = p->state_bytes ? device_alloc(p->state_bytes, "the step's state") : NULL;
    for (int c = 0; c < p->work.copies; c++)
        CUDA_CHECK(cudaMemcpyAsync((char *)p->d_in + (size_t)c * p->stride, h, p->n * sizeof(elem_t),
                                   cudaMemcpyHostToDevice, stream));
    if (p->L.state) CUDA_CHECK(cudaMemsetAsync(p->L.state, 0, p->state_bytes, stream));
    CUDA_CHECK(cudaMemsetAsync(p->d_slots, POISON, (size_t)p->slots * p->slot_stride, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return h;
}

static void tear_down(plan_t *p)
{
    CUDA_CHECK(cudaFree(p->d_in));
    CUDA_CHECK(cudaFree(p->d_slots));
    if (p->L.scratch) CUDA_CHECK(cudaFree(p->L.scratch));
    if (p->L.state) CUDA_CHECK(cudaFree(p->L.state));
    CUDA_CHECK(cudaStreamDestroy(p->work.stream[0]));
}

/* ---- 3. every row checked --------------------------------------------------------- */
typedef struct {
    size_t wrong, first_wrong;   /* rows with a wrong result; the first of them */
    size_t worst_row;            /* the largest error against its bound */
    double worst_ratio, worst_error, worst_bound;
    int distinct;                /* the most different results any row had */
    int replica_equal;           /* every result the CPU replica's bits */
} verdict_t;

static uint32_t bits_of(elem_t v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* Row r: its results got[k * stride] (k < kept) against its references.
 * Returns 1 if every result is right; *error the largest distance, *bound
 * its bound, *replica_ok whether every result had the replica's bits. */
static int check_row(const plan_t *p, const elem_t *x, const elem_t *got, size_t stride, int kept,
                     int from_file, double *error, double *bound, int *replica_ok, int *distinct)
{
    const rows_step_t *step = p->step;
    size_t len = p->L.len;
    int ok = 1;
    *error = 0, *bound = 0, *replica_ok = 1, *distinct = 0;
    for (int k = 0; k < kept; k++) {       /* at most slots results: a quadratic count is cheap */
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = bits_of(got[j * stride]) == bits_of(got[k * stride]);
        *distinct += !seen;
    }
#ifdef REDUCE_EXACT
    (void)step, (void)from_file;
    uint32_t want = 0;
    for (size_t i = 0; i < len; i++) want += x[i];
    for (int k = 0; k < kept; k++)
        if (got[k * stride] != want) ok = 0, *error = 1;
#else
    reference_t ref;
    memset(&ref, 0, sizeof ref);
    exact_init(&ref.exact);
    exact_add_floats(&ref.exact, x, len);
    ref.from_file = from_file;
    rule_t rule = { step->combine, step->chunk, step->deterministic };
    result_t res;
    memset(&res, 0, sizeof res);
    int fixed = step->combine == COMBINE_FIXED_ORDER;
    double abs_sum = exact_abs_sum(&ref.exact);
    double depth = fixed ? order_depth(len, step->chunk)
                         : summation_depth(COMBINE_UNKNOWN, len, p->L.grid, p->L.block);
    *bound = res.bound = error_bound(depth, abs_sum, from_file);
    res.overflow = !(abs_sum + res.bound < FLT_MAX);
    elem_t replica = fixed ? order_sum(x, len, step->chunk) : 0;
    for (int k = 0; k < kept; k++) {
        double e;
        elem_t g = got[k * stride];
        ok &= result_right(g, &rule, &ref, &res, &e);
        if (fabs(e) > *error || isnan(e)) *error = isnan(e) ? INFINITY : fabs(e);
        if (fixed && bits_of(g) != bits_of(replica) && !(isnan(g) && isnan(replica)))
            *replica_ok = 0, ok = 0;
    }
#endif
    if (step->deterministic && *distinct > 1) ok = 0;
    return ok;
}

static void say_first_wrong(const plan_t *p, const elem_t *h, const elem_t *results, int kept,
                            const source_t *src, const verdict_t *v);

/* Every row, on every CPU thread; then the first wrong row said in one line. */
static void check_all(const plan_t *p, const elem_t *h, const elem_t *results, int kept,
                      const source_t *src, verdict_t *v)
{
    size_t rows = p->L.rows, stride = p->slot_stride / sizeof(elem_t);
    int from_file = src->file != NULL;
    memset(v, 0, sizeof *v);
    v->first_wrong = rows;
    v->replica_equal = 1;
    #pragma omp parallel
    {
        verdict_t mine = { 0, rows, 0, -1, 0, 0, 0, 1 };
        #pragma omp for schedule(dynamic, 64)
        for (long long r = 0; r < (long long)rows; r++) {
            double e, b;
            int rep, d;
            int ok = check_row(p, h + (size_t)r * p->L.len, results + r, stride, kept, from_file,
                               &e, &b, &rep, &d);
            double ratio = b > 0 ? e / b : e;
            if (!ok && mine.wrong++ == 0) mine.first_wrong = (size_t)r;
            if (ratio > mine.worst_ratio)
                mine.worst_ratio = ratio, mine.worst_row = (size_t)r, mine.worst_error = e, mine.worst_bound = b;
            if (d > mine.distinct) mine.distinct = d;
            mine.replica_equal &= rep;
        }
        #pragma omp critical
        {
            v->wrong += mine.wrong;
            if (mine.first_wrong < v->first_wrong) v->first_wrong = mine.first_wrong;
            if (mine.worst_ratio > v->worst_ratio || (mine.worst_ratio == v->worst_ratio &&
                                                     mine.worst_row < v->worst_row))
                v->worst_ratio = mine.worst_ratio, v->worst_row = mine.worst_row,
                v->worst_error = mine.worst_error, v->worst_bound = mine.worst_bound;
            if (mine.distinct > v->distinct) v->distinct = mine.distinct;
            v->replica_equal &= mine.replica_equal;
        }
    }
    if (v->wrong) say_first_wrong(p, h, results, kept, src, v);
}

/* The first wrong row, in one line. */
static void say_first_wrong(const plan_t *p, const elem_t *h, const elem_t *results, int kept,
                            const source_t *src, const verdict_t *v)
{
    size_t rows = p->L.rows, stride = p->slot_stride / sizeof(elem_t), r = v->first_wrong;
    const elem_t *x = h + r * p->L.len;
#ifdef REDUCE_EXACT
    uint32_t want = 0;
    for (size_t i = 0; i < p->L.len; i++) want += x[i];
    int k = 0;      /* the first kept result of the row that is wrong */
    while (k + 1 < kept && results[k * stride + r] == want) k++;
    fprintf(stderr, "%s: %zu x %zu, seed %llu: row %zu gave %u, expected %u (%zu row%s wrong)\n",
            g_step, rows, p->L.len, (unsigned long long)src->seed, r, results[k * stride + r], want,
            v->wrong, v->wrong == 1 ? "" : "s");
#else
    exact_sum_t acc;
    exact_init(&acc);
    exact_add_floats(&acc, x, p->L.len);
    elem_t replica = p->step->combine == COMBINE_FIXED_ORDER ? order_sum(x, p->L.len, p->step->chunk)
                                                            : exact_round(&acc);
    int k = 0;      /* the first kept result of the row that differs from the replica */
    while (k + 1 < kept && bits_of(results[k * stride + r]) == bits_of(replica)) k++;
    elem_t g = results[k * stride + r];
    fprintf(stderr, "%s: %zu x %zu, seed %llu: row %zu gave %.9g (bits 0x%08x); %s %.9g (bits "
            "0x%08x), the exact sum %.9g; %zu row%s wrong\n", g_step, rows, p->L.len,
            (unsigned long long)src->seed, r, (double)g, bits_of(g),
            p->step->combine == COMBINE_FIXED_ORDER ? "the CPU replica of the order" : "rounded once:",
            (double)replica, bits_of(replica), exact_to_double(&acc), v->wrong, v->wrong == 1 ? "" : "s");
#endif
}

/* ---- 4. the report line ------------------------------------------------------------ */
static int run_one(const rows_step_t *step, const options_t *opt, const device_t *dev, size_t rows,
                   size_t len, const source_t *src)
{
    plan_t p;
    memset(&p, 0, sizeof p);
    p.step = step;
    plan_run(&p, opt, dev, rows, len);
    elem_t *h = set_up(&p, src, dev);
    timing_t t;
    measure(&p.work, opt, &t);
    int kept = t.runs < p.slots ? t.runs : p.slots;
    verdict_t v;
    memset(&v, 0, sizeof v);
    elem_t *results = (elem_t *)malloc((size_t)kept * p.slot_stride);
    if (!results) device_fail("out of host memory for the row sums");
    CUDA_CHECK(cudaMemcpy(results, p.d_slots, (size_t)kept * p.slot_stride, cudaMemcpyDeviceToHost));
    check_all(&p, h, results, kept, src, &v);
    FILE *f = g_sums ? fopen(g_sums, "wb") : NULL;
    if (g_sums && (!f || fwrite(results, sizeof(elem_t), rows, f) != rows || fclose(f))) {
        fprintf(stderr, "%s: --sums: cannot write '%s'\n", g_step, g_sums);
        exit_cleanly(EXIT_USAGE);
    }
    if (p.L.state) {       /* the next launch starts from what this one left */
        unsigned char *s = (unsigned char *)malloc(p.state_bytes);
        if (!s) device_fail("out of host memory for the step's state");
        CUDA_CHECK(cudaMemcpy(s, p.L.state, p.state_bytes, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < p.state_bytes; i++)
            if (s[i]) {
                fprintf(stderr, "%s: the step left its state changed\n", g_step);
                v.wrong += v.wrong == 0;
                break;
            }
        free(s);
    }
    rows_result_t r = { .step = step->name, .technique = step->technique, .device = dev->name,
                        .input = src->file ? src->file->path : dist_info[src->dist].name,
                        .rows = rows, .len = len, .seed = src->seed, .block = p.L.block, .grid = p.L.grid,
                        .reps = t.reps, .runs = t.runs, .kept = kept, .warm = opt->warm,
                        .waited = opt->wait_each, .median_us = t.median_us, .min_us = t.min_us,
                        .peak_gbps = dev->peak_gbps, .wrong = v.wrong, .worst_row = v.worst_row,
                        .worst_error = v.worst_error, .worst_bound = v.worst_bound,
                        .deterministic = step->deterministic, .distinct = v.distinct,
                        .fixed = step->combine == COMBINE_FIXED_ORDER, .replica_equal = v.replica_equal };
    print_rows_result(opt, &r);
    free(results);
    free(h);
    tear_down(&p);
    return v.wrong ? EXIT_WRONG : EXIT_OK;
}

/* ---- 5. run_rows ---------------------------------------------------------------------- */
static device_t g_dev;

static int check_shapes(driver_t *d, int argc, char **argv, const options_t *opt, const infile_t *file)
{
    char why[400];
    if (!resolve_shapes(argc, argv, opt, file, why, sizeof why)) {
        d->inputs = g_shapes;
        return EXIT_OK;
    }
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, why, argv[0]);
    return EXIT_USAGE;
}

static const device_t *open_one(driver_t *d, const options_t *opt, const char **how)
{
    (void)d, (void)opt;
    count_devices();
    open_device_id(&g_dev, 0);
    *how = "a sum for every row";
    return &g_dev;
}

static int shape_one(driver_t *d, const options_t *opt, int i, const source_t *src)
{
    return run_one((const rows_step_t *)d->ctx, opt, &g_dev, g_shape[i][0], g_shape[i][1], src);
}

int run_rows(int argc, char **argv, const rows_step_t *step)
{
    g_step = step->name;
    driver_t d = { .prog = { step->name, step->technique, step->block_rule, step->default_block, 0, 1, 0 },
                   .extra = row_options, .extra_count = 3, .ctx = (void *)step,
                   .after_options = check_shapes, .open = open_one, .one = shape_one };
    return drive(argc, argv, &d);
}
