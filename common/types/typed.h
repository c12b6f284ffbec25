/* typed.h: the inside of step 12's harness (types.c), in plain C, no GPU:
 * what the unit tests reach. Steps include types.h only.
 *
 *   dexact.c     the exact sum of doubles (and of floats' squares)
 *   tfile.c      typed files: .npy of <f2, <f4, <f8, <i4, and raw .bf16
 *   reference.c  the types, half and bf16 on the CPU, each pair's exact answer
 *   types.c      run_types: options, inputs, runs, checks, the report
 *
 * Contents
 *   1. types: names, sizes, half and bf16
 *   2. dexact_t: an exact sum of doubles
 *   3. typed files
 *   4. the reference of a pair
 */
#ifndef TYPED_H
#define TYPED_H

#include <stddef.h>
#include <stdint.h>

#include "../inputs/inputs.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. types ------------------------------------------------------------------- */
typedef struct {
    const char *name;    /* what --type takes */
    size_t size;         /* bytes an element */
    const char *descr;   /* its .npy dtype, or NULL (bf16: a raw .bf16 file) */
} type_info_t;
extern const type_info_t type_info[TYPE_COUNT];
extern const char *const op_name[OP_COUNT];

/* float to half or bf16, rounded to nearest even; half saturates at +-65504
 * and bf16 at its largest finite value (a finite float stays finite); NaN
 * stays NaN, infinities stay infinite. And back, exactly. */
uint16_t half_from_float(float x);
uint16_t bf16_from_float(float x);
float half_to_float(uint16_t h);
float bf16_to_float(uint16_t b);
/* Element i of x (of type t) as a double: exact for every type. */
double typed_value(type_t t, const void *x, size_t i);

/* ---- 2. dexact_t ----------------------------------------------------------------------
 * Every double is an integer multiple of 2^-1074 below 2^1024, so a fixed-point
 * integer of 2098 bits holds each, and 68 digits of 32 bits hold the sum of
 * up to 2^40 of them (dexact.c says how). Rounding happens once, when read. */
#define DEXACT_DIGITS 68

typedef struct {
    int64_t sum[DEXACT_DIGITS], abs[DEXACT_DIGITS];   /* units of 2^-1074, lowest digit first */
    uint64_t pending;             /* additions since the digits were last carried */
    uint64_t not_neg_zero, nans, pos_infs, neg_infs;
} dexact_t;

void dexact_init(dexact_t *a);
void dexact_add(dexact_t *a, double x);          /* any double, NaN and infinities included */
void dexact_merge(dexact_t *into, const dexact_t *from);
double dexact_round(const dexact_t *a);          /* to nearest even; IEEE's special answers */
double dexact_abs_up(const dexact_t *a);         /* sum |x| rounded up; +inf if any inf or NaN */
double dexact_error(const dexact_t *a, double result);  /* result - sum, rounded; 0 or NaN if special */
int dexact_special(const dexact_t *a);

/* ---- 3. typed files ---------------------------------------------------------------------
 * A .npy (one dimension, dtype <f2, <f4, <f8 or <i4) or a raw .bf16 file
 * (little-endian 16-bit words, named *.bf16). Every problem: one line in err
 * naming the file, status INFILE_BAD (2). */
typedef struct {
    int fd;
    const char *path;
    type_t type;
    size_t n;
    uint64_t data_at;
} tfile_t;

int tfile_open(tfile_t *f, const char *path, char *err, size_t errlen);
int tfile_read(const tfile_t *f, void *buf, char *err, size_t errlen);   /* all n elements */
void tfile_close(tfile_t *f);
/* x[0..n) of type t to path: a .npy (version 1.0), or for bf16 raw words. */
int tfile_write(const char *path, type_t t, const void *x, size_t n, char *err, size_t errlen);

/* ---- 4. the reference of a pair -----------------------------------------------------------
 * Exact operators (integer sums, max, min, argmax): the answer itself, which a
 * result must equal bit for bit. Float sums: the exact sum, which the result
 * must be within the bound of (float accumulators in `f`, double and sumsq in `d`). */
typedef struct {
    int exact;               /* 1: compare for equality */
    types_slot_t want;       /* the exact operators' answer, as the kernel writes it */
    int in_double;           /* a float sum kept in d (double, sumsq), not f */
    exact_sum_t f;
    dexact_t d;
} typed_ref_t;

void typed_reference(type_t t, op_t op, const void *x, size_t n, typed_ref_t *r);

#ifdef __cplusplus
}
#endif
#endif
