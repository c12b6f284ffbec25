/* unit.c: host tests of the harness parts (no GPU needed).
 *
 * Built twice, like the steps: float (build/tests/unit_float) and exact
 * (build/tests/unit_exact). Prints one PASS or FAIL line per check, which
 * tests/run counts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/parts.h"
#include "../common/multi/team.h"

#ifdef REDUCE_EXACT
#define BUILD "exact"
#else
#define BUILD "float"
#endif

static int failures;

static void check(int ok, const char *fmt, ...)
{
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    printf("%s unit/%s/%s\n", ok ? "PASS" : "FAIL", BUILD, name);
    if (!ok) failures++;
}

/* ---- sizes ------------------------------------------------------------------ */
static void test_sizes(void)
{
    static const struct { const char *s; size_t v; } good[] = {
        { "1", 1 }, { "1000", 1000 }, { "64K", 65536 }, { "1M", 1048576 }, { "1m", 1048576 },
        { "2G", (size_t)1 << 31 }, { "2^24", 16777216 }, { "1e8", 100000000 },
        { "3*2^30", (size_t)3 << 30 }, { "10^8+7", 100000007 }, { "2^24+1", 16777217 },
        { "2^31+7", ((size_t)1 << 31) + 7 }, { "2^20-1", 1048575 }, { "2^40", (size_t)1 << 40 },
        { "1099511627776", (size_t)1 << 40 }, { "4*1K+1", 4097 }, { "0+1", 1 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t v = 0;
        char err[200] = "";
        int rc = parse_size(good[i].s, &v, err, sizeof err);
        check(rc == 0 && v == good[i].v, "parse_size('%s') = %zu (got %zu, rc %d %s)", good[i].s,
              good[i].v, v, rc, err);
    }
    static const struct { const char *s; const char *why; } bad[] = {
        { "", "empty" }, { "0", "at least 1" }, { "-5", "negative" }, { "abc", "not a size" },
        { "1e999", "too large" }, { "2^41", "too large" }, { "12abc", "unexpected 'abc'" },
        { "2^", "ends too early" }, { "1+", "ends too early" }, { "+1", "not a size" },
        { "0x10", "unexpected 'x10'" }, { " 5", "not a size" }, { "5 ", "unexpected ' '" },
        { "1,2", "unexpected ',2'" }, { "99999999999999999999999", "too large" },
        { "5-10", "negative" }, { "2^64", "too large" }, { "1K1", "unexpected '1'" },
        { "1e", "unexpected 'e'" }, { "3-3", "comes to 0" }, { "1..2", "unexpected" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t v = 12345;
        char err[200] = "";
        int rc = parse_size(bad[i].s, &v, err, sizeof err);
        check(rc != 0 && strstr(err, bad[i].why) && v == 12345,
              "parse_size('%s') fails saying '%s' (said '%s')", bad[i].s, bad[i].why, err);
    }
}

/* ---- arguments ----------------------------------------------------------------- */
static int parse(block_rule_t rule, options_t *opt, char *err, size_t len, ...)
{
    char *argv[32] = { "stepNN" };
    int argc = 1;
    va_list ap;
    va_start(ap, len);
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 31;) argv[argc++] = a;
    va_end(ap);
    err[0] = '\0';
    program_t prog = { "stepNN", "a test", rule, 256, 0, 0, 0 };
    return parse_args(argc, argv, &prog, opt, err, len);
}

static void test_args(void)
{
    options_t o;
    char err[300];
    int rc = parse(BLOCK_POW2, &o, err, sizeof err, (char *)NULL);
    check(rc == 0 && o.n_count == 1 && o.n[0] == DEFAULT_N && o.seed_count == 1 && o.seed[0] == 1 &&
          o.reps == 0 && o.block == 0 && o.grid == 0 && !o.csv && !o.check_only && !o.warm,
          "defaults: n 2^28, seed 1, automatic reps, the step's block");
    check(DEFAULT_N * 4 >= (size_t)4 * 60000000, "the default input is at least 4x a 60 MB L2");

    rc = parse(BLOCK_POW2, &o, err, sizeof err, "--n", "1,2^10,3*2^30", "--seed=7,8", "--reps", "5",
               "--block", "512", "--grid=99", "--csv", "--warm", (char *)NULL);
    check(rc == 0 && o.n_count == 3 && o.n[1] == 1024 && o.n[2] == ((size_t)3 << 30) &&
          o.seed_count == 2 && o.seed[1] == 8 && o.reps == 5 && o.block == 512 && o.grid == 99 &&
          o.csv && o.warm, "lists, --opt=value and every option parse");
    rc = parse(BLOCK_POW2, &o, err, sizeof err, "--check-only", (char *)NULL);
    check(rc == 0 && o.check_only, "--check-only");
    rc = parse(BLOCK_POW2, &o, err, sizeof err, "-h", (char *)NULL);
    check(rc == 0 && o.help, "-h asks for help");
    rc = parse(BLOCK_POW2, &o, err, sizeof err, "--seed", "18446744073709551615", (char *)NULL);
    check(rc == 0 && o.seed[0] == UINT64_MAX, "the largest seed is accepted");

    static const struct { block_rule_t rule; const char *a[4]; const char *why; } bad[] = {
        { BLOCK_POW2, { "--n", "0" }, "--n: n must be at least 1, not 0" },
        { BLOCK_POW2, { "--n", "--check-only" }, "--n needs a value before '--check-only'" },
        { BLOCK_POW2, { "--reps", "--csv" }, "--reps needs a value before '--csv'" },
        { BLOCK_POW2, { "--n", "-5" }, "negative" },
        { BLOCK_POW2, { "--n", "abc" }, "not a size" },
        { BLOCK_POW2, { "--n", "1e999" }, "too large" },
        { BLOCK_POW2, { "--n", "1,,2" }, "empty item" },
        { BLOCK_POW2, { "--n", "1," }, "empty item" },
        { BLOCK_POW2, { "--n" }, "--n needs a value" },
        { BLOCK_POW2, { "--n", "5", "--n", "6" }, "--n is given more than once" },
        { BLOCK_POW2, { "--block", "33" }, "power of two" },
        { BLOCK_POW2, { "--block", "16" }, "power of two" },
        { BLOCK_POW2, { "--block", "2048" }, "power of two" },
        { BLOCK_POW2, { "--block", "abc" }, "not a whole number" },
        { BLOCK_ANY, { "--block", "0" }, "1 to 1024" },
        { BLOCK_ANY, { "--block", "1025" }, "1 to 1024" },
        { BLOCK_NONE, { "--block", "256" }, "chooses its own block size" },
        { BLOCK_POW2, { "--reps", "0" }, "at least 1" },
        { BLOCK_POW2, { "--reps", "100001" }, "too large" },
        { BLOCK_POW2, { "--reps", "99999999999999999999999" }, "too large" },
        { BLOCK_POW2, { "--reps", "5x" }, "unexpected 'x'" },
        { BLOCK_POW2, { "--grid", "0" }, "at least 1" },
        { BLOCK_POW2, { "--grid", "2147483648" }, "too large" },
        { BLOCK_POW2, { "--seed", "-1" }, "negative" },
        { BLOCK_POW2, { "--seed", "18446744073709551616" }, "too large" },
        { BLOCK_POW2, { "--csv=yes" }, "takes no value" },
        { BLOCK_POW2, { "--frobnicate" }, "unknown option '--frobnicate'" },
        { BLOCK_POW2, { "-n", "5" }, "unknown option '-n'" },
        { BLOCK_POW2, { "1000" }, "unexpected argument '1000'" },
        { BLOCK_POW2, { "--check-only", "--reps", "5" }, "do not go together" },
        { BLOCK_POW2, { "--n=" }, "empty" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[6] = { "stepNN" };
        int argc = 1;
        for (int k = 0; k < 4 && bad[i].a[k]; k++) argv[argc++] = (char *)bad[i].a[k];
        err[0] = '\0';
        program_t prog = { "stepNN", "a test", bad[i].rule, 256, 0, 0, 0 };
        rc = parse_args(argc, argv, &prog, &o, err, sizeof err);
        check(rc == EXIT_USAGE && strstr(err, bad[i].why) != NULL,
              "bad arguments '%s %s %s' -> exit 2, '%s' (said '%s')", argv[1],
              argc > 2 ? argv[2] : "", argc > 3 ? argv[3] : "", bad[i].why, err);
    }
}

/* ---- input and reference ------------------------------------------------------- */
/* The harness's default input (inputs/inputs.h), elements [first, first +
 * count), added to the reference as input.c adds them. */
static void draw_input(uint64_t seed, size_t first, size_t count, elem_t *buf, reference_t *ref)
{
#ifdef REDUCE_EXACT
    uint32_t s = 0;
    dist_draw_bits(DIST_UNIFORM, seed, first, count, first + count, buf, &s);
    ref->u_sum += s;
#else
    dist_draw(DIST_UNIFORM, seed, first, count, first + count, buf, &ref->exact);
#endif
}

static elem_t input_value(uint64_t seed, size_t i)
{
#ifdef REDUCE_EXACT
    return dist_bits(DIST_UNIFORM, seed, i, i + 1);
#else
    return dist_value(DIST_UNIFORM, seed, i, i + 1);
#endif
}

static double reference_sum(const reference_t *r)
{
#ifdef REDUCE_EXACT
    return (double)r->u_sum;
#else
    return exact_to_double(&r->exact);
#endif
}

static double reference_abs_sum(const reference_t *r)
{
#ifdef REDUCE_EXACT
    (void)r;
    return 0;
#else
    return exact_abs_sum(&r->exact);
#endif
}

static void test_input(void)
{
    enum { N = 100003 };
    elem_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    reference_t whole = { 0 }, parts = { 0 };
    draw_input(42, 0, N, a, &whole);
    draw_input(42, 0, 1000, b, &parts);
    draw_input(42, 1000, N - 1000, b + 1000, &parts);
    check(memcmp(a, b, N * sizeof *a) == 0, "drawing the input in slices gives the same elements");
    check(reference_sum(&whole) == reference_sum(&parts) && reference_abs_sum(&whole) == reference_abs_sum(&parts),
          "and the same reference");

    int same_as_value = 1, in_range = 1;
    for (size_t i = 0; i < N; i++) {
        elem_t v = input_value(42, i);
        if (memcmp(&v, &a[i], sizeof v) != 0) same_as_value = 0;
#ifndef REDUCE_EXACT
        if (!(v >= -1.0f && v < 1.0f) || v * 0x1p23f != floorf(v * 0x1p23f)) in_range = 0;
#endif
    }
    check(same_as_value, "input_value(seed, i) is element i of draw_input");
    check(in_range, "float elements are multiples of 2^-23 in [-1, 1)");

    reference_t other = { 0 };
    draw_input(43, 0, N, b, &other);
    check(memcmp(a, b, N * sizeof *a) != 0, "another seed gives other elements");

#ifdef REDUCE_EXACT
    uint32_t s = 0;
    for (size_t i = 0; i < N; i++) s += a[i];
    check(s == whole.u_sum, "exact reference = the wrapping uint32 sum");
    check(reference_sum(&whole) == (double)s, "reference_sum returns it");
#else
    long double s = 0, abs_s = 0;
    for (size_t i = 0; i < N; i++) { s += a[i]; abs_s += fabsl((long double)a[i]); }
    check(reference_sum(&whole) == (double)s, "float reference = exact sum (%.17g vs %.17Lg)",
          reference_sum(&whole), s);
    check(reference_abs_sum(&whole) == (double)abs_s, "sum of |x| is exact too");
    double mean = reference_sum(&whole) / N;
    check(fabs(mean) < 0.01, "the input has mean near zero (%.4f)", mean);
#endif
    free(a);
    free(b);
}

/* ---- error bound -------------------------------------------------------------------- */
#ifndef REDUCE_EXACT
/* Sums x[lo..hi) as a binary tree of floats: one order a GPU could use. */
static float tree_sum(const float *x, size_t lo, size_t hi)
{
    if (hi - lo == 1) return x[lo];
    size_t mid = lo + (hi - lo) / 2;
    return tree_sum(x, lo, mid) + tree_sum(x, mid, hi);
}
#endif

static void test_bound(void)
{
    double d = summation_depth(COMBINE_ATOMIC_EACH, 1000, 4, 256);
    check(d == 1002, "depth of atomics per element = n + 2 (got %g)", d);
    d = summation_depth(COMBINE_ATOMIC_PER_BLOCK, 1 << 20, 256, 256);
    check(d == 16 + 8 + 256 + 2, "depth with one atomic per block (got %g)", d);
    d = summation_depth(COMBINE_TREE, 1 << 20, 256, 256);
    check(d == 16 + 8 + 1 + 8 + 2, "depth of partials reduced as a tree (got %g)", d);
    d = summation_depth(COMBINE_UNKNOWN, 77, 1, 0);
    check(d == 79, "unknown order: depth n + 2 (got %g)", d);

    double u = 0x1p-24, b1 = error_bound(100, 1.0, 0), b2 = error_bound(400, 1.0, 0);
    check(fabs(b1 / (10 * 10 * u) - 1) < 1e-4, "bound ~ 10 sqrt(d) u sum|x| (%.3g)", b1);
    check(fabs(b2 / b1 - 2) < 1e-4, "four times the depth, twice the bound");
    check(error_bound(100, 5.0, 0) == 5 * b1, "the bound scales with sum |x|");
    check(isfinite(error_bound((double)(1 << 30), 1.0, 0)) && error_bound((double)(1 << 30), 1.0, 0) < 0.1,
          "the bound stays finite and below 10%% of sum|x| even for 2^30 atomics");

#ifndef REDUCE_EXACT
    /* The bound must hold for real float sums in the orders our steps use. */
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x);
    reference_t ref = { 0 };
    draw_input(7, 0, N, x, &ref);
    float seq = 0;
    for (size_t i = 0; i < N; i++) seq += x[i];
    double e_seq = fabs(seq - reference_sum(&ref));
    double bound_seq = error_bound(summation_depth(COMBINE_ATOMIC_EACH, N, 1, 1), reference_abs_sum(&ref), 0);
    check(e_seq <= bound_seq, "a sequential float sum is within the atomics bound (%.3g <= %.3g)", e_seq, bound_seq);
    double e_tree = fabs(tree_sum(x, 0, N) - reference_sum(&ref));
    double bound_tree = error_bound(summation_depth(COMBINE_TREE, N, 256, 256), reference_abs_sum(&ref), 0);
    check(e_tree <= bound_tree, "a tree float sum is within the tree bound (%.3g <= %.3g)", e_tree, bound_tree);
    check(bound_tree < 1e-5 * reference_abs_sum(&ref),
          "and that bound is tight: under 1e-5 of sum|x| (%.3g)", bound_tree / reference_abs_sum(&ref));
    free(x);

    check(ulp_distance(1.0f, nextafterf(1.0f, 2.0f)) == 1, "neighbouring floats are 1 ulp apart");
    check(ulp_distance(-0.0f, 0.0f) == 0, "-0 and +0 are 0 ulp apart");
    check(ulp_distance(-0x1p-149f, 0x1p-149f) == 2, "across zero the ulps add up");
    check(ulp_distance(3.0f, 3.0f) == 0, "equal floats are 0 ulp apart");
    check(isinf(ulp_distance(NAN, 1.0f)), "NaN is infinitely far");
#endif
}

/* ---- the fixed order (order.c) ------------------------------------------------------ */
/* The order once more, spelled as the GPU runs it: vector v of a chunk goes to
 * lane v % 32, which adds its vectors in increasing v; then __shfl_down_sync
 * as the hardware defines it (a lane whose partner is past lane 31 reads its
 * own value), on all 32 lanes. order.c must give these bits. */
static elem_t warp_model(const elem_t *p, size_t len, size_t chunk)
{
    elem_t lane[32] = { 0 };
    for (size_t v = 0; v < chunk / 4 && 4 * v < len; v++) {
        elem_t e[4];
        for (int k = 0; k < 4; k++) e[k] = 4 * v + k < len ? p[4 * v + k] : 0;
        lane[v % 32] += (e[0] + e[1]) + (e[2] + e[3]);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        elem_t from[32];
        for (int l = 0; l < 32; l++) from[l] = l + offset < 32 ? lane[l + offset] : lane[l];
        for (int l = 0; l < 32; l++) lane[l] += from[l];
    }
    return lane[0];
}

static elem_t model_sum(const elem_t *x, size_t n, size_t chunk)
{
    size_t m = (n + chunk - 1) / chunk;
    elem_t *sums = malloc(m * sizeof *sums);
    for (size_t c = 0; c < m; c++)
        sums[c] = warp_model(x + c * chunk, n - c * chunk < chunk ? n - c * chunk : chunk, chunk);
    elem_t total = m == 1 ? sums[0] : model_sum(sums, m, chunk);
    free(sums);
    return total;
}

static int same_bits(elem_t a, elem_t b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_order(void)
{
    enum { N = 3 * 128 * 128 + 77 };       /* three levels with chunks of 128 */
    elem_t *x = malloc(N * sizeof *x);
    reference_t ref = { 0 };
    draw_input(5, 0, N, x, &ref);
    static const size_t sizes[] = { 1, 2, 3, 4, 5, 127, 128, 129, 255, 4095, 4096, 4097,
                                    (size_t)128 * 128, (size_t)128 * 128 + 1, N };
    static const size_t chunks[] = { 128, 256, 4096 };
    int model_ok = 1, exact_ok = 1;
    size_t bad_n = 0, bad_chunk = 0;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i], chunk = chunks[c];
            elem_t got = order_sum(x, n, chunk);
            if (!same_bits(got, model_sum(x, n, chunk)) && model_ok) {
                model_ok = 0; bad_n = n; bad_chunk = chunk;
            }
#ifdef REDUCE_EXACT
            uint32_t s = 0;
            for (size_t k = 0; k < n; k++) s += x[k];
            if (got != s) exact_ok = 0;
#endif
        }
    check(model_ok, "order.c gives the bits of a model of the warps and their shuffles "
          "(first difference: n %zu, chunk %zu)", bad_n, bad_chunk);
#ifndef REDUCE_EXACT
    /* Rows of -0 (step 11 sums rows of any length, these among them): the
     * replica stops at a chunk's last vector, the warps add zeros past it;
     * both must give +0, as the model does. */
    float negz[9];
    for (int k = 0; k < 9; k++) negz[k] = -0.0f;
    int zeros_ok = 1;
    for (size_t n = 1; n <= 9; n++)
        zeros_ok &= same_bits(order_sum(negz, n, 4096), model_sum(negz, n, 4096));
    check(zeros_ok, "order.c on rows of -0 of 1 to 9 elements: the model's bits");
#endif
#ifdef REDUCE_EXACT
    check(exact_ok, "the fixed order adds every element once (exact build: wrapping sum)");
#else
    (void)exact_ok;
    /* Small integers add exactly in float: then any order that adds every
     * element once gives the exact sum. */
    for (size_t k = 0; k < N; k++) x[k] = (float)((int)(k % 7) - 3);
    int all_once = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double want = 0;
        for (size_t k = 0; k < sizes[i]; k++) want += x[k];
        if (order_sum(x, sizes[i], 128) != (float)want) all_once = 0;
    }
    check(all_once, "the fixed order adds every element once (small integers sum exactly)");

    /* The order is not the sequential one: on random floats the bits differ. */
    memset(&ref, 0, sizeof ref);
    draw_input(5, 0, N, x, &ref);
    float seq = 0;
    for (size_t k = 0; k < N; k++) seq += x[k];
    check(!same_bits(seq, order_sum(x, N, 128)),
          "and it is an order of its own: a sequential sum gives other bits (%.9g, %.9g)",
          (double)seq, (double)order_sum(x, N, 128));

    double e = fabs(order_sum(x, N, 4096) - reference_sum(&ref));
    double bound = error_bound(order_depth(N, 4096), reference_abs_sum(&ref), 0);
    check(e <= bound, "its error is within its bound (%.3g <= %.3g)", e, bound);
#endif
    check(order_depth(4096, 4096) == 32 + 7 && order_depth(4097, 4096) == 2 * (32 + 7) &&
          order_depth((size_t)1 << 24, 4096) == 2 * (32 + 7) &&
          order_depth(((size_t)1 << 24) + 1, 4096) == 3 * (32 + 7),
          "depth: 39 additions per level with chunks of 4096, one level per factor 4096");
    free(x);
}

/* ---- shards (shard.c) ---------------------------------------------------------------- */
/* Deals the chunks out one by one, per_rank to a rank, and counts each rank's
 * elements chunk by chunk: a slow, plain count to hold shard_of against. */
static int shards_by_dealing(size_t n, size_t chunk, int ranks, char *why, size_t len)
{
    size_t chunks = (n + chunk - 1) / chunk, per_rank = (chunks + ranks - 1) / ranks;
    size_t *first = calloc((size_t)ranks, sizeof *first), *count = calloc((size_t)ranks, sizeof *count);
    int rank = 0;
    size_t dealt = 0;
    for (size_t c = 0; c < chunks; c++) {
        if (dealt == per_rank) { rank++; dealt = 0; }
        size_t len_c = c == chunks - 1 ? n - c * chunk : chunk;
        if (dealt == 0) first[rank] = c * chunk;
        count[rank] += len_c;
        dealt++;
    }
    int ok = 1;
    for (int r = 0; r < ranks && ok; r++) {
        shard_t s;
        shard_of(n, chunk, ranks, r, &s);
        int placed = s.count == 0 || (s.first == first[r] && s.first % chunk == 0 &&
                                      s.first_chunk * chunk == s.first);
        if (s.count != count[r] || !placed || s.chunk_count != (s.count + chunk - 1) / chunk ||
            s.per_rank != per_rank || s.chunks != chunks) {
            snprintf(why, len, "n %zu, %d ranks, rank %d: shard_of gives [%zu, +%zu), chunks %zu at %zu; "
                     "dealing gives [%zu, +%zu)", n, ranks, r, s.first, s.count, s.chunk_count,
                     s.first_chunk, first[r], count[r]);
            ok = 0;
        }
    }
    free(first);
    free(count);
    return ok;
}

static void test_shard(void)
{
    static const int ranks[] = { 1, 2, 3, 4, 7, 16, 1024 };
    static const size_t sizes[] = { 1, 2, 3, 6, 7, 8, 15, 16, 17, 1023, 1024, 1025, 4095, 4096, 4097,
                                    8191, 8192, 8193, 7 * 4096ul - 1, 7 * 4096ul + 1, 16 * 4096ul,
                                    1024 * 4096ul - 1, 1024 * 4096ul + 1, 1000003, 100000007,
                                    ((size_t)1 << 31) + 5, ((size_t)1 << 32) + 7, (size_t)3 << 32 };
    char why[300] = "";
    int ok = 1, tried = 0;
    for (size_t g = 0; g < sizeof ranks / sizeof ranks[0] && ok; g++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && ok; i++, tried++)
            ok = shards_by_dealing(sizes[i], 4096, ranks[g], why, sizeof why);
    check(ok, "shards: whole chunks, in order, per_rank a rank, as dealing them out gives "
          "(%d cases, 1 to 1024 ranks, n up to 3 * 2^32) %s", tried, why);

    shard_t a, b;
    shard_of(10000, 4096, 2, 0, &a);
    shard_of(10000, 4096, 2, 1, &b);
    check(a.first == 0 && a.count == 8192 && b.first == 8192 && b.count == 1808 && b.first_chunk == 2,
          "the example in shard.c: 10000 elements on 2 ranks are [0, 8192) and [8192, 10000)");
    shard_of(1, 4096, 2, 1, &b);
    check(b.count == 0 && b.chunk_count == 0, "n = 1 on two ranks: the second shard is empty");
}

/* ---- report ------------------------------------------------------------------------- */
static int count_fields(const char *line)
{
    int fields = 1, quoted = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '"') quoted = !quoted;
        else if (*p == ',' && !quoted) fields++;
    }
    return fields;
}

static void test_report(void)
{
    result_t r = { 0 };
    r.step = "03_warp_shuffle";
    r.technique = "shuffles, \"quoted\"";
    r.device = "NVIDIA Test GPU";
    r.n = (size_t)1 << 28;
    r.seed = 1;
    r.block = 256;
    r.grid = 1056;
    r.reps = 20;
    r.runs = 22;
    r.median_us = 241.0;
    r.min_us = 239.5;
    r.peak_gbps = 4800;
    r.ok = 1;
    r.declared_deterministic = 0;
    r.distinct = 3;
    r.spread_ulp = 2;
#ifdef REDUCE_EXACT
    r.sum = 7;
    r.reference_bits = 7;
#else
    r.sum = 1.5f;
    r.reference = 1.5000001;
    r.error = 1e-7;
    r.bound = 3.6e3;
#endif
    r.depth = 1015;
    double gbps = result_gbps(&r);
    check(fabs(gbps - (double)((size_t)1 << 30) / 241e-6 / 1e9) < 1e-9,
          "GB/s = 4 n bytes / median time / 1e9 (%.1f)", gbps);

    char line[1024];
    format_report(line, sizeof line, &r);
    const char *order[] = { "03_warp_shuffle |", "| n 268435456 (1.07 GB) |", "| median 241.00 us, min 239.50 us |",
                            "| 4455 GB/s, 92.8% of peak |", "| OK |",
                            "| deterministic: no (22 runs, 3 distinct, spread 2 ulp)" };
    const char *at = line;
    int in_order = 1;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(at, order[i]);
        if (!p) { in_order = 0; break; }
        at = p;
    }
    check(in_order, "the human line has its fields in order: %s", line);

    r.ok = 0;
    r.reps = 0;
    r.runs = 1;
    format_report(line, sizeof line, &r);
    check(strstr(line, "| not timed | - |") && strstr(line, "| WRONG |") && strstr(line, "(1 run)"),
          "an untimed wrong run says so: %s", line);

    r.median_us = 20000;
    r.min_us = 19000;
    r.reps = 3;
    r.warm = 1;
    format_report(line, sizeof line, &r);
    check(strstr(line, "median 20.00 ms, min 19.00 ms (warm L2)") != NULL, "slow runs in ms, warm marked: %s", line);

    char header[512], row[1024];
    format_csv_header(header, sizeof header, 0);
    format_csv(row, sizeof row, &r);
    check(count_fields(header) == count_fields(row) && count_fields(header) == 32,
          "CSV header and row have the same 32 fields (%d, %d)", count_fields(header), count_fields(row));
    check(strstr(row, ",warm,-,1,1015") != NULL,
          "a one-GPU step without a fixed order: no replica, 1 GPU, and the depth the bound counted");

    r.replica_checked = 1;
    r.replica_equal = 1;
    r.runs = 22;
    format_report(line, sizeof line, &r);
    check(strstr(line, "| same bits on any GPU, grid and block: yes (22 runs, equal to the CPU "
                       "replica of the order)") != NULL, "a fixed order says what its bits hold across: %s", line);
    format_csv(row, sizeof row, &r);
    check(strstr(row, ",equal") != NULL, "and its CSV row says the replica was equal");
    r.replica_equal = 0;
    format_report(line, sizeof line, &r);
    check(strstr(line, "grid and block: NO (22 runs, not all equal to") != NULL, "or that it was not: %s", line);
    r.gpus = 2;
    format_report(line, sizeof line, &r);
    format_csv(row, sizeof row, &r);
    check(strstr(line, "| n 268435456 (1.07 GB) on 2 GPUs |") != NULL && strstr(row, ",differs,2") != NULL,
          "a step on several GPUs says how many: %s", line);
    check(strstr(row, "\"shuffles, \"\"quoted\"\"\"") != NULL, "CSV quotes text with commas and quotes");
}

/* ---- the grid ------------------------------------------------------------------ */
/* checked_grid in a child process, which it may stop: the child's exit status
 * (0 if checked_grid returned) and what was written to stderr. */
static int grid_child(size_t chosen, int asked, size_t most, char *msg, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        device_t d = { .name = "a test GPU", .max_grid_x = 1000 };
        checked_grid(chosen, asked, 5000, 256, most, &d);
        _exit(0);
    }
    close(fd[1]);
    ssize_t k = pid > 0 ? read(fd[0], msg, len - 1) : -1;
    msg[k > 0 ? k : 0] = '\0';
    close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static void test_grid(void)
{
    device_t d = { .name = "a test GPU", .max_grid_x = 1000 };
    check(checked_grid(132, 0, 5000, 256, 0, &d) == 132, "checked_grid: the step's grid without --grid");
    check(checked_grid(132, 50, 5000, 256, 0, &d) == 50, "checked_grid: --grid over the step's");
    check(checked_grid(132, 1000, 5000, 256, 0, &d) == 1000, "checked_grid: --grid at the GPU's limit");
    check(checked_grid(132, 500, 5000, 256, 500, &d) == 500, "checked_grid: --grid at the step's limit");
    static const struct { size_t chosen, most; int asked, code; const char *says, *what; } bad[] = {
        { 0, 0, 0, EXIT_DEVICE, "no block of 256 threads fits on a test GPU", "no block fits" },
        { 0, 0, 50, EXIT_DEVICE, "try a smaller --block", "no block fits, --grid given" },
        { 2000, 0, 0, EXIT_USAGE, "allows at most 1000", "the step's grid above the limit" },
        { 132, 0, 1001, EXIT_USAGE, "--grid 1001 is more blocks than a test GPU allows", "--grid above the limit" },
        { 132, 500, 501, EXIT_USAGE, "--grid 501 is more blocks than this step can combine (at most 500)",
          "--grid above the step's limit" },
        { 600, 500, 0, EXIT_USAGE, "this step can combine at most 500; use a larger --block",
          "the step's grid above its own limit" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char msg[512];
        int code = grid_child(bad[i].chosen, bad[i].asked, bad[i].most, msg, sizeof msg);
        char *nl = strchr(msg, '\n');       /* its line (a sanitizer may add its own after it) */
        if (nl) *nl = '\0';
        check(code == bad[i].code && nl && strncmp(msg, "reduce: ", 8) == 0 && strstr(msg, bad[i].says),
              "checked_grid: %s -> exit %d, a line saying '%s' (got exit %d: %s)", bad[i].what,
              bad[i].code, bad[i].says, code, msg);
    }
}

int main(void)
{
    test_sizes();
    test_args();
    test_input();
    test_bound();
    test_order();
    test_shard();
    test_report();
    test_grid();
    return failures ? 1 : 0;
}
