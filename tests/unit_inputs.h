/* unit_inputs.h: what the three files of the inputs tests share.
 *
 *   unit_inputs.c     main, the distributions, the cases for the oracle
 *   unit_claims.c     what each distribution promises, checked
 *   unit_exact_sum.c  the exact sum: special cases, ties, merging
 *   unit_infile.c     the user's file: every bad file, raw against .npy
 */
#ifndef UNIT_INPUTS_H
#define UNIT_INPUTS_H

#include <stdint.h>
#include <string.h>

#include "../common/inputs/exact.h"
#include "../common/inputs/inputs.h"

/* Prints "PASS inputs/NAME" or "FAIL inputs/NAME", NAME from fmt. */
void check(int ok, const char *fmt, ...);

void test_claims(void);
void test_exact_sum(void);
void test_infile(const char *tmpdir);

/* Bits and floats, without breaking aliasing rules. */
static inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* The exact sum of x[0..n), rounded. */
float exact_of(const float *x, size_t n);

/* Small sums whose answers were worked out by hand (unit_exact_sum.c); the
 * oracle checks them too. */
typedef struct {
    const char *name;
    int n;
    float x[4];
    uint32_t bits;     /* the correctly rounded sum (any NaN for 0x7fc00000) */
} known_case_t;
extern const known_case_t known_cases[];
extern const int known_count;

#endif
