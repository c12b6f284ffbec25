/* unit_types.c: step 12's harness on the CPU (common/types/: dexact.c,
 * reference.c, tfile.c). Prints "PASS types/NAME" or "FAIL types/NAME: why".
 *
 *     build/tests/unit_types TMPDIR
 *
 * Contents
 *   1. half and bf16: known values, every value there and back
 *   2. the exact sum of doubles: worked cases, and the float sum as its oracle
 *   3. each pair's reference: ties, NaN, -0, int64 sums
 *   4. typed files: each type written and read back; every bad file refused
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/types/typed.h"

static int failures;
static void check(int ok, const char *fmt, ...)
{
    char name[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    printf("%s unit/types/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* ---- 1. half and bf16 --------------------------------------------------------------------- */
static void test_half_bf16(void)
{
    static const struct { float x; uint16_t half, bf16; } known[] = {
        { 1.0f, 0x3c00, 0x3f80 }, { -2.0f, 0xc000, 0xc000 }, { 65504.0f, 0x7bff, 0x4780 },
        { 65519.0f, 0x7bff, 0x4780 }, { 65520.0f, 0x7bff, 0x4780 }, { 1e6f, 0x7bff, 0x4974 },
        { 0x1p-24f, 0x0001, 0x3380 }, { 0x1p-25f, 0x0000, 0x3300 }, { 0x3p-25f, 0x0002, 0x33c0 },
        { 0x1.002p0f, 0x3c00, 0x3f80 }, { 0x1.006p0f, 0x3c02, 0x3f80 }, { 0x1.01p0f, 0x3c04, 0x3f80 },
        { 0x1.018p0f, 0x3c06, 0x3f81 }, { 0x1.008p0f, 0x3c02, 0x3f80 }, { FLT_MAX, 0x7bff, 0x7f7f },
        { -FLT_MAX, 0xfbff, 0xff7f }, { INFINITY, 0x7c00, 0x7f80 }, { -INFINITY, 0xfc00, 0xff80 },
        { -0.0f, 0x8000, 0x8000 }, { 0x1p-14f, 0x0400, 0x3880 }, { 0x1.ffcp-15f, 0x0400, 0x3880 },
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        uint16_t h = half_from_float(known[k].x), b = bf16_from_float(known[k].x);
        check(h == known[k].half && b == known[k].bf16, "convert/%a: half 0x%04x (want 0x%04x), bf16 "
              "0x%04x (want 0x%04x)", (double)known[k].x, h, known[k].half, b, known[k].bf16);
    }
    check(isnan(half_to_float(half_from_float(NAN))) && isnan(bf16_to_float(bf16_from_float(-NAN))),
          "convert/NaN stays NaN");
    int half_ok = 1, bf16_ok = 1;
    for (uint32_t v = 0; v < 65536; v++) {
        float h = half_to_float((uint16_t)v), b = bf16_to_float((uint16_t)v);
        if (!isnan(h)) half_ok &= half_from_float(h) == v;
        if (!isnan(b)) bf16_ok &= bf16_from_float(b) == v;
    }
    check(half_ok && bf16_ok, "convert/every half and bf16 to float and back (half %d, bf16 %d)",
          half_ok, bf16_ok);
}

/* ---- 2. the exact sum of doubles ------------------------------------------------------------ */
static double dsum(const double *x, int n)
{
    dexact_t a;
    dexact_init(&a);
    for (int i = 0; i < n; i++) dexact_add(&a, x[i]);
    return dexact_round(&a);
}

static void test_dexact(void)
{
    static const struct { const char *name; int n; double x[4], want; } cases[] = {
        { "big cancels", 3, { 1e308, 1.0, -1e308 }, 1.0 },
        { "ties to even down", 2, { 0x1p53, 1.0 }, 0x1p53 },
        { "ties to even up", 2, { 0x1p53, 3.0 }, 0x1p53 + 4 },
        { "above the tie", 3, { 0x1p53, 1.0, 0x1p-1000 }, 0x1p53 + 2 },
        { "subnormals", 3, { 0x1p-1074, 0x1p-1074, 0x1p-1074 }, 0x3p-1074 },
        { "past the range", 2, { DBL_MAX, DBL_MAX }, INFINITY },
        { "below -range", 2, { -DBL_MAX, -DBL_MAX }, -INFINITY },
        { "just fits", 3, { DBL_MAX, 0x1p970, -0x1p970 }, DBL_MAX },
        { "negative", 2, { -3.5, 1.25 }, -2.25 },
        { "zero from pairs", 4, { 0.1, -0.1, 1e300, -1e300 }, 0.0 },
        { "-0 and -0", 2, { -0.0, -0.0 }, -0.0 },
        { "-0 and +0", 2, { -0.0, 0.0 }, 0.0 },
        { "inf", 2, { INFINITY, 1.0 }, INFINITY },
        { "-inf", 2, { -INFINITY, DBL_MAX }, -INFINITY },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double got = dsum(cases[k].x, cases[k].n);
        check(dbits(got) == dbits(cases[k].want), "dexact/%s: %a (want %a)", cases[k].name, got, cases[k].want);
    }
    double nan_cases[2][2] = { { NAN, 1.0 }, { INFINITY, -INFINITY } };
    check(isnan(dsum(nan_cases[0], 2)) && isnan(dsum(nan_cases[1], 2)), "dexact/NaN, and +inf with -inf");
    double small[2] = { 1.0, 0x1p-60 };
    dexact_t a;
    dexact_init(&a);
    for (int i = 0; i < 2; i++) dexact_add(&a, small[i]);
    check(dexact_error(&a, 1.0) == -0x1p-60 && dexact_abs_up(&a) == 1.0 + 0x1p-52,
          "dexact/error and the sum of magnitudes rounded up (%a, %a)", dexact_error(&a, 1.0), dexact_abs_up(&a));

    /* The oracle: floats are doubles, and the float accumulator's exact sum
     * rounded to a double must be the double accumulator's, for any input. */
    size_t n = 100003;
    float *x = malloc(n * sizeof *x);
    for (int d = 0; d < DIST_COUNT && x; d++)
        for (uint64_t seed = 1; seed <= 4; seed += 3) {
            exact_sum_t f;
            dexact_t whole, part[3];
            exact_init(&f);
            dexact_init(&whole);
            dist_draw((dist_t)d, seed, 0, n, n, x, &f);
            for (int p = 0; p < 3; p++) dexact_init(&part[p]);
            for (size_t i = 0; i < n; i++) dexact_add(&whole, x[i]), dexact_add(&part[i % 3], x[i]);
            dexact_merge(&part[0], &part[2]);
            dexact_merge(&part[0], &part[1]);
            double want = exact_to_double(&f), got = dexact_round(&whole), merged = dexact_round(&part[0]);
            double abs_up = dexact_abs_up(&whole), abs_f = exact_abs_sum(&f);
            check(dbits(got) == dbits(want) && dbits(merged) == dbits(want) && abs_up >= abs_f * (1 - 0x1p-52) &&
                  abs_up <= abs_f * (1 + 0x1p-51), "dexact/%s seed %d: %a, merged %a (float oracle %a)",
                  dist_info[d].name, (int)seed, got, merged, want);
        }
    free(x);
}

/* ---- 3. each pair's reference ----------------------------------------------------------------- */
static void test_reference(void)
{
    typed_ref_t r;
    float f[] = { 1.0f, 3.0f, -2.0f, 3.0f, 0.5f };
    typed_reference(TYPE_FLOAT, OP_ARGMAX, f, 5, &r);
    check(r.exact && r.want.index == 1 && r.want.value.f == 3.0f, "reference/argmax: a tie gives the first index");
    typed_reference(TYPE_FLOAT, OP_MIN, f, 5, &r);
    check(r.want.value.f == -2.0f, "reference/min");
    float z[] = { -0.0f, 0.0f, -0.0f };
    typed_reference(TYPE_FLOAT, OP_ARGMAX, z, 3, &r);
    check(r.want.index == 1 && fbits(r.want.value.f) == 0, "reference/argmax: +0 above -0");
    typed_reference(TYPE_FLOAT, OP_MIN, z, 3, &r);
    check(fbits(r.want.value.f) == 0x80000000u, "reference/min: -0 below +0");
    float nan_payload;
    uint32_t u = 0xffc01234u;
    memcpy(&nan_payload, &u, 4);
    float w[] = { 1.0f, INFINITY, nan_payload, NAN, -INFINITY };
    typed_reference(TYPE_FLOAT, OP_ARGMAX, w, 5, &r);
    check(r.want.index == 2 && fbits(r.want.value.f) == 0x7fc00000u, "reference/argmax: the first NaN, canonical");
    typed_reference(TYPE_FLOAT, OP_MIN, w, 5, &r);
    check(fbits(r.want.value.f) == 0x7fc00000u, "reference/min: a NaN wins too");
    int32_t big[] = { INT32_MAX, INT32_MAX, INT32_MIN, INT32_MAX };
    typed_reference(TYPE_INT32, OP_SUM, big, 4, &r);
    check(r.exact && r.want.value.i64 == 2 * (int64_t)INT32_MAX - 1, "reference/int32 sum in int64");
    typed_reference(TYPE_INT32, OP_ARGMAX, big, 4, &r);
    check(r.want.index == 0 && r.want.value.i32 == INT32_MAX, "reference/int32 argmax");
    typed_reference(TYPE_INT32, OP_MIN, big, 4, &r);
    check(r.want.value.i32 == INT32_MIN, "reference/int32 min");
    uint16_t b[] = { bf16_from_float(1.0f), bf16_from_float(0x1p-20f), bf16_from_float(-1.0f) };
    typed_reference(TYPE_BF16, OP_SUM, b, 3, &r);
    check(!r.exact && !r.in_double && exact_to_double(&r.f) == 0x1p-20, "reference/bf16 sum exact");
    typed_reference(TYPE_BF16, OP_SUMSQ, b, 3, &r);
    check(r.in_double && dexact_round(&r.d) == 2 + 0x1p-40, "reference/bf16 sumsq exact");
    float sq[] = { 0x1.000002p100f, 0x1p-140f };
    typed_reference(TYPE_FLOAT, OP_SUMSQ, sq, 2, &r);
    double x2 = (double)sq[0] * sq[0];       /* exact: 48 bits */
    check(dexact_round(&r.d) == x2 && dexact_error(&r.d, x2) == -0x1p-280 && dexact_error(&r.d, (float)x2) != 0,
          "reference/float sumsq: squares exact in the double accumulator");
    double dd[] = { 0x1p60, 1.0, -0x1p60 };
    typed_reference(TYPE_DOUBLE, OP_SUM, dd, 3, &r);
    check(r.in_double && dexact_round(&r.d) == 1.0, "reference/double sum exact");
}

/* ---- 4. typed files ----------------------------------------------------------------------------- */
static const char *dir;
static const char *path_of(const char *name)
{
    static char path[4][1200];
    static int next;
    next = (next + 1) % 4;
    snprintf(path[next], sizeof path[next], "%s/%s", dir, name);
    return path[next];
}

static void write_bytes(const char *name, const void *a, size_t len)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f || fwrite(a, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "unit_types: cannot write %s\n", path_of(name));
        exit(3);
    }
}

static void expect_bad(const char *name, const char *want)
{
    tfile_t f;
    char err[600] = "";
    const char *path = path_of(name);
    int rc = tfile_open(&f, path, err, sizeof err);
    check(rc == INFILE_BAD && strstr(err, want) && strstr(err, path) && !strchr(err, '\n') && f.fd == -1,
          "tfile/bad %s: status 2, '%s' (said: %s)", name, want, err);
}

static void npy(const char *name, const char *dict, size_t data)
{
    char b[256] = "\x93NUMPY\x01";
    size_t dl = strlen(dict), total = (10 + dl + 1 + 63) / 64 * 64;
    b[8] = (char)(total - 10);
    memcpy(b + 10, dict, dl);
    memset(b + 10 + dl, ' ', total - 10 - dl - 1);
    b[total - 1] = '\n';
    memset(b + total, 0, data);
    write_bytes(name, b, total + data);
}

static void test_files(void)
{
    static const char *names[TYPE_COUNT] = { "f.npy", "d.npy", "h.npy", "x.bf16", "i.npy" };
    unsigned char x[8 * 37], y[8 * 37];
    for (size_t i = 0; i < sizeof x; i++) x[i] = (unsigned char)(i * 37 + 11);
    for (int t = 0; t < TYPE_COUNT; t++) {
        char err[600] = "";
        tfile_t f;
        memset(y, 0, sizeof y);
        int rc = tfile_write(path_of(names[t]), (type_t)t, x, 37, err, sizeof err);
        rc = rc || tfile_open(&f, path_of(names[t]), err, sizeof err);
        rc = rc || f.type != (type_t)t || f.n != 37 || tfile_read(&f, y, err, sizeof err);
        if (!rc) tfile_close(&f);
        check(!rc && memcmp(x, y, 37 * type_info[t].size) == 0, "tfile/%s written and read back (%s)",
              type_info[t].name, err);
    }
    write_bytes("raw.f32", x, 16);
    expect_bad("raw.f32", "neither a .npy file");
    write_bytes("odd.bf16", x, 5);
    expect_bad("odd.bf16", "5 bytes is not a whole number of bf16s");
    write_bytes("empty.bf16", x, 0);
    expect_bad("empty.bf16", "the file is empty");
    expect_bad("no-such-file.npy", "cannot open it");
    npy("i8.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", 16);
    expect_bad("i8.npy", ".npy dtype '<i8' is not one step 12 reads");
    npy("big.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8);
    expect_bad("big.npy", ".npy dtype '>f4' is not one step 12 reads");
    npy("m.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 16);
    expect_bad("m.npy", "is not one-dimensional");
    npy("none.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", 0);
    expect_bad("none.npy", "holds no elements");
    npy("short.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }", 9);
    expect_bad("short.npy", "truncated: the header says 5 elements (2 bytes each) but 9 bytes");
    npy("long.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 12);
    expect_bad("long.npy", "4 bytes follow the 2 elements");
    npy("nodict.npy", "{'descr': '<f4', 'shape': (2,), }", 8);
    expect_bad("nodict.npy", "fortran_order");
    char err[600] = "";
    check(tfile_write(path_of("no/such/dir.npy"), TYPE_FLOAT, x, 1, err, sizeof err) == INFILE_BAD &&
          strstr(err, "cannot write") && !strchr(err, '\n'), "tfile/write to a missing folder: one line (%s)", err);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: unit_types TMPDIR\n");
        return 2;
    }
    dir = argv[1];
    test_half_bf16();
    test_dexact();
    test_reference();
    test_files();
    return failures != 0;
}
