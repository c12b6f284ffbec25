/* npy.h: the header of NumPy's .npy format, read and checked (for infile.c).
 *
 * The format (numpy.lib.format): the six bytes "\x93NUMPY", a major and a
 * minor version byte, the header's length (2 bytes little-endian in version
 * 1, 4 in versions 2 and 3), then the header: a Python dictionary literal
 * such as
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }
 * padded with spaces and a newline. The array's bytes follow it.
 *
 * Contents
 *   1. npy_header_t: what the header says
 *   2. the layout: where the header is
 *   3. the dictionary, and whether it is an array we sum
 * Each function returns 0, or -1 with one line in why (no trailing newline).
 */
#ifndef NPY_H
#define NPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPY_MAGIC "\x93NUMPY"
#define NPY_PREFIX 12             /* bytes enough for the magic, version and length */
#define NPY_MAX_HEADER 65536      /* longer headers are refused (NumPy writes ~128) */
#define NPY_MAX_DIMS 32

/* ---- 1. npy_header_t ----------------------------------------------------- */
typedef struct {
    char descr[64];               /* the dtype, e.g. "<f4" */
    int fortran;                  /* fortran_order */
    int dims;
    uint64_t shape[NPY_MAX_DIMS];
    char shape_text[96];          /* as the header writes it, for messages */
} npy_header_t;

/* ---- 2. the layout -----------------------------------------------------------
 * From the file's first NPY_PREFIX bytes b (fewer if size, the file's length,
 * is smaller) of a file that starts with NPY_MAGIC: where the header starts
 * and how many bytes it has. Refuses unknown versions and headers that run
 * past the end of the file or past NPY_MAX_HEADER. */
int npy_layout(const unsigned char *b, uint64_t size, uint64_t *header_at, uint32_t *header_len,
               char *why, size_t len);

/* ---- 3. the dictionary ------------------------------------------------------- */
/* Reads descr, fortran_order and shape from the header text (NUL-terminated). */
int npy_parse_header(const char *hdr, npy_header_t *h, char *why, size_t len);

/* Is it an array we sum: dtype '<f4', at least one element, one dimension
 * (max_dims 1), or one or two in row-major order (max_dims 2: a matrix)? */
int npy_check_float32(const npy_header_t *h, int max_dims, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
