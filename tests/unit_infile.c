/* unit_infile.c: the user's file (common/inputs/infile.c, npy.c). Every bad file
 * is written into the test's folder and must be refused with status 2 and
 * one line that names the file and the problem; good files, raw and .npy,
 * must give the same array and the same exact sum.
 *
 * Contents
 *   1. writing test files: raw, and .npy by hand (no NumPy needed)
 *   2. bad files, one by one
 *   3. good files: raw and .npy (versions 1, 2, 3) alike, slices
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_inputs.h"

static const char *dir;

/* ---- 1. writing test files --------------------------------------------------------------- */
static const char *path_of(const char *name)
{
    static char path[4][1200];
    static int next;
    next = (next + 1) % 4;
    snprintf(path[next], sizeof path[next], "%s/%s", dir, name);
    return path[next];
}

static void write_file(const char *name, const void *a, size_t alen, const void *b, size_t blen)
{
    FILE *f = fopen(path_of(name), "wb");
    int ok = f && fwrite(a, 1, alen, f) == alen && (!blen || fwrite(b, 1, blen, f) == blen);
    if (!f || fclose(f) != 0 || !ok) {
        fprintf(stderr, "unit_inputs: cannot write %s\n", path_of(name));
        exit(3);
    }
}

/* A .npy file as NumPy writes it: magic, version, header length (2 bytes in
 * version 1, 4 after), the dictionary padded with spaces and a newline so
 * that the data starts on a multiple of 64 bytes, then the data. */
static void write_npy(const char *name, int major, const char *dict, const void *data, size_t len)
{
    char head[512];
    size_t prefix = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (prefix + dl + 1 + 63) / 64 * 64, hlen = total - prefix;
    memcpy(head, "\x93NUMPY", 6);
    head[6] = (char)major;
    head[7] = 0;
    for (size_t k = 0; k < prefix - 8; k++) head[8 + k] = (char)(hlen >> (8 * k) & 255);
    memcpy(head + prefix, dict, dl);
    memset(head + prefix + dl, ' ', hlen - dl - 1);
    head[total - 1] = '\n';
    write_file(name, head, total, data, len);
}

static int entries(void)
{
    DIR *d = opendir(dir);
    int count = 0;
    while (d && readdir(d)) count++;
    if (d) closedir(d);
    return count;
}

/* ---- 2. bad files ------------------------------------------------------------------- */
/* Opens path: it must fail with status 2 and one line naming it and saying want. */
static void expect_bad(const char *what, const char *path, const char *want)
{
    infile_t f;
    char err[600] = "";
    int rc = infile_open(&f, path, err, sizeof err);
    check(rc == INFILE_BAD && strstr(err, want) && strstr(err, path) && !strchr(err, '\n') &&
          f.fd == -1, "infile/%s: status 2, '%s' (said: %s)", what, want, err);
}

/* .npy files whose header is wrong: dictionary, version, data bytes. */
#define F4 "{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }"
static const struct {
    const char *what, *file;
    int major;
    const char *dict;
    size_t bytes;
    const char *want;
} bad_npy[] = {
    { "float64", "f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (50,), }", 400,
      ".npy dtype '<f8' (float64) is not float32" },
    { "int32", "i4.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (100,), }", 400,
      ".npy dtype '<i4' (int32) is not float32" },
    { "big-endian", "be.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (100,), }", 400,
      "'>f4' is big-endian float32" },
    { "structured", "rec.npy", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (100,), }",
      400, ".npy dtype [('a', '<f4')] is not float32" },
    { "2-D", "2d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10, 10), }", 400,
      ".npy shape (10, 10) is not one-dimensional" },
    { "2-D, fortran order", "2df.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (4, 25), }",
      400, ".npy shape (4, 25) (fortran_order True) is not one-dimensional" },
    { "0-D", "0d.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4,
      ".npy shape () is not one-dimensional" },
    { "no elements", "none.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0,
      ".npy shape (0,) holds no elements" },
    { "data shorter than the shape", "less.npy", 1, F4, 396,
      ".npy data is truncated: the header says 100 floats (4 bytes each) but 396 bytes follow it" },
    { "data longer than the shape", "more.npy", 1, F4, 404,
      "4 bytes follow the 100 floats its .npy header declares" },
    { "version 4.0", "v4.npy", 4, F4, 400, ".npy format version 4.0: versions 1.0, 2.0 and 3.0 are read" },
    { "not a dictionary", "junk.npy", 1, "float32 please", 400, "header is not the dictionary NumPy writes" },
    { "no fortran_order", "nofort.npy", 1, "{'descr': '<f4', 'shape': (100,), }", 400,
      "header is not the dictionary NumPy writes" },
    { "shape not a tuple", "list.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': [100], }",
      400, "shape is not a tuple of whole numbers" },
};

static void test_bad(void)
{
    float v[101] = { 0 };     /* 404 bytes: one file has 4 too many */
    expect_bad("missing", path_of("no_such_file"), "cannot open it: No such file or directory");
    expect_bad("a folder", dir, "is not a regular file");
    write_file("empty.f32", "", 0, NULL, 0);
    expect_bad("empty", path_of("empty.f32"), "the file is empty");
    write_file("ten.f32", v, 10, NULL, 0);
    expect_bad("10 bytes", path_of("ten.f32"), "10 bytes is not a whole number of floats");
    write_file("raw.npy", v, sizeof v, NULL, 0);
    expect_bad("named .npy, no magic", path_of("raw.npy"), "does not start with NumPy's magic");
    write_file("short.npy", "\x93NUMPY\x01\x00", 8, NULL, 0);
    expect_bad("truncated header", path_of("short.npy"),
               "truncated .npy header: the file has only 8 bytes");
    write_file("past.npy", "\x93NUMPY\x01\x00\xe8\x03{'descr'", 17, NULL, 0);   /* says 1000 bytes */
    expect_bad("header length past the end", path_of("past.npy"),
               "truncated .npy header: it says 1000 bytes, but the file ends after 7");
    for (size_t k = 0; k < sizeof bad_npy / sizeof bad_npy[0]; k++) {
        write_npy(bad_npy[k].file, bad_npy[k].major, bad_npy[k].dict, v, bad_npy[k].bytes);
        expect_bad(bad_npy[k].what, path_of(bad_npy[k].file), bad_npy[k].want);
    }
    write_file("locked.f32", v, sizeof v, NULL, 0);
    chmod(path_of("locked.f32"), 0);
    if (geteuid() == 0) printf("SKIP inputs/infile/unreadable: running as root, which reads any file\n");
    else expect_bad("unreadable", path_of("locked.f32"), "cannot open it: Permission denied");
}

/* ---- 3. good files ------------------------------------------------------------------ */
/* Opens and reads a whole file; its exact sum into acc. Returns its n, 0 on failure. */
static size_t read_whole(const char *path, float *x, size_t cap, exact_sum_t *acc, int *npy)
{
    infile_t f;
    char err[600];
    exact_init(acc);
    if (infile_open(&f, path, err, sizeof err) != 0) {
        printf("FAIL inputs/infile/%s opens: %s\n", path, err);
        return 0;
    }
    size_t n = f.n;
    int ok = n <= cap && f.bytes == 4 * (uint64_t)n;
    for (size_t lo = 0, len = 0; ok && lo < n; lo += len) {      /* in pieces, like the harness */
        len = n - lo < 777 ? n - lo : 777;
        ok = infile_read(&f, lo, len, x + lo, err, sizeof err) == 0;
    }
    *npy = f.npy;
    if (ok) exact_add_floats(acc, x, n);
    infile_close(&f);
    return ok ? n : 0;
}

/* The good files: raw, .npy versions 1 to 3, and one written unlike NumPy
 * (double quotes, keys in another order, 1000L, fortran_order True on 1-D). */
static const char *good[] = { "good.f32", "good1.npy", "good2.npy", "good3.npy", "odd.npy" };

static void write_good(const float *v, size_t n)
{
    char dict[200];
    write_file(good[0], v, n * 4, NULL, 0);
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu,), }", n);
    for (int major = 1; major <= 3; major++) write_npy(good[major], major, dict, v, n * 4);
    snprintf(dict, sizeof dict, "{\"shape\": (%zuL,), \"fortran_order\": True, \"descr\": \"<f4\"}",
             n);
    write_npy(good[4], 1, dict, v, n * 4);
}

static void test_good(void)
{
    const size_t n = 4097;
    float *v = malloc(n * sizeof *v), *x = malloc(n * sizeof *x);
    dist_draw(DIST_WIDE, 7, 0, n, n, v, NULL);
    v[5] = -0.0f;
    write_good(v, n);
    int before = entries();
    exact_sum_t want, got;
    exact_init(&want);
    exact_add_floats(&want, v, n);
    for (int k = 0; k < 5; k++) {
        int npy = -1;
        size_t m = read_whole(path_of(good[k]), x, n, &got, &npy);
        check(m == n && npy == (k > 0) && memcmp(x, v, n * 4) == 0 &&
              memcmp(&got, &want, sizeof got) == 0,
              "infile/%s: %zu floats, the values written, the same exact sum as the raw file",
              good[k], n);
    }
    infile_t f;
    char err[600] = "";
    int rc = infile_open(&f, path_of("good1.npy"), err, sizeof err);
    check(rc == 0 && f.data_at == 128, "infile/good1.npy: its data starts at byte 128");
    rc = infile_read(&f, n - 10, 11, x, err, sizeof err);
    check(rc == INFILE_BAD && strstr(err, "elements 4087 to 4098 asked for, but it holds 4097"),
          "infile/a read past the end is refused (%s)", err);
    infile_close(&f);
    check(entries() == before, "infile/reading wrote nothing: no new file in the folder");
    free(v);
    free(x);
}

/* ---- 4. matrices (step 11): a 2-D .npy ----------------------------------------------- */
static void test_matrix(void)
{
    float v[15];
    for (int k = 0; k < 15; k++) v[k] = (float)k;
    write_npy("m.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", v, sizeof v);
    infile_t f;
    char err[600] = "";
    int rc = infile_open_matrix(&f, path_of("m.npy"), err, sizeof err);
    check(rc == 0 && f.n == 15 && f.rows == 3, "infile/matrix: a (3, 5) .npy is 3 rows, 15 floats (%s)", err);
    if (rc == 0) infile_close(&f);
    rc = infile_open(&f, path_of("m.npy"), err, sizeof err);
    check(rc == INFILE_BAD && strstr(err, "is not one-dimensional"),
          "infile/matrix: the one-array steps still refuse it (%s)", err);
    static const struct { const char *file, *dict, *want; } bad[] = {
        { "m3.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1, 5), }",
          "is not a 1-D array or a 2-D matrix in row-major order" },
        { "mf.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 5), }",
          "(fortran_order True) is not a 1-D array or a 2-D matrix" },
        { "m0.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0), }", "holds no elements" },
        { "mbig.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }",
          "data is truncated: the header says shape (4611686018427387904, 8)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_npy(bad[i].file, 1, bad[i].dict, v, sizeof v);
        rc = infile_open_matrix(&f, path_of(bad[i].file), err, sizeof err);
        check(rc == INFILE_BAD && strstr(err, bad[i].want), "infile/matrix: %s refused: '%s' (said: %s)",
              bad[i].file, bad[i].want, err);
    }
}

void test_infile(const char *tmpdir)
{
    dir = tmpdir;
    test_bad();
    test_good();
    test_matrix();
}
