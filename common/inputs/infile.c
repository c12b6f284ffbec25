/* infile.c: the user's own array, from a raw float32 file or a .npy file
 * (see inputs.h, section 4, for the API and the two formats).
 *
 * Contents
 *   1. failing: one line naming the file
 *   2. opening: raw or .npy (its header is npy.c's), every check
 *   3. reading a slice
 *
 * Every check happens when the file is opened, so a bad file stops the
 * program before any GPU work, with one line that says what is wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs.h"
#include "npy.h"

/* ---- 1. failing ---------------------------------------------------------------- */
void file_error(char *err, size_t errlen, const char *path, const char *fmt, va_list ap)
{
    char what[400];
    vsnprintf(what, sizeof what, fmt, ap);
    snprintf(err, errlen, "'%s': %s", path, what);
}

static int say(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    file_error(err, errlen, path, fmt, ap);
    va_end(ap);
    return -1;
}

int file_open_head(const char *path, int *fd, uint64_t *size, unsigned char *head, size_t len,
                   const char *what, char *err, size_t errlen)
{
    struct stat st;
    errno = 0;
    *fd = open(path, O_RDONLY);
    if (*fd < 0) return say(err, errlen, path, "cannot open it: %s", strerror(errno));
    if (fstat(*fd, &st) != 0) return say(err, errlen, path, "cannot read it: %s", strerror(errno));
    if (!S_ISREG(st.st_mode)) return say(err, errlen, path, "is not a regular file");
    *size = (uint64_t)st.st_size;
    if (*size == 0) return say(err, errlen, path, "the file is empty: nothing to %s", what);
    if (file_read_at(*fd, head, *size < len ? (size_t)*size : len, 0) != 0)
        return say(err, errlen, path, "cannot read it: %s", errno ? strerror(errno) : "it ended early");
    return 0;
}

/* The line in err, the file closed, INFILE_BAD. */
static int bad(infile_t *f, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    file_error(err, errlen, f->path, fmt, ap);
    va_end(ap);
    infile_close(f);
    return INFILE_BAD;
}

/* ---- 2. opening ----------------------------------------------------------------- */
/* Reads exactly len bytes at offset off; -1 on an error or an early end. */
int file_read_at(int fd, void *buf, size_t len, uint64_t off)
{
    char *p = buf;
    while (len > 0) {
        size_t step = len < ((size_t)1 << 30) ? len : (size_t)1 << 30;
        ssize_t r = pread(fd, p, step, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        len -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

static int little_endian_host(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* A .npy file: its header, then the data's length against the shape. */
static int open_npy(infile_t *f, const unsigned char *b, uint64_t size, int max_dims, char *err,
                    size_t errlen)
{
    uint32_t hlen = 0;
    char why[300];
    npy_header_t h;
    if (npy_layout(b, size, &f->data_at, &hlen, why, sizeof why))
        return bad(f, err, errlen, "%s", why);
    char *hdr = malloc((size_t)hlen + 1);
    if (!hdr) return bad(f, err, errlen, "out of memory for its .npy header");
    int rc = file_read_at(f->fd, hdr, hlen, f->data_at);
    hdr[rc ? 0 : hlen] = '\0';
    if (rc) snprintf(why, sizeof why, "cannot read its .npy header");
    else rc = npy_parse_header(hdr, &h, why, sizeof why) ||
              npy_check_float32(&h, max_dims, why, sizeof why);
    free(hdr);
    if (rc) return bad(f, err, errlen, "%s", why);
    f->data_at += hlen;
    uint64_t n = h.shape[0], have = size - f->data_at;
    if (h.dims == 2 && h.shape[1] && n > have / h.shape[1])     /* before the product wraps */
        return bad(f, err, errlen, ".npy data is truncated: the header says shape %s but %llu "
                   "bytes follow it", h.shape_text, (unsigned long long)have);
    if (h.dims == 2) n *= h.shape[1];
    if (n > have / 4)
        return bad(f, err, errlen, ".npy data is truncated: the header says %llu floats "
                   "(4 bytes each) but %llu bytes follow it", (unsigned long long)n,
                   (unsigned long long)have);
    if (have > 4 * n)
        return bad(f, err, errlen, "%llu bytes follow the %llu floats its .npy header declares",
                   (unsigned long long)(have - 4 * n), (unsigned long long)n);
    f->n = (size_t)n;
    f->rows = h.dims == 2 ? (size_t)h.shape[0] : 1;
    f->bytes = 4 * n;
    f->npy = 1;
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

static int open_file(infile_t *f, const char *path, int max_dims, char *err, size_t errlen)
{
    unsigned char b[NPY_PREFIX] = { 0 };
    uint64_t size = 0;
    memset(f, 0, sizeof *f);
    f->path = path;
    if (file_open_head(path, &f->fd, &size, b, sizeof b, "sum", err, errlen)) {
        infile_close(f);
        return INFILE_BAD;
    }
    if (size >= 6 && memcmp(b, NPY_MAGIC, 6) == 0) return open_npy(f, b, size, max_dims, err, errlen);
    if (ends_with(path, ".npy"))
        return bad(f, err, errlen, "the name ends in .npy but the file does not start with "
                   "NumPy's magic string \\x93NUMPY");
    if (size % 4)
        return bad(f, err, errlen, "%llu bytes is not a whole number of floats: a raw file holds "
                   "4-byte little-endian float32s", (unsigned long long)size);
    f->n = (size_t)(size / 4);
    f->rows = 1;
    f->bytes = size;
    return 0;
}

int infile_open(infile_t *f, const char *path, char *err, size_t errlen)
{
    return open_file(f, path, 1, err, errlen);
}

int infile_open_matrix(infile_t *f, const char *path, char *err, size_t errlen)
{
    return open_file(f, path, 2, err, errlen);
}

/* ---- 3. reading a slice ------------------------------------------------------------ */
int infile_read(const infile_t *f, size_t first, size_t count, void *to, char *err,
                size_t errlen)
{
    uint32_t *buf = (uint32_t *)to;
    if (first > f->n || count > f->n - first) {
        snprintf(err, errlen, "'%s': elements %zu to %zu asked for, but it holds %zu", f->path,
                 first, first + count, f->n);
        return INFILE_BAD;
    }
    errno = 0;
    if (file_read_at(f->fd, buf, count * sizeof(float), f->data_at + (uint64_t)first * 4) != 0) {
        snprintf(err, errlen, "'%s': cannot read it: %s", f->path,
                 errno ? strerror(errno) : "it is shorter than when it was opened");
        return INFILE_BAD;
    }
    if (!little_endian_host()) {
        for (size_t j = 0; j < count; j++) {      /* the file is little-endian */
            uint32_t u = buf[j];
            buf[j] = (u >> 24) | (u >> 8 & 0xff00u) | (u << 8 & 0xff0000u) | (u << 24);
        }
    }
    return 0;
}

void infile_close(infile_t *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}
