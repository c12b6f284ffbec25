/* unit_inputs.c: host tests of the input distributions, the exact sum and
 * the file reader (no GPU needed). Prints one PASS or FAIL line per check,
 * which tests/run counts (group "inputs").
 *
 *     build/tests/unit_inputs TMPDIR          every check; files go in TMPDIR
 *     build/tests/unit_inputs --dump DIR      write arrays and this code's sums
 *                                             for tests/exact_oracle.py
 *
 * Contents
 *   1. check, exact_of
 *   2. uniform: the harness's values, bit for bit
 *   3. every distribution: slices, threads, the exact build's bits, names
 *   4. the cases for the oracle
 *   5. main
 */
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit_inputs.h"

/* ---- 1. check, exact_of ------------------------------------------------------------ */
static int failures;

void check(int ok, const char *fmt, ...)
{
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    printf("%s inputs/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) failures++;
}

float exact_of(const float *x, size_t n)
{
    exact_sum_t acc;
    exact_init(&acc);
    exact_add_floats(&acc, x, n);
    return exact_round(&acc);
}

static const size_t SIZES[] = { 1, 2, 3, 31, 33, 1000, 4097, 100003 };
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

/* ---- 2. uniform ---------------------------------------------------------------------
 * Element values the harness drew before this module existed (common/data.c's
 * input_value), float and exact build, and its reference sums. */
static void test_uniform(void)
{
    static const struct { uint64_t seed; size_t i; uint32_t f, u; } v[] = {
        { 0, 0, 0xbedf79f8u, 0x48218226u }, { 0, 1000, 0x3e0a9690u, 0x9152d25du },
        { 0, 2147483653u, 0xbf76a166u, 0x04af4d35u }, { 1, 0, 0x3f39c846u, 0xdce423fcu },
        { 1, 1, 0xbe86f954u, 0x5e41ab08u }, { 1, 1099511627775u, 0xbe2cee78u, 0x6a6231feu },
        { 2, 2, 0xbf54a0b4u, 0x15afa6ccu }, { 12345, 2, 0x3af7d400u, 0x803df548u },
        { UINT64_MAX, 1000, 0x3f0995f0u, 0xc4caf818u },
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        uint32_t f = bits_of(dist_value(DIST_UNIFORM, v[k].seed, v[k].i, v[k].i + 1));
        uint32_t u = dist_bits(DIST_UNIFORM, v[k].seed, v[k].i, v[k].i + 1);
        check(f == v[k].f && u == v[k].u, "uniform/seed %" PRIu64 " element %zu is the harness's "
              "(0x%08x 0x%08x, got 0x%08x 0x%08x)", v[k].seed, v[k].i, v[k].f, v[k].u, f, u);
    }
    static const struct { uint64_t seed; size_t n; double sum, abs; } r[] = {
        { 1, 1000, 0x1.af91678p+2, 0x1.f876f3eep+8 },
        { 2, 1000003, 0x1.3e0c6e55p+9, 0x1.e880ea5d9d8p+18 },
        { 3, 4194304, 0x1.4579b177p+9, 0x1.fffbc255012p+20 },
    };
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
        float *x = malloc(r[k].n * sizeof *x);
        exact_sum_t acc;
        exact_init(&acc);
        dist_draw(DIST_UNIFORM, r[k].seed, 0, r[k].n, r[k].n, x, &acc);
        check(exact_to_double(&acc) == r[k].sum && exact_abs_sum(&acc) == r[k].abs,
              "uniform/seed %" PRIu64 " n %zu: the harness's reference sum %a and sum of "
              "magnitudes %a", r[k].seed, r[k].n, r[k].sum, r[k].abs);
        free(x);
    }
}

/* ---- 3. every distribution ------------------------------------------------------------
 * Drawn whole on two threads, then in three slices in reverse order on one
 * thread: the same elements, the same accumulator, and each element what
 * dist_value and dist_bits say. */
static void test_slices(dist_t d, size_t n, uint64_t seed)
{
    float *whole = malloc(n * sizeof *whole), *part = malloc(n * sizeof *part);
    exact_sum_t a, b;
    exact_init(&a);
    exact_init(&b);
    omp_set_num_threads(2);
    dist_draw(d, seed, 0, n, n, whole, &a);
    omp_set_num_threads(1);
    size_t cut[4] = { 0, n / 3, n / 3 + n / 4, n };
    for (int k = 2; k >= 0; k--) {
        exact_sum_t s;
        exact_init(&s);
        dist_draw(d, seed, cut[k], cut[k + 1] - cut[k], n, part + cut[k], &s);
        exact_merge(&b, &s);
    }
    omp_set_num_threads(2);
    int same_value = 1, same_bits = 1, finite = 1;
    for (size_t i = 0; i < n; i += 1 + i / 64) {
        same_value &= bits_of(dist_value(d, seed, i, n)) == bits_of(whole[i]);
        if (d != DIST_UNIFORM) same_bits &= dist_bits(d, seed, i, n) == bits_of(whole[i]);
        finite &= isfinite(whole[i]) != 0;
    }
    const char *name = dist_info[d].name;
    check(memcmp(whole, part, n * sizeof *whole) == 0 && memcmp(&a, &b, sizeof a) == 0,
          "%s/n %zu seed %" PRIu64 ": three slices drawn alone equal the whole", name, n, seed);
    check(same_value && same_bits && finite, "%s/n %zu seed %" PRIu64 ": dist_value and dist_bits "
          "give the drawn elements, all finite", name, n, seed);
    uint32_t *u = (uint32_t *)malloc(n * sizeof *u), sum = 0, want = 0;
    dist_draw_bits(d, seed, 0, n, n, u, &sum);
    for (size_t i = 0; i < n; i++) want += dist_bits(d, seed, i, n);
    check(sum == want, "%s/n %zu seed %" PRIu64 ": dist_draw_bits sums modulo 2^32", name, n, seed);
    free(u);
    free(whole);
    free(part);
}

static void test_names(void)
{
    char err[200] = "";
    for (int d = 0; d < DIST_COUNT; d++) {
        check(dist_parse(dist_info[d].name, err, sizeof err) == d, "names/%s parses",
              dist_info[d].name);
        check(strlen(dist_info[d].line) <= 100 && !strchr(dist_info[d].line, '\n'),
              "names/%s has one line of help, at most 100 characters", dist_info[d].name);
    }
    const char *want = "'normal' is not an input: choose from uniform, wide, cancel, ties, huge";
    check(dist_parse("normal", err, sizeof err) == -1 && strcmp(err, want) == 0,
          "names/an unknown name is refused, listing the names (%s)", err);
}

/* ---- 4. the cases for the oracle --------------------------------------------------------
 * Each case is an array in a raw file and a line of the manifest with this
 * code's answers: name|file|n|bits of the rounded sum|the double|the sum of
 * magnitudes (rounded up), the last two in C's %a. */
static int dump_case(const char *dir, FILE *manifest, const char *name, const float *x, size_t n)
{
    static int count;
    char file[64], path[1200];
    snprintf(file, sizeof file, "case%04d.f32", count++);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(x, sizeof *x, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "unit_inputs: cannot write %s\n", path);
        return -1;
    }
    exact_sum_t acc;
    exact_init(&acc);
    exact_add_floats(&acc, x, n);
    fprintf(manifest, "%s|%s|%zu|%08x|%a|%a\n", name, file, n, bits_of(exact_round(&acc)),
            exact_to_double(&acc), exact_abs_sum(&acc));
    return 0;
}

/* Random floats whose exponents lie within 30 of each other, so that the
 * last bit's rounding matters in most of them. */
static void close_floats(float *x, size_t n, uint64_t *s)
{
    int base = (int)(*s % 200) - 100;
    for (size_t j = 0; j < n; j++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        float m = (float)(*s >> 40) * 0x1p-24f * (*s >> 63 ? -1.0f : 1.0f);  /* 24 random bits */
        x[j] = ldexpf(m, base + (int)(*s >> 33 & 31));
    }
}

static int dump_all(const char *dir)
{
    char path[1200], name[128];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *m = fopen(path, "w");
    float *x = malloc(SIZES[NSIZES - 1] * sizeof *x);
    int rc = !m || !x;
    for (int d = 0; d < DIST_COUNT && !rc; d++)
        for (size_t k = 0; k < NSIZES; k++)
            for (uint64_t seed = 1; seed <= 4; seed++) {
                if (SIZES[k] > 5000 && seed % 3 != 1) continue;      /* seeds 1 and 4 */
                dist_draw((dist_t)d, seed, 0, SIZES[k], SIZES[k], x, NULL);
                snprintf(name, sizeof name, "%s/n %zu seed %" PRIu64, dist_info[d].name, SIZES[k],
                         seed);
                rc |= dump_case(dir, m, name, x, SIZES[k]);
            }
    for (int c = 0; c < known_count && !rc; c++)
        rc |= dump_case(dir, m, known_cases[c].name, known_cases[c].x, (size_t)known_cases[c].n);
    uint64_t s = 12345;
    for (int c = 0; c < 60 && !rc; c++) {
        size_t n = 2 + (size_t)c % 5;
        close_floats(x, n, &s);
        snprintf(name, sizeof name, "close exponents/%d (n %zu)", c, n);
        rc |= dump_case(dir, m, name, x, n);
    }
    if (m && fclose(m) != 0) rc = 1;
    free(x);
    return rc ? 3 : 0;
}

/* ---- 5. main ------------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) return dump_all(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: unit_inputs TMPDIR | unit_inputs --dump DIR\n");
        return 2;
    }
    test_uniform();
    test_names();
    static const size_t n[] = { 1, 2, 3, 33, 4097, 100003 };
    for (int d = 0; d < DIST_COUNT; d++)
        for (size_t k = 0; k < sizeof n / sizeof n[0]; k++)
            for (uint64_t seed = 1; seed <= 4; seed += 3) test_slices((dist_t)d, n[k], seed);
    test_claims();
    test_exact_sum();
    test_infile(argv[1]);
    return failures != 0;
}
