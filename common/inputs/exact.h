/* exact.h: the exact sum of any floats, and the float it rounds to.
 *
 * An exact_sum_t holds a sum of floats with no rounding at all: every float
 * is an integer multiple of 2^-149, so the sum is one too, and a fixed-point
 * integer of about 320 bits holds it for up to 2^40 terms (exact.c says why).
 * Rounding happens once, when the sum is read. Because integer addition is
 * associative, the accumulators of several threads, or of several GPUs'
 * shares of one array, merge into the same bits in any order.
 *
 *     exact_sum_t acc;
 *     exact_init(&acc);
 *     exact_add_floats(&acc, x, n);          // as many calls as you like
 *     float ref = exact_round(&acc);         // the correctly rounded sum
 *
 * Contents
 *   1. exact_sum_t
 *   2. adding: one float, an array, an array on every OpenMP thread; merging
 *   3. reading: the rounded float, a double, the sum of magnitudes, the
 *      error of a float result
 */
#ifndef EXACT_H
#define EXACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. exact_sum_t ---------------------------------------------------------
 * The sum of the finite terms, and apart from it what IEEE needs for the
 * special cases. Treat the fields as private: use the functions below. */
#define EXACT_LIMBS 10

typedef struct {
    int64_t sum[EXACT_LIMBS];  /* sum of the finite terms in units of 2^-149: 32-bit
                                  digits, lowest first; the last one signed */
    int64_t abs[EXACT_LIMBS];  /* the same for their magnitudes */
    uint64_t terms;            /* every term added, special or not */
    uint64_t not_neg_zero;     /* 1 once a term other than -0 was added */
    uint64_t nans, pos_infs, neg_infs;
} exact_sum_t;

/* ---- 2. adding ------------------------------------------------------------- */
/* An empty sum (it reads as +0). */
void exact_init(exact_sum_t *acc);

/* Adds one float; any float at all, NaN and infinities included. */
void exact_add_float(exact_sum_t *acc, float x);

/* Adds x[0..n), in one thread. This is the fast loop: a few nanoseconds per
 * element. The result is the same bits as n calls of exact_add_float. */
void exact_add_floats(exact_sum_t *acc, const float *x, size_t n);

/* The same on every OpenMP thread: each sums its share into its own
 * accumulator, and they are merged at the end. */
void exact_add_floats_parallel(exact_sum_t *acc, const float *x, size_t n);

/* into becomes the sum of both: as if every term of `from` had been added to
 * `into`. For threads' partial sums, or the shares of several GPUs. */
void exact_merge(exact_sum_t *into, const exact_sum_t *from);

/* ---- 3. reading ------------------------------------------------------------
 * The sum rounded to the nearest float, ties to even, with IEEE's answers:
 *   any NaN term                      -> NaN
 *   +inf and -inf both among the terms -> NaN
 *   one kind of infinity              -> that infinity
 *   an exact sum beyond float's range  -> +inf or -inf (it rounds there)
 *   an exact sum of 0                  -> +0, or -0 if every term was -0
 * An empty sum is +0. This is the reference a float sum is checked against. */
float exact_round(const exact_sum_t *acc);

/* The sum rounded to the nearest double (ties to even): exact whenever the
 * sum fits in 53 bits, and within 2^-53 relative otherwise. Every finite sum
 * of up to 2^40 floats is far inside double's range. Special cases as above,
 * except that a finite exact sum stays finite (no overflow in double). */
double exact_to_double(const exact_sum_t *acc);

/* The sum of the magnitudes of the finite terms, rounded UP to a double:
 * never below the true value, and above it by less than 2^-52 relative.
 * That makes it safe in an error bound. +inf if any term was inf or NaN. */
double exact_abs_sum(const exact_sum_t *acc);

/* result - (exact sum), rounded to the nearest double: how far a computed
 * float sum is from the truth (compare its magnitude with the error bound).
 * When every term was finite this is exact up to double's rounding, even if
 * the exact sum overflows float; a result of inf or NaN gives inf or NaN.
 * When some term was inf or NaN, it is 0 if result has exact_round's
 * bits (any NaN matching NaN) and NaN if not. */
double exact_error(const exact_sum_t *acc, float result);

/* 1 if some term was an infinity or a NaN (the sum is then one of IEEE's
 * special answers above), 0 if every term was finite. */
int exact_special(const exact_sum_t *acc);

#ifdef __cplusplus
}
#endif
#endif
