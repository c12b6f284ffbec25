/* tfile.c: step 12's files (typed.h, section 3): a one-dimensional .npy of
 * <f2 (half), <f4 (float), <f8 (double) or <i4 (int32), whose header
 * inputs/npy.c reads; or raw bf16, little-endian 16-bit words in a file
 * named *.bf16 (numpy has no bf16 dtype). Written the same ways
 * (--save-input). Every check happens when the file is opened.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../inputs/npy.h"
#include "typed.h"

/* file_error's line in err (inputs/infile.c), the file closed, INFILE_BAD. */
static int bad(tfile_t *f, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    file_error(err, errlen, f->path, fmt, ap);
    va_end(ap);
    tfile_close(f);
    return INFILE_BAD;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

#define DTYPES "'<f2' (half), '<f4' (float), '<f8' (double) or '<i4' (int32); bf16 as raw *.bf16"

static int open_npy(tfile_t *f, const unsigned char *b, uint64_t size, char *err, size_t errlen)
{
    uint32_t hlen = 0;
    char why[300];
    npy_header_t h;
    if (npy_layout(b, size, &f->data_at, &hlen, why, sizeof why)) return bad(f, err, errlen, "%s", why);
    char *hdr = malloc((size_t)hlen + 1);
    if (!hdr) return bad(f, err, errlen, "out of memory for its .npy header");
    int rc = file_read_at(f->fd, hdr, hlen, f->data_at);
    hdr[rc ? 0 : hlen] = '\0';
    if (rc) snprintf(why, sizeof why, "cannot read its .npy header");
    else rc = npy_parse_header(hdr, &h, why, sizeof why);
    free(hdr);
    if (rc) return bad(f, err, errlen, "%s", why);
    int t = 0;
    while (t < TYPE_COUNT && !(type_info[t].descr && strcmp(type_info[t].descr, h.descr) == 0)) t++;
    if (t == TYPE_COUNT) return bad(f, err, errlen, ".npy dtype '%s' is not one step 12 reads: " DTYPES, h.descr);
    if (h.dims != 1)
        return bad(f, err, errlen, ".npy shape %s is not one-dimensional: save a 1-D array "
                   "(numpy: a.ravel())", h.shape_text);
    if (h.shape[0] == 0) return bad(f, err, errlen, ".npy shape %s holds no elements", h.shape_text);
    f->type = (type_t)t;
    f->data_at += hlen;
    uint64_t have = size - f->data_at, n = h.shape[0], sz = type_info[t].size;
    if (n > have / sz)
        return bad(f, err, errlen, ".npy data is truncated: the header says %llu elements (%llu bytes "
                   "each) but %llu bytes follow it", (unsigned long long)n, (unsigned long long)sz,
                   (unsigned long long)have);
    if (have > n * sz)
        return bad(f, err, errlen, "%llu bytes follow the %llu elements its .npy header declares",
                   (unsigned long long)(have - n * sz), (unsigned long long)n);
    f->n = (size_t)n;
    return 0;
}

int tfile_open(tfile_t *f, const char *path, char *err, size_t errlen)
{
    unsigned char b[NPY_PREFIX] = { 0 };
    uint64_t size = 0;
    memset(f, 0, sizeof *f);
    f->path = path;
    if (file_open_head(path, &f->fd, &size, b, sizeof b, "reduce", err, errlen)) {
        tfile_close(f);
        return INFILE_BAD;
    }
    if (size >= 6 && memcmp(b, NPY_MAGIC, 6) == 0) return open_npy(f, b, size, err, errlen);
    if (!ends_with(path, ".bf16"))
        return bad(f, err, errlen, "neither a .npy file (it does not start with NumPy's magic string "
                   "\\x93NUMPY) nor raw bf16 named *.bf16");
    if (size % 2)
        return bad(f, err, errlen, "%llu bytes is not a whole number of bf16s (2 bytes each)",
                   (unsigned long long)size);
    f->type = TYPE_BF16;
    f->n = (size_t)(size / 2);
    return 0;
}

static int little_endian_host(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* Big-endian hosts: each element's bytes reversed (the files are little-endian). */
static void to_host_order(void *x, size_t n, size_t size)
{
    unsigned char *p = x;
    for (size_t i = 0; !little_endian_host() && i < n; i++, p += size)
        for (size_t k = 0; k < size / 2; k++) {
            unsigned char c = p[k];
            p[k] = p[size - 1 - k], p[size - 1 - k] = c;
        }
}

int tfile_read(const tfile_t *f, void *buf, char *err, size_t errlen)
{
    size_t size = type_info[f->type].size;
    errno = 0;
    if (file_read_at(f->fd, buf, f->n * size, f->data_at) != 0) {
        snprintf(err, errlen, "'%s': cannot read it: %s", f->path,
                 errno ? strerror(errno) : "it is shorter than when it was opened");
        return INFILE_BAD;
    }
    to_host_order(buf, f->n, size);
    return 0;
}

void tfile_close(tfile_t *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

int tfile_write(const char *path, type_t t, const void *x, size_t n, char *err, size_t errlen)
{
    size_t size = type_info[t].size;
    char head[128];
    size_t len = 0;
    if (type_info[t].descr) {      /* version 1.0: the data starts at a multiple of 64 bytes */
        int dl = snprintf(head + 10, sizeof head - 10, "{'descr': '%s', 'fortran_order': False, "
                          "'shape': (%zu,), }", type_info[t].descr, n);
        len = ((size_t)dl + 10 + 1 + 63) / 64 * 64;
        memcpy(head, NPY_MAGIC "\x01\x00", 8);
        head[8] = (char)((len - 10) & 255), head[9] = (char)((len - 10) >> 8);
        memset(head + 10 + dl, ' ', len - 10 - (size_t)dl - 1);
        head[len - 1] = '\n';
    }
    void *copy = NULL;
    if (!little_endian_host() && (copy = malloc(n * size))) {
        memcpy(copy, x, n * size);
        to_host_order(copy, n, size);     /* (its own inverse) */
        x = copy;
    }
    FILE *f = fopen(path, "wb");
    int ok = f && (!len || fwrite(head, 1, len, f) == len) && fwrite(x, size, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(copy);
    if (!ok) snprintf(err, errlen, "--save-input: cannot write '%s': %s", path, strerror(errno));
    return ok ? 0 : INFILE_BAD;
}
