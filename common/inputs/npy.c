/* npy.c: the header of a .npy file, read and checked (see npy.h).
 *
 * Contents
 *   1. the layout: magic, version, header length
 *   2. a small reader of the header's dictionary
 *   3. is it an array we sum?
 *
 * The reader takes what NumPy writes and little more: a dictionary with the
 * keys 'descr', 'fortran_order' and 'shape', in any order, either quotes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

/* ---- 1. the layout --------------------------------------------------------------- */
int npy_layout(const unsigned char *b, uint64_t size, uint64_t *header_at, uint32_t *header_len,
               char *why, size_t len)
{
    int major = size > 6 ? b[6] : -1, minor = size > 7 ? b[7] : 0;
    uint64_t at = major == 1 ? 10 : 12;
    if (major != -1 && major != 1 && major != 2 && major != 3) {
        snprintf(why, len, ".npy format version %d.%d: versions 1.0, 2.0 and 3.0 are read",
                 major, minor);
        return -1;
    }
    if (size < at) {
        snprintf(why, len, "truncated .npy header: the file has only %llu bytes",
                 (unsigned long long)size);
        return -1;
    }
    uint32_t n = (uint32_t)b[8] | (uint32_t)b[9] << 8;
    if (major != 1) n |= (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
    if (at + n > size) {
        snprintf(why, len, "truncated .npy header: it says %u bytes, but the file ends after %llu",
                 (unsigned)n, (unsigned long long)(size - at));
        return -1;
    }
    if (n > NPY_MAX_HEADER) {
        snprintf(why, len, ".npy header of %u bytes is too long (at most %d are read)",
                 (unsigned)n, NPY_MAX_HEADER);
        return -1;
    }
    *header_at = at;
    *header_len = n;
    return 0;
}

/* ---- 2. the dictionary -------------------------------------------------------------- */
static const char *skip_spaces(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* The value of key (quoted either way) in the dictionary, or NULL. */
static const char *find_value(const char *hdr, const char *key)
{
    char quoted[2][32];
    snprintf(quoted[0], sizeof quoted[0], "'%s'", key);
    snprintf(quoted[1], sizeof quoted[1], "\"%s\"", key);
    for (int k = 0; k < 2; k++) {
        const char *p = strstr(hdr, quoted[k]);
        if (!p) continue;
        p = skip_spaces(p + strlen(quoted[k]));
        return *p == ':' ? skip_spaces(p + 1) : NULL;
    }
    return NULL;
}

/* A quoted string into out; 0, or -1 if it is not one. A structured dtype
 * is a list such as [('a', '<f4')]: out then gets it, to its closing
 * bracket, for the message. */
static int read_string(const char *p, char *out, size_t len)
{
    char q = *p;
    size_t k = 0;
    if (q != '\'' && q != '"') {
        int depth = 0;
        do {
            depth += (*p == '[' || *p == '(') - (*p == ']' || *p == ')');
            out[k++] = *p++;
        } while (*p && depth > 0 && k + 1 < len);
        out[k] = '\0';
        return -1;
    }
    for (p++; *p && *p != q && k + 1 < len; p++) out[k++] = *p;
    out[k] = '\0';
    return *p == q ? 0 : -1;
}

/* A tuple of whole numbers such as (1000,) or (3, 4) or (). */
static int read_shape(const char *p, npy_header_t *h)
{
    const char *start = p;
    if (*p++ != '(') return -1;
    for (h->dims = 0;;) {
        p = skip_spaces(p);
        if (*p == ')') break;
        if (*p < '0' || *p > '9' || h->dims == NPY_MAX_DIMS) return -1;
        uint64_t v = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (v > (UINT64_MAX - 9) / 10) return -1;
            v = v * 10 + (uint64_t)(*p - '0');
        }
        if (*p == 'L') p++;                      /* Python 2 wrote 1000L */
        h->shape[h->dims++] = v;
        p = skip_spaces(p);
        if (*p == ',') p++;
        else if (*p != ')') return -1;
    }
    snprintf(h->shape_text, sizeof h->shape_text, "%.*s", (int)(p + 1 - start), start);
    return 0;
}

int npy_parse_header(const char *hdr, npy_header_t *h, char *why, size_t len)
{
    const char *d = find_value(hdr, "descr"), *o = find_value(hdr, "fortran_order");
    const char *s = find_value(hdr, "shape");
    memset(h, 0, sizeof *h);
    if (*skip_spaces(hdr) != '{' || !d || !o || !s) {
        snprintf(why, len, "its .npy header is not the dictionary NumPy writes "
                 "(with 'descr', 'fortran_order' and 'shape')");
        return -1;
    }
    if (read_string(d, h->descr, sizeof h->descr) != 0) {
        snprintf(why, len, ".npy dtype %s is not float32: only '<f4' is read", h->descr);
        return -1;
    }
    h->fortran = strncmp(o, "True", 4) == 0;
    if (!h->fortran && strncmp(o, "False", 5) != 0) {
        snprintf(why, len, "its .npy header's fortran_order is neither True nor False");
        return -1;
    }
    if (read_shape(s, h) != 0) {
        snprintf(why, len, "its .npy header's shape is not a tuple of whole numbers");
        return -1;
    }
    return 0;
}

/* ---- 3. is it an array we sum? ------------------------------------------------------ */
/* NumPy's name for a simple dtype such as '<f8' (float64), or "". */
static void dtype_name(const char *descr, char *out, size_t len)
{
    static const struct { char kind; const char *name; } kinds[] = {
        { 'f', "float" }, { 'i', "int" }, { 'u', "uint" }, { 'c', "complex" }, { 'b', "bool" },
    };
    long size = descr[0] && descr[1] ? strtol(descr + 2, NULL, 10) : 0;
    out[0] = '\0';
    if (size <= 0 || size > 32) return;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (descr[1] != kinds[k].kind) continue;
        if (kinds[k].kind == 'b') snprintf(out, len, " (%s)", kinds[k].name);
        else snprintf(out, len, " (%s%ld)", kinds[k].name, 8 * size);
    }
}

int npy_check_float32(const npy_header_t *h, int max_dims, char *why, size_t len)
{
    char name[32];
    uint64_t n = h->dims >= 1 ? h->shape[0] : 0;      /* saturates: no wrap to a small n */
    for (int d = 1; d < h->dims; d++)
        n = h->shape[d] && n > UINT64_MAX / 8 / h->shape[d] ? UINT64_MAX / 8 : n * h->shape[d];
    if (strcmp(h->descr, ">f4") == 0) {
        snprintf(why, len, ".npy dtype '>f4' is big-endian float32; only little-endian '<f4' "
                 "is read (numpy: a.astype('<f4'))");
    } else if (strcmp(h->descr, "<f4") != 0) {
        dtype_name(h->descr, name, sizeof name);
        snprintf(why, len, ".npy dtype '%s'%s is not float32: only '<f4' is read "
                 "(numpy: a.astype('<f4'))", h->descr, name);
    } else if (max_dims == 1 && h->dims != 1) {
        snprintf(why, len, ".npy shape %s%s is not one-dimensional: save a 1-D array "
                 "(numpy: a.ravel())", h->shape_text, h->fortran ? " (fortran_order True)" : "");
    } else if (h->dims < 1 || h->dims > max_dims || (h->dims > 1 && h->fortran)) {
        snprintf(why, len, ".npy shape %s%s is not a 1-D array or a 2-D matrix in row-major "
                 "order (numpy: np.ascontiguousarray(a.reshape(rows, -1)))", h->shape_text,
                 h->fortran ? " (fortran_order True)" : "");
    } else if (n == 0) {
        snprintf(why, len, ".npy shape %s holds no elements: nothing to sum", h->shape_text);
    } else {
        return 0;
    }
    return -1;
}
