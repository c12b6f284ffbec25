/* inputs.h: the arrays the course sums, drawn from a seed, and the user's own.
 *
 * Contents
 *   1. distributions: their names and one-line descriptions (for --help)
 *   2. element i of an array: as a float, or as the exact build's uint32
 *   3. drawing a slice on every OpenMP thread, with its exact sum
 *   4. the user's file (--input-file): raw float32 or a 1-D float32 .npy
 *
 * Every distribution is counter-based: element i is a function of the seed,
 * i and n alone, so any slice can be drawn on its own, by any thread, for any
 * number of GPUs, and every machine sees the same bits. The harness checks
 * every step against the exact, correctly rounded sum (exact.h).
 */
#ifndef INPUTS_H
#define INPUTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "exact.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. distributions --------------------------------------------------------
 * inputs.c says, above each one, how it is made and why its claims hold. */
typedef enum {
    DIST_UNIFORM,   /* k / 2^23, k random in [-2^23, 2^23): the default, the kindest */
    DIST_WIDE,      /* random signs and exponents from the subnormals to 2^87 */
    DIST_CANCEL,    /* pairs B, -B + ulp(B) half the array apart: condition number 2^24 to 2^25 */
    DIST_TIES,      /* the exact sum lies halfway between two floats */
    DIST_HUGE,      /* magnitudes in [2^126, 2^128): partial sums overflow */
    DIST_COUNT
} dist_t;

typedef struct {
    const char *name;   /* what --input takes: "uniform", "wide", ... */
    const char *line;   /* one line for --help and the README */
} dist_info_t;

extern const dist_info_t dist_info[DIST_COUNT];

/* The distribution called name, or -1 with a one-line reason in err (no
 * trailing newline) that lists the names. */
int dist_parse(const char *name, char *err, size_t errlen);

/* For huge: 1 if the exact sum of this input is built to overflow float
 * (seeds divisible by 4, n >= 2), 0 otherwise and for every other input. */
int dist_overflows(dist_t d, uint64_t seed, size_t n);

/* ---- 2. one element ------------------------------------------------------------
 * Element i (i < n) of the array of n elements drawn from seed. uniform and
 * wide do not depend on n; cancel, ties and huge do (they place partners
 * n/2 apart). uniform gives the same values as the harness always has. */
float dist_value(dist_t d, uint64_t seed, size_t i, size_t n);

/* The exact build's element (an unsigned 32-bit integer, summed modulo
 * 2^32): for uniform, the same random 32 bits as always; for the others,
 * the bit pattern of dist_value. */
uint32_t dist_bits(dist_t d, uint64_t seed, size_t i, size_t n);

/* ---- 3. drawing a slice ---------------------------------------------------------
 * Writes elements [first, first + count) of the n-element array into buf
 * (buf[0] is element first) on every OpenMP thread and, if acc is not NULL,
 * adds them to *acc while they are still in cache. Slices may come in any
 * order and any sizes: the accumulator ends the same. */
void dist_draw(dist_t d, uint64_t seed, size_t first, size_t count, size_t n, float *buf,
               exact_sum_t *acc);

/* The same for the exact build: buf gets dist_bits, and *sum (if not NULL)
 * gains their sum modulo 2^32. */
void dist_draw_bits(dist_t d, uint64_t seed, size_t first, size_t count, size_t n,
                    uint32_t *buf, uint32_t *sum);

/* ---- 4. the user's file -----------------------------------------------------------
 * A file of floats to sum, checked when it is opened. Two formats:
 *   - .npy: a file that starts with NumPy's magic string "\x93NUMPY" (format
 *     versions 1.0, 2.0 and 3.0). Its header must say dtype '<f4' (little-
 *     endian float32) and a one-dimensional shape (n,), and exactly 4n bytes
 *     of data must follow it.
 *   - raw: anything else: little-endian float32, 4 bytes an element, no
 *     header. (A raw file that happens to start with those six bytes is read
 *     as .npy; one whose name ends in .npy but lacks them is refused.)
 * Every problem is one line in err, naming the file, without a trailing
 * newline, and the status INFILE_BAD. Nothing is ever written. */
#define INFILE_BAD 2     /* the status to exit with: the harness's bad usage */

typedef struct {
    int fd;
    const char *path;    /* as given to infile_open: keep it alive until infile_close */
    size_t n;            /* elements in the file, at least 1 */
    uint64_t bytes;      /* of element data: 4 n (the harness compares it with GPU memory) */
    uint64_t data_at;    /* where element 0 starts: 0 for raw, after the header for .npy */
    int npy;             /* 1 for .npy, 0 for raw */
    size_t rows;         /* a 2-D .npy (infile_open_matrix): its rows; else 1 */
} infile_t;

/* Opens and checks the file. Returns 0 and fills *f, or INFILE_BAD with the
 * reason in err (and *f closed). */
int infile_open(infile_t *f, const char *path, char *err, size_t errlen);

/* Reads elements [first, first + count) into buf, 4 bytes each: floats in
 * the host's byte order (the exact build sums those bits as integers). Safe
 * to call from several threads at once. Returns 0, or INFILE_BAD if the file
 * cannot be read or has shrunk since it was opened. */
int infile_read(const infile_t *f, size_t first, size_t count, void *buf, char *err,
                size_t errlen);

/* The same, for step 11's matrices: a .npy may also be two-dimensional,
 * (rows, length) in row-major order; f->n is then rows * length. */
int infile_open_matrix(infile_t *f, const char *path, char *err, size_t errlen);

void infile_close(infile_t *f);
/* Reads exactly len bytes of file descriptor fd at offset off; 0, or -1 on an
 * error or an early end (for step 12's typed files too). */
int file_read_at(int fd, void *buf, size_t len, uint64_t off);
/* Writes "'PATH': <what>" into err, what from fmt and ap (the one line that
 * names a bad file, for step 12's typed files too). */
void file_error(char *err, size_t errlen, const char *path, const char *fmt, va_list ap);
/* Opens path (the descriptor in *fd, to close, even on failure), checks that it
 * is a regular, non-empty file, and reads its first bytes into head: len, or
 * all of a shorter file. 0, or -1 with the line in err ("nothing to WHAT" for an
 * empty one). */
int file_open_head(const char *path, int *fd, uint64_t *size, unsigned char *head, size_t len,
                   const char *what, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
