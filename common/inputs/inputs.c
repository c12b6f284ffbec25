/* inputs.c: the distributions the course sums (see inputs.h for the API).
 *
 * Contents
 *   1. the hash: element i of seed's stream
 *   2. the distributions, one function each, with what it shows
 *   3. the table, names, one element
 *   4. drawing slices on every thread
 *
 * Each distribution gives element i as a float's bit pattern built from
 * hashes of (seed, i) or (seed, a partner's index): no state, so a slice
 * drawn alone equals the same elements of the whole array.
 */
#include <stdio.h>
#include <string.h>

#include "inputs.h"

/* ---- 1. the hash -----------------------------------------------------------------
 * The finaliser of SplitMix64 applied to a Weyl sequence, exactly as the
 * harness has always drawn its input: uniform keeps its values bit for bit. */
#define GOLDEN 0x9e3779b97f4a7c15ULL

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t seed_key(uint64_t seed) { return mix64(seed + GOLDEN); }
static inline uint64_t element_hash(uint64_t key, uint64_t i) { return mix64(key + i * GOLDEN); }

/* r random bits scaled to [0, range): (bits * range) >> r, no modulo bias to speak of. */
static inline uint32_t below(uint64_t bits, int r, uint32_t range)
{
    return (uint32_t)(((bits & ((1ULL << r) - 1)) * range) >> r);
}

/* A float's bits from its sign, exponent field and 24-bit significand
 * (the leading 1 of a normal float is dropped by the mask). */
static inline uint32_t make_float(uint32_t sign, uint32_t e, uint32_t m)
{
    return sign << 31 | e << 23 | (m & 0x7fffffu);
}

/* Everything an element needs that depends on the seed and n only,
 * worked out once per slice rather than once per element. */
typedef struct {
    dist_t d;
    size_t n;
    uint64_t key;           /* the seed's stream for this distribution */
    uint32_t b, half_ulp, e_b;   /* ties: B, +-ulp(B)/2, B's exponent field */
    uint32_t sign, tail_sign;    /* huge: the signs of the first half and of the tail */
    size_t tail;            /* huge: terms after the pairs (1 to 3) */
    int overflow;           /* huge: the exact sum is built to overflow */
} plan_t;

/* ---- 2. the distributions -----------------------------------------------------------
 * uniform: k / 2^23 with k in [-2^23, 2^23), the top 24 bits of the hash.
 * What it is for: the course's default, the kindest input a float sum can
 * get: every exponent within 24 of the others, no overflow, a mean of 0, so
 * each step's error stays far inside its bound. */
static inline uint32_t uniform_bits(uint64_t h)
{
    float f = (float)((int32_t)(h >> 40) - (1 << 23)) * 0x1p-23f;   /* exact: k fits 24 bits */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* wide: random sign, random fraction, exponent field uniform in [0, 213]:
 * subnormals (field 0, about 1 element in 214) up to magnitudes below 2^87.
 * What it shows: terms 2^236 apart, so the small ones vanish into a float
 * running sum while an exact sum keeps them; and 2^40 terms below 2^87 sum to
 * less than 2^127, so nothing can overflow even at the largest n. */
static inline uint32_t wide_bits(uint64_t h)
{
    return make_float((uint32_t)(h >> 63), below(h >> 23, 32, 214), (uint32_t)h);
}

/* cancel: for q < n/2, element q is B_q = +-M * 2^e with M in [2^23 + 1,
 * 2^24 - 2] and |B_q| in [1, 2^24), and element q + n/2 is -B_q + 2^e (e is
 * ulp(B_q)), i.e. significand M - 1 or M + 1 with the opposite sign; an odd
 * n's last element is +0. Every pair sums to +2^e exactly and has
 * magnitudes 2M -+ 1 times that, so the condition number
 *     sum |x| / |sum x|  =  (weighted mean of 2M -+ 1)  lies in [2^24 + 1, 2^25 - 3]
 * for every n >= 2 and every seed. What it shows: partners are n/2 apart, so
 * a blockwise tree cannot cancel them locally; a float sum keeps roughly
 * 2^-24 * sum |x| of error, about as large as the sum itself. */
static inline uint32_t cancel_bits(const plan_t *P, size_t i)
{
    size_t half = P->n / 2;
    if (i >= 2 * half) return 0;                       /* +0 */
    size_t q = i < half ? i : i - half;
    uint64_t g = element_hash(P->key, q);
    uint32_t sign = (uint32_t)(g >> 63);
    uint32_t e = 127 + below(g >> 32, 24, 24);         /* |B| in [2^0, 2^24) */
    uint32_t m = (1u << 23) + 1 + below(g, 32, (1u << 23) - 2);
    if (i < half) return make_float(sign, e, m);
    return make_float(!sign, e, sign ? m + 1 : m - 1);
}

/* ties: element 0 is B = +-M * 2^e with M in [2^23 + 1, 2^24 - 1] and |B| in
 * [2^-8, 2^9); element n - 1 is +-2^(e-1), half of B's ulp 2^e; between them,
 * pairs C_q and -C_q ((n - 2)/2 apart, |C| within a factor 2^13 of |B|), and
 * a +0 when n is odd. The exact sum B +- ulp(B)/2 lies exactly halfway between
 * two neighbouring floats for every n >= 2 (M > 2^23 keeps the neighbour
 * below B one ulp away). Round to nearest even picks B when M is even and
 * B +- ulp(B) when M is odd: over seeds, up and down in magnitude alike.
 * What it shows: only a sum that is exact until its one rounding gets the
 * last bit right; the pairs make partial sums large enough to lose it. */
static inline uint32_t ties_bits(const plan_t *P, size_t i)
{
    if (i == 0) return P->b;
    if (i == P->n - 1) return P->half_ulp;
    size_t j = i - 1, half = (P->n - 2) / 2;
    if (j >= 2 * half) return 0;                       /* +0 */
    size_t q = j < half ? j : j - half;
    uint64_t g = element_hash(P->key, q);
    uint32_t sign = (uint32_t)(g >> 63) ^ (j >= half);
    return make_float(sign, P->e_b - 12 + below(g >> 32, 24, 25), (uint32_t)g);
}

/* huge: every magnitude in [2^126, 2^128). For q < h, element q is
 * sign * H_q and element q + h is -sign * H_q (exponent field 253 or 254,
 * random fraction); the last `tail` elements decide the exact sum:
 *   - most seeds: one term +-[2^126, 2^128), or two of opposite signs
 *     (their sum is below 2^128 - 2^126): the exact sum is finite;
 *   - seeds divisible by 4 (n >= 2): two or three terms of one sign, each
 *     at least 2^127: the exact sum is at least 2^128 and rounds to +-inf.
 * tail is 1 or 2 (2 or 3 when it overflows), whichever leaves an even count
 * for the pairs, so h = (n - tail) / 2. What it shows: any four of the first
 * h elements overflow a float sum (4 * 2^126 = 2^128) in any order, so a
 * float sum of n >= 11 elements left to right is inf, while the exact sum
 * is finite; only an exact accumulator tells the two apart. */
static inline uint32_t huge_bits(const plan_t *P, size_t i)
{
    size_t half = (P->n - P->tail) / 2;
    if (i < 2 * half) {
        size_t q = i < half ? i : i - half;
        uint64_t g = element_hash(P->key, q);
        return make_float(P->sign ^ (i >= half), 253 + (uint32_t)(g >> 63), (uint32_t)g);
    }
    size_t k = i - 2 * half;                           /* the tail: 0, 1, 2 */
    uint64_t g = element_hash(P->key ^ GOLDEN, k);
    if (P->overflow) return make_float(P->tail_sign, 254, (uint32_t)g);
    uint32_t sign = P->tail == 1 ? (uint32_t)(g >> 63) : P->tail_sign ^ (uint32_t)k;
    return make_float(sign, 253 + (uint32_t)(g >> 62 & 1), (uint32_t)g);
}

/* ---- 3. the table, names, one element ------------------------------------------- */
const dist_info_t dist_info[DIST_COUNT] = {
    { "uniform", "k/2^23 for random k in [-2^23, 2^23): the kindest input" },
    { "wide", "random signs and exponents, subnormals up to 2^87" },
    { "cancel", "pairs B, -B+ulp(B): the sum is 2^24 to 2^25 times below sum|x|" },
    { "ties", "the exact sum lies halfway between two floats (n >= 2)" },
    { "huge", "|x| near 2^127: partial sums overflow; if seed % 4 = 0, the sum too" },
};

int dist_parse(const char *name, char *err, size_t errlen)
{
    char names[128] = "";
    size_t used = 0;
    for (int d = 0; d < DIST_COUNT; d++) {
        if (strcmp(name, dist_info[d].name) == 0) return d;
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", d ? ", " : "",
                                 dist_info[d].name);
        if (used >= sizeof names) break;      /* cannot happen with these names */
    }
    snprintf(err, errlen, "'%s' is not an input: choose from %s", name, names);
    return -1;
}

int dist_overflows(dist_t d, uint64_t seed, size_t n)
{
    return d == DIST_HUGE && seed % 4 == 0 && n >= 2;
}

/* Works out what depends on the seed and n only: ties' B, huge's signs and tail. */
static void draw_plan(plan_t *P, dist_t d, uint64_t seed, size_t n)
{
    memset(P, 0, sizeof *P);
    P->d = d;
    P->n = n;
    P->key = d == DIST_UNIFORM ? seed_key(seed) : mix64(seed_key(seed) ^ (uint64_t)d << 56);
    uint64_t s = mix64(P->key + 1);                    /* the seed's own random bits */
    P->e_b = 119 + below(s >> 32, 24, 17);              /* |B| in [2^-8, 2^9) */
    P->b = make_float((uint32_t)(s >> 63), P->e_b, (1u << 23) + 1 + below(s, 32, (1u << 23) - 1));
    P->half_ulp = make_float((uint32_t)(s >> 62 & 1), P->e_b - 24, 0);   /* 2^(e_b - 151) */
    P->sign = (uint32_t)(s >> 61 & 1);
    P->tail_sign = (uint32_t)(s >> 60 & 1);
    P->overflow = dist_overflows(d, seed, n);
    P->tail = P->overflow ? 2 + (n & 1) : 2 - (n & 1);
    if (P->tail > n) P->tail = n;
}

/* Element i of distribution d (P's, or a constant: see fill). */
static inline uint32_t element_bits(dist_t d, const plan_t *P, size_t i)
{
    switch (d) {
    case DIST_WIDE: return wide_bits(element_hash(P->key, i));
    case DIST_CANCEL: return cancel_bits(P, i);
    case DIST_TIES: return ties_bits(P, i);
    case DIST_HUGE: return huge_bits(P, i);
    case DIST_UNIFORM:
    default: return uniform_bits(element_hash(P->key, i));
    }
}

float dist_value(dist_t d, uint64_t seed, size_t i, size_t n)
{
    plan_t P;
    draw_plan(&P, d, seed, n);
    uint32_t u = element_bits(d, &P, i);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The exact build's uniform keeps the harness's random 32 bits (h >> 32). */
static inline uint32_t plan_exact_bits(const plan_t *P, size_t i)
{
    return P->d == DIST_UNIFORM ? (uint32_t)(element_hash(P->key, i) >> 32)
                                : element_bits(P->d, P, i);
}

uint32_t dist_bits(dist_t d, uint64_t seed, size_t i, size_t n)
{
    plan_t P;
    draw_plan(&P, d, seed, n);
    return plan_exact_bits(&P, i);
}

/* ---- 4. drawing slices -------------------------------------------------------------
 * Pieces of 2^16 elements (256 KB: they stay in a core's L2 cache between
 * being drawn and being added), handed out to the threads in turn. */
#define PIECE ((size_t)1 << 16)

/* out[0..len) gets elements first, first + 1, ... of P's array. */
static inline void fill_as(dist_t d, const plan_t *P, size_t first, size_t len, float *out)
{
    for (size_t j = 0; j < len; j++) {
        uint32_t u = element_bits(d, P, first + j);
        memcpy(&out[j], &u, sizeof u);
    }
}

/* Each call passes a constant distribution, so the inlined fill_as loses its
 * switch: uniform draws in about half the time of a choice per element. */
static void fill(const plan_t *P, size_t first, size_t len, float *out)
{
    switch (P->d) {
    case DIST_WIDE: fill_as(DIST_WIDE, P, first, len, out); break;
    case DIST_CANCEL: fill_as(DIST_CANCEL, P, first, len, out); break;
    case DIST_TIES: fill_as(DIST_TIES, P, first, len, out); break;
    case DIST_HUGE: fill_as(DIST_HUGE, P, first, len, out); break;
    case DIST_UNIFORM:
    default: fill_as(DIST_UNIFORM, P, first, len, out); break;
    }
}

void dist_draw(dist_t d, uint64_t seed, size_t first, size_t count, size_t n, float *buf,
               exact_sum_t *acc)
{
    plan_t P;
    draw_plan(&P, d, seed, n);
    const long long pieces = (long long)((count + PIECE - 1) / PIECE);
    #pragma omp parallel
    {
        exact_sum_t mine;
        exact_init(&mine);
        #pragma omp for schedule(static)
        for (long long b = 0; b < pieces; b++) {
            size_t lo = (size_t)b * PIECE, len = count - lo < PIECE ? count - lo : PIECE;
            fill(&P, first + lo, len, buf + lo);
            if (acc) exact_add_floats(&mine, buf + lo, len);
        }
        if (acc) {
            #pragma omp critical(dist_draw_merge)
            exact_merge(acc, &mine);
        }
    }
}

void dist_draw_bits(dist_t d, uint64_t seed, size_t first, size_t count, size_t n,
                    uint32_t *buf, uint32_t *sum)
{
    plan_t P;
    draw_plan(&P, d, seed, n);
    uint32_t total = 0;
    /* Integer sums modulo 2^32 are exact, so the threads may add in any order. */
    #pragma omp parallel for schedule(static) reduction(+ : total)
    for (long long j = 0; j < (long long)count; j++) {
        buf[j] = plan_exact_bits(&P, first + (size_t)j);
        total += buf[j];
    }
    if (sum) *sum += total;
}
