/* exact_acc_test.cu: step 10's accumulator on the CPU (no GPU needed).
 *
 *     make exact-acc-test
 *
 * Runs the __host__ __device__ functions of steps/exact_acc.cuh the way
 * step 10's kernel does: every thread of every block takes its groups with
 * thread_accumulate, carries, the block sums its threads' digits and counts
 * its flags, the blocks' words are added in a random order, and the sum is
 * rounded once. It does that for many inputs (uniform, every exponent,
 * cancelling, constructed ties, near the largest float, NaN, infinities,
 * signed zeros, subnormals; n from 1 to 100003) and launch shapes, checks
 * that every launch shape, and the input shuffled, give the same bits, then
 * writes each input with its sum to a file (argv[1]) for
 * tests/exact_acc_oracle.py, which checks every sum against its own exact
 * sum and rounding. Built with -DREDUCE_EXACT it checks the sum modulo 2^32
 * itself. Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a failure.
 */
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>   // __host__, __device__, float4 and uint4, for a host compiler too

#include "../common/harness.h"
#ifndef __CUDACC__
#ifdef REDUCE_EXACT
typedef uint4 elem4_t;      // harness.h names it for CUDA compilers only
#else
typedef float4 elem4_t;
#endif
#endif
#include "exact_acc.cuh"   // from steps/, or a mutant's copy (tests/tests.mk)

// Groups summed in FP64, or (-DEXACT_NO_FP64) with 64-bit integers: the two
// ways step 10 picks from at run time.
#ifdef EXACT_NO_FP64
static constexpr bool FP64 = false;
#else
static constexpr bool FP64 = true;
#endif

static int passed, failed;

static void check(bool ok, const std::string &name, const std::string &why = "")
{
    if (ok) passed++;
    else failed++;
    if (!ok) printf("FAIL exact-acc/%s: %s\n", name.c_str(), why.c_str());
}

static unsigned bits_of_elem(elem_t x)
{
    unsigned u;
    memcpy(&u, &x, sizeof u);
    return u;
}

// ---- the kernel, one block at a time ------------------------------------------
struct shape { int block; unsigned grid; };

// One block: its threads' digits (the kernel's layout: lane l of tile w keeps
// digit i at [(w * DIGITS + i) * 32 + l]), carried only if acc_must_carry
// says so, summed into the block's words, carried; a word per flag, 1 if any
// thread saw it.
static void block_words(const elem_t *x, size_t n, int block, unsigned b, size_t threads, long long *w)
{
    std::vector<long long> digits((size_t)block * DIGITS, 0);
    unsigned seen = 0;
    for (int t = 0; t < block; t++) {
        long long *mine = digits.data() + (t / 32) * DIGITS * 32 + t % 32;
        seen |= thread_accumulate<FP64>(x, n, (size_t)b * block + t, threads, mine, 32);
        if (acc_must_carry(n, threads)) acc_carry(mine, 32);
    }
    for (int i = 0; i < DIGITS; i++) {
        w[i] = 0;
        for (int t = 0; t < block; t++)
            w[i] += digits[(t / 32) * DIGITS * 32 + i * 32 + t % 32];
    }
    for (int c = 0; c < 4; c++) w[DIGITS + c] = seen >> c & 1;
    acc_carry(w, 1);
}

// The whole launch: the blocks' words added as integers in a random order
// (as the grid's atomics may land), carried, rounded once.
static elem_t launch(const std::vector<elem_t> &x, shape s, std::mt19937_64 &rng)
{
    size_t threads = (size_t)s.block * s.grid;
    std::vector<unsigned> order(s.grid);
    for (unsigned b = 0; b < s.grid; b++) order[b] = b;
    std::shuffle(order.begin(), order.end(), rng);
    long long grid[WORDS] = { 0 };
    for (unsigned k = 0; k < s.grid; k++) {
        long long w[WORDS];
        block_words(x.data(), x.size(), s.block, order[k], threads, w);
        for (int i = 0; i < WORDS; i++) grid[i] += w[i];
    }
    return acc_result(grid);
}

static const shape SHAPES[] = { { 32, 1 }, { 1024, 1 }, { 64, 2 }, { 32, 3 }, { 128, 5 },
                                { 256, 17 }, { 32, 100 }, { 512, 3 } };

// Every shape and a shuffled copy must agree; returns the sum's bits.
static unsigned sum_everywhere(const std::vector<elem_t> &x, const std::string &name, std::mt19937_64 &rng)
{
    unsigned first = bits_of_elem(launch(x, SHAPES[0], rng));
    for (const shape &s : SHAPES) {
        unsigned got = bits_of_elem(launch(x, s, rng));
        if (got != first) {
            char why[160];
            snprintf(why, sizeof why, "block %d grid %u gave 0x%08x, block 32 grid 1 0x%08x", s.block, s.grid,
                     got, first);
            check(false, name, why);
            return first;
        }
    }
    std::vector<elem_t> shuffled(x);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    unsigned got = bits_of_elem(launch(shuffled, { 128, 3 }, rng));
    check(got == first, name + " (shuffled)", "the shuffled input gave other bits");
    check(true, name);
    return first;
}

#ifdef REDUCE_EXACT
// ---- the exact build: the sum modulo 2^32 --------------------------------------
int main()
{
    std::mt19937_64 rng(10);
    const size_t sizes[] = { 1, 2, 3, 4, 5, 31, 32, 33, 127, 129, 1000, 4097, 100003 };
    for (size_t n : sizes)
        for (int kind = 0; kind < 2; kind++) {
            std::vector<elem_t> x(n);
            uint32_t want = 0;
            for (size_t i = 0; i < n; i++) {
                x[i] = kind ? 0xffffffffu - (uint32_t)(rng() & 15) : (uint32_t)rng();
                want += x[i];
            }
            std::string name = std::string(kind ? "near 2^32" : "random") + " n=" + std::to_string(n);
            unsigned got = sum_everywhere(x, name, rng);
            check(got == want, name + " modulo 2^32", std::to_string(got) + " != " + std::to_string(want));
        }
    printf("exact-acc (uint32): %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
#else
// ---- float inputs ----------------------------------------------------------------
static float f_of(unsigned u) { return float_of(u); }

// Any finite float: sign, exponent 0..254 and fraction at random.
static float any_finite(std::mt19937_64 &rng)
{
    unsigned e = (unsigned)(rng() % 255), f = (unsigned)(rng() & 0x7fffff), s = (unsigned)(rng() & 1);
    return f_of(s << 31 | e << 23 | f);
}

// A float with exponent bits in [lo, hi], random fraction and sign.
static float in_band(std::mt19937_64 &rng, unsigned lo, unsigned hi)
{
    unsigned e = lo + (unsigned)(rng() % (hi - lo + 1)), f = (unsigned)(rng() & 0x7fffff);
    return f_of((unsigned)(rng() & 1) << 31 | e << 23 | f);
}

static float uniform(std::mt19937_64 &rng)        // the harness's default input: k / 2^23
{
    return (float)((int)(rng() >> 40) - (1 << 23)) * 0x1p-23f;
}

// Pads x with n - x.size() elements that cancel in pairs (x_i and -x_i, of any
// size), then zeros; then shuffles. The exact sum stays that of x.
static void pad_cancelling(std::vector<float> &x, size_t n, std::mt19937_64 &rng)
{
    while (x.size() + 2 <= n) {
        float y = any_finite(rng);
        x.push_back(y);
        x.push_back(-y);
    }
    while (x.size() < n) x.push_back(0.0f);
    std::shuffle(x.begin(), x.end(), rng);
}

struct writer {
    FILE *f;
    void add(const std::string &name, const std::vector<float> &x, unsigned sum)
    {
        uint32_t len = (uint32_t)name.size();
        uint64_t n = x.size();
        fwrite(&len, 4, 1, f);
        fwrite(name.data(), 1, len, f);
        fwrite(&n, 8, 1, f);
        fwrite(&sum, 4, 1, f);
        fwrite(x.data(), 4, x.size(), f);
    }
};

static void run(writer &out, const std::string &name, const std::vector<float> &x, std::mt19937_64 &rng)
{
    out.add(name, x, sum_everywhere(x, name + " n=" + std::to_string(x.size()), rng));
}

// Constructed ties: B + ulp(B)/2 rounds to even, so to B + ulp when B's last
// bit is 1 and to B when it is 0; B - ulp/2 likewise; a tiny extra term of
// either sign breaks the tie. Padded with cancelling pairs.
static void ties(writer &out, std::mt19937_64 &rng)
{
    for (int rep = 0; rep < 40; rep++) {
        unsigned e = 2 + (unsigned)(rng() % 250), f = (unsigned)(rng() & 0x7ffffe) | (rep & 1);
        if (f == 0) f = 2;                                 // not a power of two: ulp below = ulp above
        float b = f_of(e << 23 | f);
        float half = ldexpf(1.0f, (int)e - 151);           // ulp(B) / 2, a subnormal for small B
        float tiny = f_of(1 + (unsigned)(rng() % 3));      // far below ulp(B) / 2 but for small B
        float sign = rep & 2 ? -1.0f : 1.0f;
        std::vector<std::vector<float>> forms = { { b, half }, { b, -half }, { b, half, tiny },
                                                 { b, half, -tiny }, { b, -half, tiny }, { half, b, half } };
        for (size_t k = 0; k < forms.size(); k++) {
            std::vector<float> x;
            for (float y : forms[k]) x.push_back(sign * y);
            size_t n = 1 + rng() % 300;
            pad_cancelling(x, std::max(n, x.size()), rng);
            run(out, "tie " + std::to_string(rep) + "." + std::to_string(k), x, rng);
        }
    }
}

// Near the largest float: the exact sum decides, not the order (no
// intermediate overflow), and 2^128 - 2^103 rounds up to infinity.
static void near_max(writer &out, std::mt19937_64 &rng)
{
    const float max = f_of(0x7f7fffff), half_ulp = 0x1p103f, below = 0x1p102f;
    std::vector<std::vector<float>> forms = {
        { max, half_ulp }, { max, below }, { max, half_ulp, -f_of(1) }, { max, max, -max },
        { max, max }, { max, max, -max, -max, max }, { max, half_ulp, half_ulp, -max } };
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; k < forms.size(); k++)
            for (size_t n : { (size_t)0, (size_t)33, (size_t)1000 }) {
                std::vector<float> x;
                for (float y : forms[k]) x.push_back(s ? -y : y);
                pad_cancelling(x, std::max(n, x.size()), rng);
                run(out, "near max " + std::to_string(s) + "." + std::to_string(k), x, rng);
            }
    std::vector<float> many(70000, max);           // 70000 FLT_MAX: infinity
    run(out, "70000 times FLT_MAX", many, rng);
    for (size_t i = 0; i < many.size(); i += 2) many[i] = -max;
    run(out, "FLT_MAX alternating in sign", many, rng);
}

// NaN, infinities, zeros: IEEE's special cases, anywhere in the array.
static void specials(writer &out, std::mt19937_64 &rng)
{
    const float inf = INFINITY, nan = f_of(0x7fc00000), snan = f_of(0xff800001);
    const size_t sizes[] = { 1, 2, 5, 33, 300, 5000 };
    for (size_t n : sizes) {
        std::vector<std::pair<std::string, std::vector<float>>> forms = {
            { "nan", { nan } }, { "snan", { snan } }, { "+inf", { inf } }, { "-inf", { -inf } },
            { "+inf -inf", { inf, -inf } }, { "nan +inf", { nan, inf } }, { "+inf +inf", { inf, inf } },
            { "+inf max", { inf, f_of(0x7f7fffff), f_of(0x7f7fffff) } } };
        for (auto &form : forms) {
            std::vector<float> x = form.second;
            while (x.size() < n) x.push_back(rng() % 4 ? any_finite(rng) : uniform(rng));
            std::shuffle(x.begin(), x.end(), rng);
            if (x.size() == n) run(out, "special " + form.first, x, rng);
        }
        std::vector<float> zeros(n, -0.0f);
        run(out, "all -0", zeros, rng);
        zeros[rng() % n] = 0.0f;
        run(out, "-0 and one +0", zeros, rng);
        std::vector<float> z(n, 0.0f);
        run(out, "all +0", z, rng);
        if (n >= 2) {
            std::vector<float> c(n, -0.0f);
            float y = any_finite(rng);
            c[0] = y;
            c[1] = -y;
            std::shuffle(c.begin(), c.end(), rng);
            run(out, "-0 and x, -x", c, rng);
        }
    }
}

// Inputs drawn at random, each kind at several sizes.
static void drawn(writer &out, std::mt19937_64 &rng)
{
    const size_t sizes[] = { 1, 2, 3, 4, 5, 7, 31, 32, 33, 64, 127, 129, 1000, 4097, 100003 };
    for (size_t n : sizes)
        for (int kind = 0; kind < 7; kind++) {
            std::vector<float> x;
            static const char *names[] = { "uniform", "wide", "band", "cancel", "subnormal", "small band",
                                           "zeros and wide" };
            unsigned c = 1 + (unsigned)(rng() % 200);
            for (size_t i = 0; i < n; i++) {
                switch (kind) {
                case 0: x.push_back(uniform(rng)); break;
                case 1: x.push_back(any_finite(rng)); break;
                case 2: x.push_back(in_band(rng, c, std::min(254u, c + 30))); break;
                case 4: x.push_back(in_band(rng, 0, 1)); break;
                case 5: x.push_back(in_band(rng, c, c + 3)); break;
                case 6: x.push_back(rng() % 3 ? 0.0f : any_finite(rng)); break;
                default: break;
                }
            }
            if (kind == 3) {                                // cancelling pairs and a small rest
                x.push_back(uniform(rng) * 0x1p-60f);
                pad_cancelling(x, n, rng);
            }
            run(out, names[kind], x, rng);
        }
}

// The worked examples of exact_acc.cuh's comments.
static void examples()
{
    long long d[DIGITS] = { 0 };
    acc_add(d, 1, -3, 33);
    check(d[1] == 0xfffffffall && d[2] == 0xffffffffll && d[3] == -1, "acc_add(-3, 33): three pieces");
    long long g[DIGITS] = { (1ll << 32) + 5, -1 };
    acc_carry(g, 1);
    bool all = g[0] == 5;
    for (int i = 1; i < DIGITS; i++) all &= g[i] == 0;
    check(all, "acc_carry(2^32 + 5, -1): 5, then zeros");
    long long f[DIGITS] = { 0 };
    acc_add_float(f, 1, bits_of(1.5f));                 // m = 12582912, p = 126: digit 3, shifted 30
    check(f[3] == 12582912ll << 30, "acc_add_float(1.5f): 12582912 * 2^126 units");
    // The rounding from carried digits, where a digit below the top ones decides:
    // 2^64 - 1 units is the window 2^64 less a rest under it, and rounds up to
    // 2^64 units = 2^-85; 2^57 + 2^33 units is a tie (half an ulp of 2^34 over
    // 2^57) that goes to even, 2^57; one unit more (a rest of digit 0 alone)
    // goes up; one unit less, in a negative sum, goes down to -2^57 units.
    struct { long long d0, d1, d2; float want; const char *what; } cases[] = {
        { -1, 0, 1, 0x1p-85f, "acc_round(2^64 - 1 units): a negative rest, then up" },
        { 1, 0, -1, -0x1p-85f, "acc_round(-(2^64 - 1) units)" },
        { 0, (1ll << 25) + 2, 0, 0x1p-92f, "acc_round(2^57 + 2^33 units): a tie, to even" },
        { 1, (1ll << 25) + 2, 0, 0x1p-92f + 0x1p-115f, "acc_round(2^57 + 2^33 + 1 units): up" },
        { 1, -(1ll << 25) - 2, 0, -0x1p-92f, "acc_round(-(2^57 + 2^33 - 1) units): down" },
    };
    for (const auto &c : cases) {
        long long w[WORDS] = { c.d0, c.d1, c.d2 };
        w[NOT_NEG_ZERO_COUNT] = 1;
        check(bits_of(acc_result(w)) == bits_of(c.want), c.what);
    }
    // The per-thread carry is skipped up to n = 2^25 threads (2^20 groups a thread).
    check(!acc_must_carry((size_t)1 << 30, 32) && acc_must_carry(((size_t)1 << 30) + 1, 32) &&
              !acc_must_carry((size_t)1 << 40, (size_t)1 << 15),
          "acc_must_carry: from n = 2^25 threads + 1 on");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_FILE (for tests/exact_acc_oracle.py)\n", argv[0]);
        return 2;
    }
    writer out = { fopen(argv[1], "wb") };
    if (!out.f) {
        perror(argv[1]);
        return 2;
    }
    std::mt19937_64 rng(10);
    examples();
    drawn(out, rng);
    ties(out, rng);
    near_max(out, rng);
    specials(out, rng);
    fclose(out.f);
    printf("exact-acc (float%s): %d passed, %d failed\n",
#ifdef EXACT_NO_FP64
           ", no FP64",
#else
           "",
#endif
           passed, failed);
    return failed ? 1 : 0;
}
#endif
