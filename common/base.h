/* base.h: the words every part of the course uses, at the bottom of the
 * harness: the element type, the exit codes, the CUDA check, and two small
 * helpers. It includes nothing of the course; everything else includes it.
 * (common/parts.h has the map of the harness's files.)
 */
#ifndef BASE_H
#define BASE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a function that never returns (it ends the program). */
#if defined(__GNUC__) || defined(__clang__)
#define NORETURN __attribute__((noreturn))
#else
#define NORETURN
#endif

/* ---- 1. elem_t -----------------------------------------------------------
 * Every step is built twice. The normal build sums floats. The exact build
 * (-DREDUCE_EXACT) sums unsigned 32-bit integers, whose addition wraps modulo
 * 2^32 and is therefore associative: every summation order gives the same
 * bits, so the result must equal the reference exactly. That catches a kernel
 * that drops or repeats one element, which no float tolerance can at large n.
 */
#ifdef REDUCE_EXACT
typedef unsigned int elem_t;
#define ELEM_NAME "uint32"
#else
typedef float elem_t;
#define ELEM_NAME "float"
#endif

#ifdef __CUDACC__
#ifdef REDUCE_EXACT
typedef uint4 elem4_t;   /* four elements, one 16-byte load */
#else
typedef float4 elem4_t;
#endif
#endif

/* ---- 2. exit codes -------------------------------------------------------- */
enum {
    EXIT_OK = 0,        /* every result correct */
    EXIT_WRONG = 1,     /* a result outside its bound, or not deterministic as declared */
    EXIT_USAGE = 2,     /* bad arguments */
    EXIT_DEVICE = 3     /* no usable GPU, out of memory, a failed CUDA call or launch */
};

/* ---- 3. checks and helpers -------------------------------------------------
 * CUDA_CHECK(call): if the call returns an error, print the program, the
 * call, the place and CUDA's message, and exit with EXIT_DEVICE. */
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
void cuda_check(cudaError_t err, const char *what, const char *file, int line);

/* Stop with EXIT_DEVICE and one line that says why (e.g. a missing feature). */
NORETURN void device_fail(const char *why);

static inline size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }
static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* ---- 4. combine_t and block_rule_t -----------------------------------------
 * How a step combines partial sums decides how many roundings one element can
 * go through, and so the error bound for the float result. */
typedef enum {
    COMBINE_ATOMIC_EACH,       /* every element atomically added into one total */
    COMBINE_ATOMIC_PER_BLOCK,  /* one atomic add per block */
    COMBINE_TREE,              /* partials reduced again, no atomics */
    COMBINE_FIXED_ORDER,       /* step 08's order, fixed by n alone: chunks of
                                  step->chunk elements (see order.c); the result
                                  must equal the CPU replica of that order, bit
                                  for bit */
    COMBINE_EXACT,             /* the result must be the correctly rounded exact
                                  sum, bit for bit (step 10) */
    COMBINE_UNKNOWN            /* someone else's code: assume the worst order */
} combine_t;

/* Which --block values a step accepts. */
typedef enum {
    BLOCK_ANY,     /* 1 to 1024 */
    BLOCK_POW2,    /* a power of two from 32 to 1024 */
    BLOCK_NONE     /* the step chooses; --block is refused */
} block_rule_t;

#ifdef __cplusplus
}
#endif
#endif
