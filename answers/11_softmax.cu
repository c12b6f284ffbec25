/* 11_softmax.cu: a softmax over every row of a matrix whose bits depend on
 * the row alone, not on the batch (chapter 11, exercise 1).
 *
 *     make answers && build/answers/11_softmax --shape 1000x4096
 *     build/answers/11_softmax --shape 3x4097 --shift -100     (every element negative)
 *
 * For a row x of L floats, with m its largest element,
 *
 *     y[j] = exp(x[j] - m) / d,   d = the sum over j of exp(x[j] - m).
 *
 * Subtracting m changes nothing in exact arithmetic and keeps every exp(.) at
 * most 1, so nothing overflows. One block takes a row, in three passes:
 *
 *   1. m, in any order: fmaxf is exact, so every order gives the same m.
 *      Past the row's end the loads give PAD, -inf, never 0. With 0, a row of
 *      negative numbers whose length is not a multiple of 4 would get m = 0;
 *      for x near -100, exp(x - 0) is below float's normal range and d is a
 *      sum of subnormals (or of zeros below -104: y = 0 / 0 = NaN), and each
 *      padded place would add exp(0 - m) to it.
 *   2. d, in step 11's order for a row of L: chunks of 4096, lane l adding
 *      vectors l, l + 32, ... each as (x + y) + (z + w), step 08's tree and
 *      levels, with exp(x - m) in place of x (chunk_exp_sum; the levels are
 *      step 11's own combine_row). exp(-inf - m) = +0: the padding adds +0,
 *      as step 11's zeros do.
 *   3. y[j] = exp(x[j] - m) / d, the same expf as in the sum.
 *
 * Nothing there depends on R, on the grid or on which block takes a row, so
 * a row has the same bits in any batch: the program runs the first 7 rows
 * again as a batch of their own and compares the bits. (One block a row keeps
 * the answer short; step 11's tiles for short rows and parts for long ones
 * would be faster, in the same order.)
 *
 * The check, every element on the CPU against the softmax of the same floats
 * in double. With u = 2^-24, each element's error is within (row_bound below)
 *     (2 T + k + 10) u  relative,  plus FLT_MIN absolute,
 * T the largest x[j] - m of the row (taken where exp is a normal float),
 * k the additions step 08's order makes per element (order_depth). Why, to
 * first order: x - m rounds once, an error of up to T u in exp's argument,
 * so T u relative in exp; expf is within 2 ulp, 4 u (CUDA Programming
 * Guide, its table of single-precision functions); the sum of positive terms
 * adds k u; d carries every term's error, at most (T + 4) u; the division u;
 * one more u covers the products of these small terms. FLT_MIN covers
 * exponentials that fall below float's normal range, where only an absolute
 * error is kept; L 2^-52 the reference's own rounding. A row's y must also
 * add up to 1 within that bound.
 *
 * -inf in the input (a mask): its y is exactly 0. A row all of -inf has no
 * softmax: m = -inf and x - m is NaN, so every y is NaN (torch.softmax gives
 * NaN there too); the check requires NaN in such a row. --mask makes row 0
 * one.
 *
 * Float only: answers.mk builds no exact (uint32) version.
 * Base: steps/11_rows.cu, whose load4, tile_tree, chunk_sum, store_sum,
 * combine_row and row_sums are here unchanged.
 */
#ifdef REDUCE_EXACT
#error "11_softmax takes floats: it has no exact (uint32) build"
#endif

#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cooperative_groups.h>

#include "../common/parts.h"

namespace cg = cooperative_groups;

#define CHUNK 4096              // elements a chunk: step 08's, part of the order
#define LANES 32
#define LOADS_IN_FLIGHT 8       // a lane's loads issued before its first add: speed only
#define BLOCK 256               // threads a block, the block a row
#define BATCH 7                 // the first rows, run again as a batch of their own
#ifndef PAD
#define PAD (-INFINITY)         // elements past the row's end (answers.mk's 11_softmax_pad0: 0)
#endif

// ---- step 11's code, unchanged ----------------------------------------------
// Vector i < (len + 3) / 4 of p[0..len), zeros past len. ALIGNED: p is 16-byte
// aligned and zeros follow p[len - 1] in its 16 bytes (rows of 4k elements,
// padded levels of sums): one 16-byte load, and fewer registers than the
// fallback needs, so more warps a multiprocessor. Otherwise one where it can.
template <bool ALIGNED>
__device__ elem4_t load4(const elem_t *p, unsigned i, unsigned len)
{
    elem4_t v = { 0, 0, 0, 0 };
    if (ALIGNED || ((size_t)p % 16 == 0 && 4 * i + 4 <= len)) {
        v = ((const elem4_t *)p)[i];
    } else {
        if (4 * i + 0 < len) v.x = p[4 * i + 0];
        if (4 * i + 1 < len) v.y = p[4 * i + 1];
        if (4 * i + 2 < len) v.z = p[4 * i + 2];
        if (4 * i + 3 < len) v.w = p[4 * i + 3];
    }
    return v;
}

// Step 08's shuffle tree in each tile of W lanes: lane l adds lane l + 16,
// then + 8, ... + 1. In a tile narrower than 32 the levels at offsets >= W
// would add lanes that hold +0 (a row that short has no vectors there), and
// x + 0 is x, so they are left out. Valid in each tile's first lane.
__device__ elem_t tile_tree(cg::thread_block_tile<32> warp, unsigned W, elem_t sum)
{
    for (unsigned offset = LANES / 2; offset > 0; offset /= 2) {
        elem_t other = warp.shfl_down(sum, offset);
        if (offset < W) sum += other;
    }
    return sum;
}

// Step 08's chunk sum of p[0..len), len <= CHUNK: lane l adds vectors l, l + 32,
// ... in sequence, each as (x + y) + (z + w), zeros past the end (+0 changes
// no sum that starts at +0). Valid in lane 0.
template <bool ALIGNED>
__device__ elem_t chunk_sum(cg::thread_block_tile<32> warp, const elem_t *p, unsigned len)
{
    unsigned vectors = (len + 3) / 4;
    elem_t sum = 0;
    for (unsigned j = warp.thread_rank(); j < vectors; j += LANES * LOADS_IN_FLIGHT) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = j + LANES * k < vectors ? load4<ALIGNED>(p, j + LANES * k, len) : elem4_t{ 0, 0, 0, 0 };
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    return tile_tree(warp, LANES, sum);
}

// Sum c of a level of m, stored by lane 0; the level's last vector is padded
// with zeros, so that its sums are read as ALIGNED.
__device__ void store_sum(cg::thread_block_tile<32> warp, elem_t *level, size_t c, size_t m, elem_t s)
{
    if (warp.thread_rank() != 0) return;
    level[c] = s;
    for (size_t pad = m; c == m - 1 && pad % 4; pad++) level[pad] = 0;
}

// Step 08's levels over one row's m >= 2 chunk sums, by one block; each
// level's sums follow the level below, 16-byte aligned.
__device__ void combine_row(cg::thread_block block, elem_t *level, size_t m, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (; m > 1; m = (m + CHUNK - 1) / CHUNK) {
        size_t up = (m + CHUNK - 1) / CHUNK;
        elem_t *next = level + (m + 3) / 4 * 4;
        for (size_t c = warp.meta_group_rank(); c < up; c += warp.meta_group_size()) {
            size_t left = m - c * CHUNK;
            elem_t s = chunk_sum<true>(warp, level + c * CHUNK, left < CHUNK ? left : CHUNK);
            if (up > 1) store_sum(warp, next, c, up, s);
            else if (warp.thread_rank() == 0) *out = s;
        }
        block.sync();                         // this level is written: the next may read it
        level = next;
    }
}

// A long row's stretch of sums: every level with more than one, each 16-byte aligned.
static size_t row_sums(size_t len)
{
    size_t elems = 0;
    for (size_t m = div_up(len, CHUNK); m > 1; m = div_up(m, CHUNK)) elems += div_up(m, 4) * 4;
    return elems;
}

// ---- the softmax ------------------------------------------------------------
// Vector i of the row p[0..len), as load4 reads it but with PAD past the end.
__device__ float4 load4_pad(const float *p, size_t i, size_t len)
{
    float4 v = make_float4(PAD, PAD, PAD, PAD);
    if ((size_t)p % 16 == 0 && 4 * i + 4 <= len) {
        v = ((const float4 *)p)[i];
    } else {
        if (4 * i + 0 < len) v.x = p[4 * i + 0];
        if (4 * i + 1 < len) v.y = p[4 * i + 1];
        if (4 * i + 2 < len) v.z = p[4 * i + 2];
        if (4 * i + 3 < len) v.w = p[4 * i + 3];
    }
    return v;
}

// The largest element of x[0..len), in every thread of the block.
__device__ float row_max(cg::thread_block block, const float *x, size_t len)
{
    __shared__ float warp_max[BLOCK / LANES];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float m = -INFINITY;                      // the max of nothing
    for (size_t i = block.thread_rank(); i < (len + 3) / 4; i += block.size()) {
        float4 v = load4_pad(x, i, len);
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    for (unsigned offset = LANES / 2; offset > 0; offset /= 2) m = fmaxf(m, warp.shfl_xor(m, offset));
    if (warp.thread_rank() == 0) warp_max[warp.meta_group_rank()] = m;
    block.sync();
    for (unsigned w = 0; w < BLOCK / LANES; w++) m = fmaxf(m, warp_max[w]);
    return m;
}

// exp(v - m), element by element.
__device__ float4 exp4(float4 v, float m)
{
    return make_float4(expf(v.x - m), expf(v.y - m), expf(v.z - m), expf(v.w - m));
}

// chunk_sum with exp(x - m) in place of each element x: the same order.
__device__ float chunk_exp_sum(cg::thread_block_tile<32> warp, const float *p, unsigned len, float m)
{
    unsigned vectors = (len + 3) / 4;
    float sum = 0;
    for (unsigned j = warp.thread_rank(); j < vectors; j += LANES * LOADS_IN_FLIGHT) {
        float4 v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = j + LANES * k < vectors ? exp4(load4_pad(p, j + LANES * k, len), m) : make_float4(0, 0, 0, 0);
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    return tile_tree(warp, LANES, sum);
}

// Block b takes rows b, b + gridDim.x, ...; sums holds `stretch` floats a
// block (row_sums(len)), for the levels of a row longer than a chunk.
__global__ void softmax_kernel(const float *in, size_t rows, size_t len, float *sums, size_t stretch, float *out)
{
    __shared__ float denominator;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t chunks = (len + CHUNK - 1) / CHUNK;
    float *level = sums + blockIdx.x * stretch;
    for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float *x = in + r * len;
        float m = row_max(block, x, len);
        for (size_t c = warp.meta_group_rank(); c < chunks; c += warp.meta_group_size()) {
            size_t left = len - c * CHUNK;
            float s = chunk_exp_sum(warp, x + c * CHUNK, left < CHUNK ? left : CHUNK, m);
            if (chunks > 1) store_sum(warp, level, c, chunks, s);
            else if (warp.thread_rank() == 0) denominator = s;
        }
        block.sync();                         // the chunk sums are written
        if (chunks > 1) combine_row(block, level, chunks, &denominator);   // ends with a sync
        float d = denominator;
        for (size_t j = block.thread_rank(); j < len; j += block.size())
            out[r * len + j] = expf(x[j] - m) / d;
        block.sync();                         // d and the maxima read: the next row may write them
    }
}

// ---- the launch -------------------------------------------------------------
// A block a row: as many blocks as fit on the GPU at once, no more than rows.
static size_t blocks_for(const device_t *dev, size_t rows)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, softmax_kernel, BLOCK, 0));
    if (per_sm < 1) device_fail("no block of softmax_kernel fits on this GPU");
    return min_size((size_t)per_sm * dev->sm_count, rows);
}

// y = the softmax of every row of x, waited for; output and scratch poisoned
// first (every byte 0xFF, a NaN), so that an element never written shows.
static void softmax(const device_t *dev, const float *x, size_t rows, size_t len, float *y, float *sums)
{
    size_t blocks = blocks_for(dev, rows);
    CUDA_CHECK(cudaMemset(y, POISON, rows * len * sizeof(float)));
    if (sums) CUDA_CHECK(cudaMemset(sums, POISON, blocks * row_sums(len) * sizeof(float)));
    softmax_kernel<<<(unsigned)blocks, BLOCK>>>(x, rows, len, sums, row_sums(len), y);
    CUDA_CHECK(cudaGetLastError());
    sync_or_fail(0, "in softmax_kernel");
}

// ---- the check --------------------------------------------------------------
typedef struct {
    double ratio;           // the worst element's error over its bound: above 1 is wrong
    size_t row, col;
    double got, want, bound;
    double off;             // the worst row's |sum of y - 1|
    int off_wrong;          // a row whose y do not add up to 1 within its bound
    size_t wrong_rows;
} verdict_t;

// The bound on each element's relative error in a row whose max is m (the
// file's header says why).
static double row_bound(const float *x, size_t len, double m)
{
    double T = 0;
    for (size_t j = 0; j < len; j++) {
        double t = m - x[j];                  // exact in double; NaN or inf left out
        if (t < 88 && t > T) T = t;           // exp(-88) is below FLT_MIN
    }
    return (2 * T + order_depth(len, CHUNK) + 10) * 0x1p-24 + (double)len * 0x1p-52;
}

// Row r, x[0..len) and the GPU's y[0..len), into *v.
static void check_row(const float *x, const float *y, size_t len, size_t r, verdict_t *v)
{
    double m = -INFINITY, d = 0, sum = 0;
    for (size_t j = 0; j < len; j++) m = fmax(m, x[j]);
    for (size_t j = 0; j < len; j++) d += exp(x[j] - m);       // NaN for a row all of -inf
    double bound = row_bound(x, len, m), worst = 0;
    for (size_t j = 0; j < len; j++) {
        double want = exp(x[j] - m) / d;
        double ratio = std::isnan(want) ? (std::isnan(y[j]) ? 0 : INFINITY)
                                        : fabs(y[j] - want) / (bound * want + FLT_MIN);
        if (std::isnan(ratio)) ratio = INFINITY;               // NaN where a number was due
        if (ratio > v->ratio || (r == 0 && j == 0))
            v->ratio = ratio, v->row = r, v->col = j, v->got = y[j], v->want = want, v->bound = bound;
        if (ratio > worst) worst = ratio;
        sum += y[j];
    }
    if (!std::isnan(d)) {                     // a row that has a softmax adds up to 1
        double off = fabs(sum - 1);
        if (!(off <= bound + (double)len * FLT_MIN)) v->off_wrong = 1, off = std::isnan(off) ? INFINITY : off;
        if (off > v->off) v->off = off;
    }
    v->wrong_rows += worst > 1;
}

// ---- one matrix -------------------------------------------------------------
typedef struct {
    size_t shape[MAX_LIST][2];  // rows, length
    int shapes;
    uint64_t seed;
    double shift;
    int mask;
} options;

// R x L floats from the seed, uniform in [-1, 1), plus the shift; with the
// mask, row r keeps its first r elements and the others are -inf.
static float *make_input(size_t rows, size_t len, const options *o)
{
    size_t n = rows * len;
    float *h = (float *)malloc(n * sizeof(float));
    if (!h) device_fail("out of host memory for the matrix");
    dist_draw(DIST_UNIFORM, o->seed, 0, n, n, h, NULL);
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < len; j++)
            h[r * len + j] = o->mask && j >= r ? -INFINITY : h[r * len + j] + (float)o->shift;
    return h;
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) device_fail("out of host memory for the softmax");
    return p;
}

// The softmax of one matrix, checked, and its line; returns the exit code.
static int run_shape(const device_t *dev, size_t rows, size_t len, const options *o)
{
    size_t n = rows * len, batch = min_size(rows, BATCH), stretch = row_sums(len);
    float *h = make_input(rows, len, o);
    float *y = (float *)host_alloc(n * sizeof(float)), *y7 = (float *)host_alloc(batch * len * sizeof(float));
    float *d_x = (float *)device_alloc(n * sizeof(float), "the matrix");
    float *d_y = (float *)device_alloc(n * sizeof(float), "the softmax");
    float *d_y7 = (float *)device_alloc(batch * len * sizeof(float), "the softmax of the first rows");
    float *d_sums = stretch ? (float *)device_alloc(blocks_for(dev, rows) * stretch * sizeof(float), "the levels") : NULL;
    CUDA_CHECK(cudaMemcpy(d_x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    softmax(dev, d_x, rows, len, d_y, d_sums);
    softmax(dev, d_x, batch, len, d_y7, d_sums);            // the first rows, a batch of their own
    CUDA_CHECK(cudaMemcpy(y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(y7, d_y7, batch * len * sizeof(float), cudaMemcpyDeviceToHost));

    verdict_t v = {};
    for (size_t r = 0; r < rows; r++) check_row(h + r * len, y + r * len, len, r, &v);
    int same = memcmp(y, y7, batch * len * sizeof(float)) == 0;
    int ok = v.wrong_rows == 0 && !v.off_wrong && same;
    char input[96], alone[64];
    if (batch == 1) snprintf(alone, sizeof alone, "row 0 alone");
    else snprintf(alone, sizeof alone, "rows 0 to %zu alone", batch - 1);
    snprintf(input, sizeof input, "uniform in [%g, %g)%s", o->shift - 1, o->shift + 1, o->mask ? ", causal mask" : "");
    printf("11_softmax | %zu x %zu, %s | worst element (row %zu, column %zu): error %.2f of its bound %.1e | "
           "rows add up to 1: %s (worst |sum - 1| %.1e) | %s: %s | %s\n",
           rows, len, input, v.row, v.col, v.ratio, v.bound, v.off_wrong ? "NO" : "yes", v.off, alone,
           same ? "the same bits" : "OTHER BITS", ok ? "OK" : "WRONG");
    if (v.ratio > 1)
        fprintf(stderr, "11_softmax: %zu x %zu: row %zu, element %zu is %.9g, not %.9g (%zu row%s wrong)\n", rows, len,
                v.row, v.col, v.got, v.want, v.wrong_rows, v.wrong_rows == 1 ? "" : "s");
    fflush(stdout);
    free(h), free(y), free(y7);
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_y7));
    if (d_sums) CUDA_CHECK(cudaFree(d_sums));
    return ok ? EXIT_OK : EXIT_WRONG;
}

// ---- the command line -------------------------------------------------------
static void help(const char *argv0)
{
    printf("usage: %s [options]\n"
           "A softmax over every row of an R x L matrix of floats on the GPU, each row's\n"
           "denominator added in step 11's order, so that a row has the same bits in any\n"
           "batch. Every element is checked against a softmax in double on the CPU.\n"
           "  --shape RxL[,RxL...]  the matrices (default 1000x4096); each side a size as\n"
           "                        the steps' --n takes it: 2^16x4K, 7x1000\n"
           "  --seed S              the input's seed (default 1): uniform in [-1, 1)\n"
           "  --shift X             add X to every element (default 0): --shift -100\n"
           "                        makes every element negative\n"
           "  --mask                row r keeps its first r elements, the others are -inf\n"
           "                        (row 0 is all -inf: its softmax is NaN)\n"
           "  --help                this text\n"
           "Exit status: 0 every element right, 1 some wrong, 2 bad usage, 3 a CUDA problem.\n",
           argv0);
}

// "RxL[,RxL...]" into o->shape, or -1 with a reason in why.
static int parse_shapes(const char *s, options *o, char *why, size_t len)
{
    char item[128], err[160];
    for (o->shapes = 0;; s++) {
        if (o->shapes == MAX_LIST) return snprintf(why, len, "--shape: more than %d shapes", MAX_LIST), -1;
        size_t k = strcspn(s, ","), *sh = o->shape[o->shapes];
        char *x;
        snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item ? k : sizeof item - 1), s);
        if (!(x = strpbrk(item, "xX"))) return snprintf(why, len, "--shape: '%s' is not RxL (e.g. 1000x4096)", item), -1;
        *x = '\0';
        if (parse_size(item, &sh[0], err, sizeof err) || parse_size(x + 1, &sh[1], err, sizeof err))
            return snprintf(why, len, "--shape: %s", err), -1;
        if (sh[0] > MAX_N / sh[1]) return snprintf(why, len, "--shape: more than 2^40 elements"), -1;
        o->shapes++;
        s += k;
        if (*s != ',') return 0;
    }
}

// Is argument a, its name (before any '=') `len` long, the option opt?
static int is(const char *a, size_t len, const char *opt) { return strlen(opt) == len && !strncmp(a, opt, len); }

// The options into *o; -1 to go on, else the exit code.
static int parse_options(int argc, char **argv, options *o)
{
    char why[300] = "", *end;
    *o = options{ { { 1000, 4096 } }, 1, 1, 0, 0 };
    for (int i = 1; i < argc && !why[0]; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *val = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
        size_t name = eq ? (size_t)(eq - a) : strlen(a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return help(argv[0]), EXIT_OK;
        if (!strcmp(a, "--mask")) { o->mask = 1; continue; }
        if (!is(a, name, "--shape") && !is(a, name, "--seed") && !is(a, name, "--shift")) {
            snprintf(why, sizeof why, "unknown option '%s'", a);
        } else if (!val) {
            snprintf(why, sizeof why, "%s needs a value", a);
        } else if (is(a, name, "--shape")) {
            parse_shapes(val, o, why, sizeof why);
        } else if (is(a, name, "--seed")) {
            errno = 0;
            o->seed = strtoull(val, &end, 10);
            if (!isdigit((unsigned char)*val) || *end || errno) snprintf(why, sizeof why, "--seed: '%s' is not a whole number", val);
        } else {
            o->shift = strtod(val, &end);
            if (end == val || *end || !std::isfinite(o->shift)) snprintf(why, sizeof why, "--shift: '%s' is not a number", val);
        }
        i += !eq;                             // the value was the next argument
    }
    if (!why[0]) return -1;
    fprintf(stderr, "11_softmax: %s\nTry '%s --help'.\n", why, argv[0]);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    g_step = "11_softmax";
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    device_t dev;
    count_devices();
    open_device_id(&dev, 0);
    for (int s = 0; s < o.shapes; s++) {
        int r = run_shape(&dev, o.shape[s][0], o.shape[s][1], &o);
        if (r > rc) rc = r;
    }
    return rc;
}
