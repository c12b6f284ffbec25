/* types/types.c: run_types() (types.h), an array of any type reduced by any
 * operator, every run checked. The driver (timing.c) makes and times the
 * runs; the options are args.c's with --type, --op and --save-input.
 *
 * Contents
 *   1. the options, the pairs, the help
 *   2. the inputs: which each pair draws, and drawing them in each type
 *   3. one run: plan, input, runs
 *   4. is a result right?
 *   5. the report line
 *   6. run_types
 */
#define _POSIX_C_SOURCE 200809L   /* access() */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../parts.h"
#include "typed.h"

/* ---- 1. the options, the pairs, the help ---------------------------------------------- */
static type_t g_type = TYPE_FLOAT;
static op_t g_op = OP_SUM;
static const char *g_save;             /* --save-input: where the array goes, or NULL */

static int set_name(const char *value, const char *const *names, int count, size_t stride,
                    const char *what, char *why, size_t len)
{
    char list[160] = "";
    for (int k = 0; k < count; k++) {
        const char *name = *(const char *const *)((const char *)names + k * stride);
        if (strcmp(value, name) == 0) return k;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", name);
    }
    snprintf(why, len, "'%s' is not %s: choose from %s", value, what, list);
    return -1;
}

static int set_type(const char *value, char *why, size_t len)
{
    int k = set_name(value, &type_info[0].name, TYPE_COUNT, sizeof type_info[0], "a type", why, len);
    g_type = k < 0 ? TYPE_FLOAT : (type_t)k;
    return k < 0 ? -1 : 0;
}

static int set_op(const char *value, char *why, size_t len)
{
    int k = set_name(value, op_name, OP_COUNT, sizeof op_name[0], "an operator", why, len);
    g_op = k < 0 ? OP_SUM : (op_t)k;
    return k < 0 ? -1 : 0;
}

static int set_save(const char *value, char *why, size_t len)
{
    if (*value == '\0') return snprintf(why, len, "the value is empty"), -1;
    g_save = value;
    return 0;
}

static const extra_option_t type_options[] = {
    { "--type", "T", "the elements: float (default), double, half, bf16, int32", set_type },
    { "--op", "O", "the operator: sum (default), sumsq, max, min, argmax", set_op },
    { "--save-input", "PATH", "also write the array reduced to PATH (the last run's): a .npy,\n"
      "                     or for bf16 raw little-endian 16-bit words", set_save },
};

enum { DIST_NAN = DIST_COUNT, DIST_INF, INPUT_COUNT };
static const char *const extra_inputs[] = { "nan", "inf" };

static const char *input_name(int d) { return d < DIST_COUNT ? dist_info[d].name : extra_inputs[d - DIST_COUNT]; }
static int is_order_op(op_t op) { return op == OP_MAX || op == OP_MIN || op == OP_ARGMAX; }

/* The inputs that mean something for a pair, a bit each (help text below). */
static unsigned inputs_of(type_t t, op_t op)
{
    unsigned U = 1u << DIST_UNIFORM, W = 1u << DIST_WIDE, C = 1u << DIST_CANCEL, T = 1u << DIST_TIES,
             H = 1u << DIST_HUGE, N = 1u << DIST_NAN, I = 1u << DIST_INF;
    if (is_order_op(op)) return t == TYPE_INT32 ? U | T | I : U | W | T | N | I;
    if (op == OP_SUMSQ) return U | W;
    return t == TYPE_FLOAT ? U | W | C | T | H : t == TYPE_DOUBLE ? U | W | C | T : t == TYPE_BF16 ? U | W | H : U;
}

static void list_inputs(char *buf, size_t len, unsigned mask)
{
    buf[0] = '\0';
    for (int d = 0; d < INPUT_COUNT; d++)
        if (mask >> d & 1) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", input_name(d));
}

static int find_pair(const types_step_t *step, type_t t, op_t op)
{
    for (int k = 0; k < step->pair_count; k++)
        if (step->pairs[k].type == t && step->pairs[k].op == op) return k;
    return -1;
}

/* "sum of float, double, ...; max of ..." from the step's own table; sep
 * between the operators. */
static void list_pairs(const types_step_t *step, const char *sep, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int op = 0; op < OP_COUNT; op++) {
        int first = 1;
        for (int t = 0; t < TYPE_COUNT; t++)
            if (find_pair(step, (type_t)t, (op_t)op) >= 0) {
                snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", first ? (buf[0] ? sep : "")
                         : ", ", first ? op_name[op] : type_info[t].name);
                if (first) snprintf(buf + strlen(buf), len - strlen(buf), " of %s", type_info[t].name);
                first = 0;
            }
    }
}

static void print_types_help(const types_step_t *step)
{
    char pairs[400], list[120];
    list_pairs(step, "\n  ", pairs, sizeof pairs);
    printf("\nthe pairs of --op and --type:\n  %s\n", pairs);
    printf("  half and bf16 are summed in float, int32 in int64 (exact: n must be below 2^32);\n"
           "  sumsq is the sum of x*x in float. max, min, argmax: -0 below +0; any NaN\n"
           "  gives the canonical NaN (argmax: the first NaN's index, as numpy.argmax and\n"
           "  torch.argmax); a tie gives the first index.\n"
           "the inputs each pair draws (--input), from the float draw of the same seed:\n");
    for (int t = 0; t < TYPE_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++)
            if (find_pair(step, (type_t)t, (op_t)op) >= 0 && (op == OP_SUM || op == OP_SUMSQ || op == OP_MAX)) {
                list_inputs(list, sizeof list, inputs_of((type_t)t, (op_t)op));
                printf("  %-6s %-16s %s\n", type_info[t].name, op == OP_MAX ? "max, min, argmax" : op_name[op], list);
            }
    printf("  double: each float with 29 random bits below its last (53 bits in all),\n"
           "  partners alike so that cancel and ties keep their exact sums; half and\n"
           "  bf16: rounded to nearest even, bf16's huge saturated at its largest finite;\n"
           "  int32: the draw's 32 random bits. For max, min, argmax, ties is many equal\n"
           "  maxima (seed %% 3: 0 both zeros, 1 positive, 2 negative), nan plants NaNs\n"
           "  (signs and payloads varied), inf +-inf (int32: INT32_MAX and INT32_MIN).\n"
           "  A .bf16 from torch: t.view(torch.int16).numpy().tofile('x.bf16'); from float32\n"
           "  numpy x: u = x.view(np.uint32); ((u + 0x7fff + (u >> 16 & 1)) >> 16)\n"
           "  .astype('<u2').tofile('x.bf16') (rounded to nearest even; not for NaNs).\n");
}

/* ---- 2. the inputs -----------------------------------------------------------------------
 * Every type starts from the float draw of the seed (inputs/), and its own
 * random bits, where it needs more, from (seed, partner): SplitMix64 again. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t hash2(uint64_t seed, uint64_t i) { return mix64(mix64(seed ^ 0x7970657300000000ULL) + i * 0x9e3779b97f4a7c15ULL); }

/* Which element's random bits element i of a double draw shares: its partner
 * in cancel and ties (so pairs still cancel exactly), else its own. */
static size_t partner(int d, size_t i, size_t n)
{
    size_t half = d == DIST_CANCEL ? n / 2 : n >= 2 ? (n - 2) / 2 : 0;
    if (d == DIST_CANCEL && i < 2 * half) return i % half;
    if (d == DIST_TIES && i >= 1 && i - 1 < 2 * half) return 1 + (i - 1) % half;
    return i;
}

/* Double: the float and 29 random bits below its last: +-(|f| + r 2^(k-53)), where
 * |f| = m 2^k, m in [1/2, 1), stays in f's binade with 53 bits. Ties' last
 * element, half of B's float ulp, becomes half of B's double ulp. */
static double widen_double(int d, uint64_t seed, size_t i, size_t n, float f)
{
    if (d == DIST_TIES && i == n - 1 && i > 0) return ldexp(f, -29);
    if (f == 0) return f;
    int k;
    frexp(f, &k);
    double r = (double)(hash2(seed, partner(d, i, n)) >> 35);     /* 29 bits */
    return f > 0 ? f + ldexp(r, k - 53) : f - ldexp(r, k - 53);
}

/* For max, min and argmax: ties (seed % 3: both zeros, 1..4, -1..-4), nan, inf. */
static float order_input(int d, uint64_t seed, size_t i, size_t n, float x)
{
    uint64_t h = hash2(seed, i);
    if (d == DIST_TIES) {
        float v = 1.0f + (float)(h % 4);
        return seed % 3 == 0 ? (h >> 63 ? -0.0f : 0.0f) : seed % 3 == 1 ? v : -v;
    }
    if (d == DIST_NAN && (i == hash2(seed, n) % n || h % 1024 == 0)) {
        uint32_t u = 0x7fc00000u | (uint32_t)(h >> 42) | (uint32_t)(h >> 32 & 0x80000000u);
        memcpy(&x, &u, sizeof x);
    }
    if (d == DIST_INF && (i == hash2(seed, n) % n || i == hash2(seed, n + 1) % n || h % 512 == 0))
        x = i == hash2(seed, n + 1) % n || (h >> 20 & 1) ? -INFINITY : INFINITY;
    return x;
}

/* The array of type t that input d of this seed draws for op, into out. */
static void draw_typed(type_t t, op_t op, int d, uint64_t seed, size_t n, void *out)
{
    if (t == TYPE_INT32 && d == DIST_UNIFORM) {
        dist_draw_bits(DIST_UNIFORM, seed, 0, n, n, (uint32_t *)out, NULL);
        return;
    }
    float *f = t == TYPE_FLOAT ? (float *)out : (float *)malloc(n * sizeof(float));
    if (!f) device_fail("out of host memory for the input");
    dist_draw(d < DIST_COUNT && !(d == DIST_TIES && is_order_op(op)) ? (dist_t)d : DIST_UNIFORM, seed, 0, n, n, f, NULL);
    #pragma omp parallel for schedule(static)
    for (long long j = 0; j < (long long)n; j++) {
        size_t i = (size_t)j;
        float x = is_order_op(op) ? order_input(d, seed, i, n, f[i]) : f[i];
        switch (t) {
        case TYPE_DOUBLE: ((double *)out)[i] = widen_double(d, seed, i, n, x); break;
        case TYPE_HALF: ((uint16_t *)out)[i] = half_from_float(x); break;
        case TYPE_BF16: ((uint16_t *)out)[i] = bf16_from_float(x); break;
        case TYPE_INT32:
            ((int32_t *)out)[i] = isinf(x) ? (x > 0 ? INT32_MAX : INT32_MIN) : (int32_t)x;
            if (d == DIST_INF && !isinf(x)) ((int32_t *)out)[i] = (int32_t)(uint32_t)hash2(seed ^ 1, i);
            break;
        case TYPE_FLOAT:
        default: f[i] = x; break;
        }
    }
    if (t != TYPE_FLOAT) free(f);
}

/* ---- 3. one run ------------------------------------------------------------------------- */
typedef struct {
    const types_step_t *step;
    types_launch_t L;
    size_t bytes, stride;     /* of the input; between its copies (256-aligned) */
    int slots;
    size_t scratch_bytes;
    char *d_in;
    types_slot_t *d_slots;
    work_t work;
} plan_t;

static void plan_run(plan_t *p, const options_t *opt, const device_t *dev, size_t n, int pair)
{
    types_launch_t *L = &p->L;
    *L = (types_launch_t){ n, type_info[g_type].size, g_type, g_op, pair,
                           opt->block ? opt->block : p->step->default_block, 0, dev->id, dev->sm_count, NULL };
    p->bytes = n * L->elem_bytes;
    p->stride = div_up(p->bytes, 256) * 256;
    p->work.copies = input_copies(opt, p->bytes, dev->l2_bytes);
    p->slots = (opt->check_only ? 0 : opt->reps ? opt->reps : DEFAULT_REPS) + 2;
    size_t fixed = (size_t)p->work.copies * p->stride + (size_t)p->slots * sizeof(types_slot_t) + ((size_t)1 << 20);
    check_memory(n, fixed, dev->name);
    L->grid = (int)checked_grid(p->step->grid_size(L), opt->grid, n, L->block, 0, dev);
    p->scratch_bytes = p->step->scratch_size ? p->step->scratch_size(L) : 0;
    check_memory(n, fixed + p->scratch_bytes, dev->name);
}

static void poison_scratch(void *ctx, int slot)
{
    plan_t *p = (plan_t *)ctx;
    (void)slot;
    if (p->scratch_bytes) CUDA_CHECK(cudaMemsetAsync(p->L.scratch, POISON, p->scratch_bytes, p->work.stream[0]));
}

static void run_once(void *ctx, int slot, int copy)
{
    plan_t *p = (plan_t *)ctx;
    p->step->pairs[p->L.pair].reduce(p->d_in + (size_t)copy * p->stride, p->d_slots + slot, &p->L,
                                     p->work.stream[0]);
}

/* The array on the CPU (drawn or read, saved if asked) and on the GPU. */
static void *set_up(plan_t *p, const source_t *src, const tfile_t *file, const device_t *dev)
{
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    p->work = (work_t){ .ctx = p, .count = 1, .stream = { stream }, .device = { dev->id },
                        .copies = p->work.copies, .prepare = poison_scratch, .run = run_once };
    void *h = malloc(p->bytes);
    char err[600];
    if (!h) device_fail("out of host memory for the input");
    if (file ? tfile_read(file, h, err, sizeof err) : 0) {
        fprintf(stderr, "%s: --input-file: %s\n", g_step, err);
        exit_cleanly(EXIT_USAGE);
    }
    if (!file) draw_typed(g_type, g_op, (int)src->dist, src->seed, p->L.n, h);
    if (g_save && tfile_write(g_save, g_type, h, p->L.n, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", g_step, err);
        exit_cleanly(EXIT_USAGE);
    }
    p->d_in = (char *)device_alloc((size_t)p->work.copies * p->stride, "the input");
    p->d_slots = (types_slot_t *)device_alloc((size_t)p->slots * sizeof(types_slot_t), "the results");
    p->L.scratch = p->scratch_bytes ? device_alloc(p->scratch_bytes, "the step's scratch") : NULL;
    for (int c = 0; c < p->work.copies; c++)
        CUDA_CHECK(cudaMemcpyAsync(p->d_in + (size_t)c * p->stride, h, p->bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(p->d_slots, POISON, (size_t)p->slots * sizeof(types_slot_t), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return h;
}

static void tear_down(plan_t *p)
{
    CUDA_CHECK(cudaFree(p->d_in));
    CUDA_CHECK(cudaFree(p->d_slots));
    if (p->L.scratch) CUDA_CHECK(cudaFree(p->L.scratch));
    CUDA_CHECK(cudaStreamDestroy(p->work.stream[0]));
}

/* ---- 4. is a result right? -----------------------------------------------------------------
 * Exact operators: the reference's bits (and index). Float sums: within the
 * error bound of step 07's tree (bound.c) at the accumulator's unit
 * roundoff, sumsq with one rounding more (the product); once the magnitudes
 * reach the accumulator's range, an inf or NaN is accepted (as check.c). */
typedef struct {
    double result, reference, error, bound;
    int64_t index, reference_index;   /* argmax */
    int overflow, ok, distinct;
} verdict_t;

static size_t value_bytes(type_t t, op_t op)
{
    return t == TYPE_DOUBLE || (t == TYPE_INT32 && op == OP_SUM) ? 8 : 4;
}

static double slot_value(type_t t, op_t op, const types_slot_t *s)
{
    if (t == TYPE_INT32) return op == OP_SUM ? (double)s->value.i64 : s->value.i32;
    return t == TYPE_DOUBLE ? s->value.d : s->value.f;
}

static int same_slot(type_t t, op_t op, const types_slot_t *a, const types_slot_t *b)
{
    return memcmp(&a->value, &b->value, value_bytes(t, op)) == 0 && (op != OP_ARGMAX || a->index == b->index);
}

static int slot_right(const plan_t *p, const typed_ref_t *r, const types_slot_t *got, verdict_t *v)
{
    type_t t = p->L.type;
    op_t op = p->L.op;
    double g = slot_value(t, op, got);
    v->result = g, v->index = got->index;
    if (r->exact) {
        v->reference = slot_value(t, op, &r->want), v->reference_index = r->want.index;
        int same = same_slot(t, op, got, &r->want);
        v->error = same ? 0 : isnan(g) || isnan(v->reference) ? NAN : fabs(g - v->reference);
        return same;
    }
    double want = r->in_double ? dexact_round(&r->d) : exact_round(&r->f);
    int special = r->in_double ? dexact_special(&r->d) : exact_special(&r->f);
    v->reference = r->in_double ? want : exact_to_double(&r->f);
    v->error = r->in_double ? dexact_error(&r->d, g) : exact_error(&r->f, (float)g);
    int same = want == g || (isnan(want) && isnan(g));
    if (isnan(want)) return isnan(g);
    if (special) return same || (v->overflow && isnan(g));
    if (!isfinite(g)) return v->overflow;
    return fabs(v->error) <= v->bound;
}

/* Every run's slot: right, and all the same (one launch shape, one tree).
 * v shows the first wrong run, or else the last. */
static void check_slots(const plan_t *p, const types_slot_t *h, int runs, const typed_ref_t *r, int from_file,
                       verdict_t *v)
{
    memset(v, 0, sizeof *v);
    if (!r->exact) {
        int dbl = p->L.type == TYPE_DOUBLE;
        double abs_sum = r->in_double ? dexact_abs_up(&r->d) : exact_abs_sum(&r->f);
        double depth = summation_depth(COMBINE_TREE, p->L.n, p->L.grid, p->L.block) + (p->L.op == OP_SUMSQ);
        v->bound = error_bound_u(depth, abs_sum, from_file, dbl ? 0x1p-53 : 0x1p-24);
        v->overflow = !(abs_sum + v->bound < (dbl ? DBL_MAX : FLT_MAX));
    }
    verdict_t shown = *v;
    v->ok = 1;
    for (int k = 0; k < runs; k++) {
        verdict_t one = shown;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = same_slot(p->L.type, p->L.op, &h[j], &h[k]);
        v->distinct += !seen;
        int right = slot_right(p, r, &h[k], &one);
        if (!right && v->ok)
            fprintf(stderr, "%s: --type %s --op %s, n = %zu: run %d gave %.17g (index %lld), expected "
                    "%.17g (index %lld); error %.3g, bound %.3g\n", g_step, type_info[p->L.type].name,
                    op_name[p->L.op], p->L.n, k, one.result, (long long)one.index, one.reference,
                    (long long)one.reference_index, one.error, one.bound);
        if (v->ok) shown = one;
        v->ok &= right;
    }
    shown.ok = v->ok, shown.distinct = v->distinct;
    *v = shown;
    if (v->distinct > 1) {
        fprintf(stderr, "%s: %d different results from one launch shape: not deterministic\n", g_step,
                v->distinct);
        v->ok = 0;
    }
}

/* ---- 5. the report line --------------------------------------------------------------------- */
#define CSV_HEADER "step,type,op,device,n,bytes,seed,block,grid,reps,median_us,min_us,gbps,result," \
                   "reference,error,bound,status,index,reference_index,pct_peak,input,runs,distinct,l2"

static void print_line(const options_t *opt, const plan_t *p, const device_t *dev, const char *input,
                       uint64_t seed, const timing_t *t, const verdict_t *v)
{
    const types_launch_t *L = &p->L;
    double gbps = t->reps && t->median_us > 0 ? (double)p->bytes / (t->median_us * 1e-6) / 1e9 : 0;
    double pct = dev->peak_gbps > 0 ? 100 * gbps / dev->peak_gbps : 0;
    char res[48], ref[48], idx[48] = "-", ridx[48] = "-";
    int ints = L->type == TYPE_INT32;
    snprintf(res, sizeof res, ints ? "%.0f" : "%.17g", v->result);
    snprintf(ref, sizeof ref, ints ? "%.0f" : "%.17g", v->reference);
    if (ints && L->op == OP_SUM)     /* an int64 may not fit a double's 53 bits: print it whole */
        snprintf(res, sizeof res, "%lld", (long long)v->result), snprintf(ref, sizeof ref, "%lld", (long long)v->reference);
    if (L->op == OP_ARGMAX)
        snprintf(idx, sizeof idx, "%lld", (long long)v->index), snprintf(ridx, sizeof ridx, "%lld", (long long)v->reference_index);
    const char *status = v->ok ? "OK" : "WRONG";
    if (opt->csv) {
        printf("%s,%s,%s,\"%s\",%zu,%zu,%llu,%d,%d,%d,%.3f,%.3f,%.1f,%s,%s,%.3g,%.3g,%s,%s,%s,%.2f,\"%s\",%d,%d,%s\n",
               p->step->name, type_info[L->type].name, op_name[L->op], dev->name, L->n, p->bytes,
               (unsigned long long)seed, L->block, L->grid, t->reps, t->median_us, t->min_us, gbps, res, ref,
               v->error, v->bound, status, idx, ridx, pct, input, t->runs, v->distinct, opt->warm ? "warm" : "cold");
    } else {
        char timing[96] = "not timed", bw[64] = "-", what[200];
        if (t->reps) {
            snprintf(timing, sizeof timing, "median %.2f us, min %.2f us%s", t->median_us, t->min_us,
                     opt->warm ? " (warm L2)" : "");
            snprintf(bw, sizeof bw, "%.0f GB/s, %.1f%% of peak", gbps, pct);
        }
        if (L->op == OP_ARGMAX) snprintf(what, sizeof what, "index %s (value %s), exact %s", idx, res, ridx);
        else if (v->bound > 0 || !isfinite(v->error) || v->error != 0)
            snprintf(what, sizeof what, "%s %s (exact %s) err %.1e, bound %.1e%s", op_name[L->op], res, ref,
                     v->error, v->bound, v->overflow ? " (partial sums may overflow: inf or NaN accepted)" : "");
        else snprintf(what, sizeof what, "%s %s, exact %s", op_name[L->op], res, ref);
        printf("%s | %s %s | n %zu (%.3g MB%s%s) | %s | %s | %s | %s | same bits every run: %s (%d runs)\n",
               p->step->name, type_info[L->type].name, op_name[L->op], L->n, (double)p->bytes / 1e6,
               strcmp(input, "uniform") ? ", " : "", strcmp(input, "uniform") ? input : "", timing, bw, what,
               status, v->distinct == 1 ? "yes" : "NO", t->runs);
    }
    fflush(stdout);
}

static int run_one(const types_step_t *step, const options_t *opt, const device_t *dev, size_t n,
                   const source_t *src, const tfile_t *file, int pair)
{
    plan_t p;
    memset(&p, 0, sizeof p);
    p.step = step;
    plan_run(&p, opt, dev, n, pair);
    void *h = set_up(&p, src, file, dev);
    static typed_ref_t ref;
    typed_reference(g_type, g_op, h, n, &ref);
    timing_t t;
    measure(&p.work, opt, &t);
    types_slot_t *slots = (types_slot_t *)malloc((size_t)t.runs * sizeof *slots);
    if (!slots) device_fail("out of host memory for the results");
    CUDA_CHECK(cudaMemcpy(slots, p.d_slots, (size_t)t.runs * sizeof *slots, cudaMemcpyDeviceToHost));
    verdict_t v;
    check_slots(&p, slots, t.runs, &ref, file != NULL, &v);
    print_line(opt, &p, dev, file ? file->path : input_name((int)src->dist), src->seed, &t, &v);
    free(slots);
    free(h);
    tear_down(&p);
    return v.ok ? EXIT_OK : EXIT_WRONG;
}

/* ---- 6. run_types ------------------------------------------------------------------------------- */
/* What the command line asks that no option alone can refuse: one line, or "". */
static void refuse(const types_step_t *step, const options_t *opt, const tfile_t *file, char *why, size_t len)
{
    char list[400];
    why[0] = '\0';
    if (find_pair(step, g_type, g_op) < 0) {
        list_pairs(step, "; ", list, sizeof list);
        snprintf(why, len, "--type %s --op %s is not a pair this step reduces: %s", type_info[g_type].name,
                 op_name[g_op], list);
    } else if (file && file->type != g_type) {
        snprintf(why, len, "--input-file: '%s' holds %s, not --type %s's elements (add --type %s)",
                 file->path, type_info[file->type].name, type_info[g_type].name, type_info[file->type].name);
    } else if (!file && !(inputs_of(g_type, g_op) >> opt->input & 1)) {
        list_inputs(list, sizeof list, inputs_of(g_type, g_op));
        snprintf(why, len, "--input %s is not drawn for --type %s --op %s: its inputs are %s (--help says why)",
                 input_name((int)opt->input), type_info[g_type].name, op_name[g_op], list);
    }
    char dir[300];
    const char *slash = g_save ? strrchr(g_save, '/') : NULL;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - g_save) + (slash == g_save) : 1, slash ? g_save : ".");
    if (!why[0] && g_save && access(dir, W_OK | X_OK) != 0)
        snprintf(why, len, "--save-input: cannot write '%.200s': its folder '%.200s' is missing or not writable",
                 g_save, dir);
    for (int i = 0; !why[0] && g_type == TYPE_INT32 && g_op == OP_SUM && i < opt->n_count; i++)
        if (opt->n[i] >= (size_t)1 << 32)
            snprintf(why, len, "--type int32 --op sum: n = %zu is not below 2^32, where an int64 sum of "
                     "int32s stops being exact (|sum| < 2^63); sum the array in parts", opt->n[i]);
}

static tfile_t g_file;
static int g_has_file, g_pair;
static device_t g_dev;

static int read_types(driver_t *d, int argc, char **argv, options_t *opt)
{
    const types_step_t *step = (const types_step_t *)d->ctx;
    char err[600];
    add_inputs(extra_inputs, 2);
    if (parse_args(argc, argv, &d->prog, opt, err, sizeof err)) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        return EXIT_USAGE;
    }
    if (opt->help) {
        print_help(stdout, argv[0], &d->prog);
        print_types_help(step);
        return EXIT_OK;
    }
    if (opt->input_file && tfile_open(&g_file, opt->input_file, err, sizeof err)) {
        fprintf(stderr, "%s: --input-file: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        return EXIT_USAGE;
    }
    g_has_file = opt->input_file != NULL;
    if (g_has_file) opt->n[0] = g_file.n, opt->n_count = 1, opt->seed[0] = 0, opt->seed_count = 1;
    refuse(step, opt, g_has_file ? &g_file : NULL, err, sizeof err);
    if (err[0]) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        if (g_has_file) tfile_close(&g_file);
        return EXIT_USAGE;
    }
    g_pair = find_pair(step, g_type, g_op);
    return -1;
}

/* The header is this step's own: the type, the operator, the file. */
static const device_t *open_one(driver_t *d, const options_t *opt, const char **how)
{
    (void)how;
    count_devices();
    open_device_id(&g_dev, 0);
    if (opt->csv) printf("%s\n", CSV_HEADER);
    else printf("# %s on %s (sm_%d%d, %d SMs, %.0f MB L2, nominal %.0f GB/s), %s elements, %s, %s %s\n",
                d->prog.name, g_dev.name, g_dev.cc_major, g_dev.cc_minor, g_dev.sm_count, g_dev.l2_bytes / 1e6,
                g_dev.peak_gbps, type_info[g_type].name, op_name[g_op], g_has_file ? "from" : "input",
                g_has_file ? g_file.path : input_name((int)opt->input));
    fflush(stdout);
    return NULL;
}

static int types_one(driver_t *d, const options_t *opt, int i, const source_t *src)
{
    source_t drawn = { src->dist, src->seed, NULL };
    return run_one((const types_step_t *)d->ctx, opt, &g_dev, opt->n[i], &drawn, g_has_file ? &g_file : NULL,
                   g_pair);
}

static void close_types(driver_t *d)
{
    (void)d;
    if (g_has_file) tfile_close(&g_file);
    CUDA_CHECK(cudaDeviceReset());
}

int run_types(int argc, char **argv, const types_step_t *step)
{
    g_step = step->name;
    driver_t d = { .prog = { step->name, step->technique, BLOCK_POW2, step->default_block, 0, 0, 1 },
                   .extra = type_options, .extra_count = 3, .ctx = (void *)step, .read = read_types,
                   .open = open_one, .one = types_one, .close = close_types };
    return drive(argc, argv, &d);
}
