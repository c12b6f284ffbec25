/* reference.c: step 12's types on the CPU, and each pair's exact answer
 * (typed.h, sections 1 and 4).
 *
 * Contents
 *   1. names and sizes
 *   2. half and bf16: rounding a float to them, and back
 *   3. the reference: sums exact, max, min and argmax by step 12's order
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "typed.h"

/* ---- 1. names and sizes -------------------------------------------------------------- */
const type_info_t type_info[TYPE_COUNT] = {
    { "float", 4, "<f4" }, { "double", 8, "<f8" }, { "half", 2, "<f2" }, { "bf16", 2, NULL },
    { "int32", 4, "<i4" },
};
const char *const op_name[OP_COUNT] = { "sum", "sumsq", "max", "min", "argmax" };

/* ---- 2. half and bf16 ------------------------------------------------------------------ */
static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

uint16_t half_from_float(float x)
{
    uint32_t u = bits_of(x), a = u & 0x7fffffffu;
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000u);
    if (a > 0x7f800000u) return sign | 0x7e00u;             /* NaN */
    if (a == 0x7f800000u) return sign | 0x7c00u;            /* infinity */
    if (a >= 0x477ff000u) return sign | 0x7bffu;            /* rounds past 65504: saturate */
    if (a < 0x38800000u)                                    /* below 2^-14: a subnormal, */
        return sign | (uint16_t)lrintf(fabsf(x) * 0x1p24f); /* units of 2^-24, ties to even */
    uint32_t h = ((a >> 23) - 112) << 10 | (a & 0x7fffffu) >> 13, rest = a & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;   /* a carry moves the exponent */
    return sign | (uint16_t)h;
}

uint16_t bf16_from_float(float x)
{
    uint32_t u = bits_of(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(u >> 16 | 0x40u);   /* NaN stays NaN */
    uint32_t r = (u + 0x7fffu + (u >> 16 & 1)) >> 16;
    if ((r & 0x7f80u) == 0x7f80u && (u & 0x7f800000u) != 0x7f800000u) r -= 1;  /* saturate */
    return (uint16_t)r;
}

float half_to_float(uint16_t h)
{
    int e = h >> 10 & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                        : ldexpf((float)(m | 0x400), e - 25);
    return h & 0x8000u ? -v : v;
}

float bf16_to_float(uint16_t b)
{
    return float_of((uint32_t)b << 16);
}

double typed_value(type_t t, const void *x, size_t i)
{
    switch (t) {
    case TYPE_DOUBLE: return ((const double *)x)[i];
    case TYPE_HALF: return half_to_float(((const uint16_t *)x)[i]);
    case TYPE_BF16: return bf16_to_float(((const uint16_t *)x)[i]);
    case TYPE_INT32: return ((const int32_t *)x)[i];
    case TYPE_FLOAT:
    default: return ((const float *)x)[i];
    }
}

/* ---- 3. the reference -------------------------------------------------------------------
 * Max, min and argmax in step 12's order: a float's bits as an integer with the
 * magnitude bits of negatives flipped (-0 below +0), any NaN above (max,
 * argmax) or below (min) every number and canonical, ties to the first index. */
static int64_t order_key(type_t t, const void *x, size_t i)
{
    if (t == TYPE_INT32) return ((const int32_t *)x)[i];
    int32_t b = (int32_t)bits_of((float)typed_value(t, x, i));
    return b < 0 ? b ^ INT32_MAX : b;
}

static void extreme(type_t t, op_t op, const void *x, size_t n, types_slot_t *want)
{
    size_t best = 0, nan_at = n;
    for (size_t i = 0; i < n && nan_at == n; i++) {
        if (t != TYPE_INT32 && isnan(typed_value(t, x, i))) nan_at = i;
        else if (op == OP_MIN ? order_key(t, x, i) < order_key(t, x, best)
                              : order_key(t, x, i) > order_key(t, x, best)) best = i;
    }
    if (nan_at < n) best = nan_at;
    want->index = (int64_t)best;
    if (t == TYPE_INT32) want->value.i32 = ((const int32_t *)x)[best];
    else want->value.f = nan_at < n ? float_of(0x7fc00000u) : (float)typed_value(t, x, best);
}

void typed_reference(type_t t, op_t op, const void *x, size_t n, typed_ref_t *r)
{
    memset(r, 0, sizeof *r);
    exact_init(&r->f);
    dexact_init(&r->d);
    r->exact = op != OP_SUMSQ && (op != OP_SUM || t == TYPE_INT32);
    r->in_double = op == OP_SUMSQ || t == TYPE_DOUBLE;
    if (op == OP_MAX || op == OP_MIN || op == OP_ARGMAX) {
        extreme(t, op, x, n, &r->want);
        return;
    }
    if (t == TYPE_INT32) {
        int64_t sum = 0;
        #pragma omp parallel for reduction(+ : sum)
        for (long long i = 0; i < (long long)n; i++) sum += ((const int32_t *)x)[i];
        r->want.value.i64 = sum;
        return;
    }
    if (t == TYPE_FLOAT && op == OP_SUM) {
        exact_add_floats_parallel(&r->f, (const float *)x, n);
        return;
    }
    #pragma omp parallel
    {
        exact_sum_t f;
        dexact_t d;
        exact_init(&f);
        dexact_init(&d);
        #pragma omp for schedule(static)
        for (long long i = 0; i < (long long)n; i++) {
            double v = typed_value(t, x, (size_t)i);
            if (op == OP_SUMSQ) dexact_add(&d, v * v);          /* a float's square: exact */
            else if (r->in_double) dexact_add(&d, v);
            else exact_add_float(&f, (float)v);
        }
        #pragma omp critical(typed_reference_merge)
        {
            exact_merge(&r->f, &f);
            dexact_merge(&r->d, &d);
        }
    }
}
