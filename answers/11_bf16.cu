/* 11_bf16.cu: step 11's row sums over rows of bf16, each element made a
 * float as it is loaded and added in step 11's order (chapter 11, exercise 2).
 *
 *     make answers && build/answers/11_bf16 --shape 65536x4096
 *     ./step11 --shape 65536x4096           (the same shape in float, for the time)
 *
 * A __nv_bfloat16 is a float cut to its top 16 bits: the sign, all 8 exponent
 * bits and the top 7 of the 23 mantissa bits. Making one a float again is
 * exact (16 zero bits below it), so a row of bf16 added in float has a CPU
 * replica as exact as step 11's: step 08's order replayed on the floats.
 *
 * What changes from step 11: the loads alone. The order stays step 11's,
 * element for element: lane l still adds elements 4l .. 4l + 3 as
 * (x + y) + (z + w), then 4(l + 32) .. 4(l + 32) + 3, and so on, and chunks,
 * tree and levels are untouched. So a load still brings four elements, now
 * 8 bytes (load4's bf16 overload) where step 11's brings 16. A 16-byte load
 * of eight bf16 would give lane l elements 8l .. 8l + 7, which step 11's
 * order gives to lanes 2l and 2l + 1: another order, with another replica.
 * Each load half as wide, LOADS_IN_FLIGHT is 16, to keep the bytes a lane
 * has in flight (speed only: a lane adds its vectors in the same sequence
 * however many it loads at once).
 *
 * The input: R x L floats drawn from the seed as the harness draws them
 * (--input), rounded to bf16 on the GPU (to nearest, ties to even) into as
 * many copies as the timed runs need to find theirs out of L2. The bf16
 * array is copied back, and every row is checked against the exact sum of its
 * values: the sum's bits must be the CPU replica's, its distance from the
 * exact sum within the worst-case bound of step 08's order (bound.c's
 * error_bound, rigorous), and every run must give the same bits. The line
 * gives the time (the harness's driver: median of the timed runs), GB/s by
 * bytes moved as step 11 counts them (each element read once, now 2 bytes;
 * each row's sum written, 4 bytes), and the worst row's distance from its
 * exact sum, in ulps of the float nearest that sum.
 *
 * Exit 0 every row right, 1 some wrong, 2 bad usage, 3 a CUDA problem.
 * Float only: answers.mk builds no exact (uint32) version.
 *
 * Built with -DSQUARES (answers.mk: 12_rms_rows, chapter 12, exercise 3) it
 * sums each row's squares, RMSNorm's statistic: load4 squares every element
 * as it makes it a float (__fmul_rn: never fused into an add), and the CPU
 * squares the same floats, so the replica and the exact reference are step
 * 11's, applied to the squares. A bf16 has 8 significant bits, so its square
 * (16 bits) is exact in float unless it overflows or underflows.
 *
 * Beside step 11's code: load4 gains an overload for bf16, chunk_sum takes
 * its element type as a parameter (bf16 for a row, float for the levels of
 * sums), the kernels and the launcher take bf16; the rest is new: the input,
 * the check and the command line.
 *
 * Base: steps/11_rows.cu
 * Changed functions: load4, chunk_sum, short_rows_kernel, warp_rows_kernel,
 * long_rows_kernel, launch, reduce.
 */
#ifdef REDUCE_EXACT
#error "11_bf16 sums bf16 in float: it has no exact (uint32) build"
#endif
#ifdef SQUARES
#define NAME "12_rms_rows"      // each row's sum of squares
#else
#define NAME "11_bf16"
#endif

#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_bf16.h>

#include "../common/parts.h"
#include "../common/rows/rows.h"

namespace cg = cooperative_groups;
using bf16 = __nv_bfloat16;

#define CHUNK 4096              // elements a chunk: step 08's, part of the order
#define LANES 32
#define LOADS_IN_FLIGHT 16      // a lane's loads issued before its first add: speed only
                                // (step 11's 8, twice as many for loads half as wide)
#define GROUPS 8                // short rows: row groups a warp loads at once: speed only

// ---- kernels ----------------------------------------------------------------
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

// What a row's element adds: itself, or with SQUARES its square, rounded on
// its own (exact for a bf16 whose square stays in float's normal range).
__device__ float term(float x)
{
#ifdef SQUARES
    return __fmul_rn(x, x);
#else
    return x;
#endif
}

// The same for bf16: four elements, 8 bytes, each made a float by putting its
// 16 bits on top of 16 zero bits (exact: a bf16 is a float's top half), then term().
// ALIGNED: p is 8-byte aligned and len a multiple of 4 (rows of 4k elements).
template <bool ALIGNED>
__device__ elem4_t load4(const bf16 *p, unsigned i, unsigned len)
{
    elem4_t v = { 0, 0, 0, 0 };
    if (ALIGNED || ((size_t)p % 8 == 0 && 4 * i + 4 <= len)) {
        uint2 q = ((const uint2 *)p)[i];     // elements 4i, 4i + 1 in q.x; 4i + 2, 4i + 3 in q.y
        v = { term(__uint_as_float(q.x << 16)), term(__uint_as_float(q.x & 0xffff0000u)),
              term(__uint_as_float(q.y << 16)), term(__uint_as_float(q.y & 0xffff0000u)) };
    } else {
        if (4 * i + 0 < len) v.x = term(__bfloat162float(p[4 * i + 0]));
        if (4 * i + 1 < len) v.y = term(__bfloat162float(p[4 * i + 1]));
        if (4 * i + 2 < len) v.z = term(__bfloat162float(p[4 * i + 2]));
        if (4 * i + 3 < len) v.w = term(__bfloat162float(p[4 * i + 3]));
    }
    return v;
}

// Lanes a row of len takes: 32, or fewer when a row has fewer vectors (4 W >= len).
__host__ __device__ unsigned tile_width(size_t len)
{
    unsigned w = 1;
    while (w < LANES && 4 * w < len) w *= 2;
    return w;
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
// no sum that starts at +0). Valid in lane 0. T: bf16 (a row) or float (sums).
template <bool ALIGNED, typename T>
__device__ elem_t chunk_sum(cg::thread_block_tile<32> warp, const T *p, unsigned len)
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

// Rows of at most 128 elements, one vector a lane: a warp takes 32 / W rows at
// a time, a tile of W lanes each, and loads GROUPS such groups before adding.
template <bool ALIGNED>
__global__ void short_rows_kernel(const bf16 *in, size_t rows, size_t len, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    unsigned W = tile_width(len), lane = warp.thread_rank();
    size_t per_warp = LANES / W, warps = (size_t)gridDim.x * warp.meta_group_size();
    size_t first = ((size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank()) * per_warp;
    for (size_t r0 = first * GROUPS; r0 < rows; r0 += warps * per_warp * GROUPS) {
        elem4_t v[GROUPS];
        #pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            size_t r = r0 + g * per_warp + lane / W;
            bool in_row = r < rows && 4 * (lane % W) < len;
            v[g] = in_row ? load4<ALIGNED>(in + r * len, lane % W, len) : elem4_t{ 0, 0, 0, 0 };
        }
        #pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            size_t r = r0 + g * per_warp + lane / W;
            elem_t sum = 0;
            sum += (v[g].x + v[g].y) + (v[g].z + v[g].w);
            sum = tile_tree(warp, W, sum);
            if (lane % W == 0 && r < rows) out[r] = sum;
        }
    }
}

// Rows of 129 to CHUNK elements, one chunk: warp w sums rows w, w + warps, ...
template <bool ALIGNED>
__global__ void warp_rows_kernel(const bf16 *in, size_t rows, size_t len, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    size_t warps = (size_t)gridDim.x * warp.meta_group_size();
    for (size_t r = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank(); r < rows; r += warps) {
        elem_t s = chunk_sum<ALIGNED>(warp, in + r * len, len);
        if (warp.thread_rank() == 0) out[r] = s;
    }
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

// Longer rows, in parts of one chunk a warp: block b takes part b, then the
// next part not yet taken, drawn from a queue while it sums the one it has.
// Part u is part u % parts of row u / parts, so a row's combine runs while
// the next rows stream. A row's chunk sums go to its own stretch of sums; the
// last of its parts to finish (step 08's ticket) combines them.
template <bool ALIGNED>
__global__ void long_rows_kernel(const bf16 *in, size_t rows, size_t len, size_t parts,
                                 elem_t *sums, size_t row_sums, unsigned *tickets, elem_t *out)
{
    __shared__ bool is_last;
    __shared__ unsigned queued;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t chunks = (len + CHUNK - 1) / CHUNK;
    unsigned *queue = tickets + rows;         // parts drawn past the first gridDim.x
    for (size_t u = blockIdx.x; u < rows * parts;) {
        unsigned drawn = 0;
        if (block.thread_rank() == 0) drawn = atomicAdd(queue, 1);   // the next part, while this one is summed
        size_t row = u / parts, c = u % parts * warp.meta_group_size() + warp.meta_group_rank();
        elem_t *level = sums + row * row_sums;
        if (c < chunks) {
            size_t left = len - c * CHUNK;
            elem_t s = chunk_sum<ALIGNED>(warp, in + row * len + c * CHUNK, left < CHUNK ? left : CHUNK);
            store_sum(warp, level, c, chunks, s);
        }
        if (block.thread_rank() == 0) queued = drawn;
        block.sync();                         // every chunk sum of this part is written
        if (block.thread_rank() == 0) {       // the row's ticket: releases this part's sums, acquires the rest
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(tickets[row]);
            is_last = parts == 1 || done.fetch_add(1, cuda::memory_order_acq_rel) == parts - 1;
            if (is_last && parts > 1)
                tickets[row] = 0;             // every part has drawn: ready for the next launch
            if (drawn == rows * parts - 1) *queue = 0;   // the last draw: ready for the next launch
        }
        block.sync();                         // share is_last and queued
        u = gridDim.x + queued;
        if (is_last) combine_row(block, level, chunks, out + row);
        block.sync();                         // both read by all before the next part sets them
    }
}

// ---- launcher ---------------------------------------------------------------
#define SHORT_ROWS (4 * LANES)  // rows up to one vector a lane: short_rows_kernel

// Parts a long row is cut into: one chunk a warp.
static size_t parts_of(const rows_launch_t *L) { return div_up(div_up(L->len, CHUNK), L->block / LANES); }

// A long row's stretch of sums: every level with more than one, each 16-byte aligned.
static size_t row_sums(size_t len)
{
    size_t elems = 0;
    for (size_t m = div_up(len, CHUNK); m > 1; m = div_up(m, CHUNK)) elems += div_up(m, 4) * 4;
    return elems;
}

static const void *kernel_of(const rows_launch_t *L)     // L->len's, for the occupancy
{
    bool a = L->len % 4 == 0;
    if (L->len <= SHORT_ROWS) return a ? (const void *)short_rows_kernel<true> : (const void *)short_rows_kernel<false>;
    if (L->len <= CHUNK) return a ? (const void *)warp_rows_kernel<true> : (const void *)warp_rows_kernel<false>;
    return a ? (const void *)long_rows_kernel<true> : (const void *)long_rows_kernel<false>;
}

// As many blocks as fit on the GPU at once, no more than there is work for.
static size_t grid_size(const rows_launch_t *L)
{
    int per_sm = 0;
    size_t warps = L->block / LANES, needed;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of(L), L->block, 0));
    if (L->len <= SHORT_ROWS) needed = div_up(L->rows, warps * (LANES / tile_width(L->len)) * GROUPS);
    else if (L->len <= CHUNK) needed = div_up(L->rows, warps);
    else needed = L->rows * parts_of(L);
    return min_size((size_t)per_sm * L->sm_count, needed);
}

// Long rows only: their sums, and a ticket a row.
static size_t scratch_size(const rows_launch_t *L) { return L->len <= CHUNK ? 0 : L->rows * row_sums(L->len) * sizeof(elem_t); }
static size_t state_size(const rows_launch_t *L) { return L->len <= CHUNK ? 0 : (L->rows + 1) * sizeof(unsigned); }

template <bool ALIGNED>
static void launch(const bf16 *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
{
    if (L->len <= SHORT_ROWS)
        short_rows_kernel<ALIGNED><<<L->grid, L->block, 0, stream>>>(d_in, L->rows, L->len, d_out);
    else if (L->len <= CHUNK)
        warp_rows_kernel<ALIGNED><<<L->grid, L->block, 0, stream>>>(d_in, L->rows, L->len, d_out);
    else
        long_rows_kernel<ALIGNED><<<L->grid, L->block, 0, stream>>>(d_in, L->rows, L->len, parts_of(L),
                                                                    (elem_t *)L->scratch, row_sums(L->len),
                                                                    (unsigned *)L->state, d_out);
}

static void reduce(const bf16 *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
{
    if (L->len % 4 == 0) launch<true>(d_in, d_out, L, stream);
    else launch<false>(d_in, d_out, L, stream);
    CUDA_CHECK(cudaGetLastError());
}

// ---- the input: the harness's floats, rounded to bf16 on the GPU --------------
__global__ void to_bf16_kernel(const float *in, size_t n, bf16 *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = __float2bfloat16_rn(in[i]);          // to nearest, ties to even
}

typedef struct {
    size_t shape[MAX_LIST][2];  // rows, length
    int shapes;
    uint64_t seed;
    dist_t input;
    int csv;                    // --csv: one CSV row a shape instead of the line
    options_t run;              // what the harness's driver reads: reps, check_only
} options;

typedef struct {
    rows_launch_t L;
    bf16 *d_in;                 // `copies` copies of the matrix, `stride` bytes apart
    size_t stride;
    elem_t *d_sums[2];          // the checked run's row sums; every later run's
    size_t scratch_bytes, state_bytes;
    work_t work;
} plan_t;

// Before every run: the scratch and the run's row sums poisoned (every byte 0xFF, a NaN).
static void poison(void *ctx, int slot)
{
    plan_t *p = (plan_t *)ctx;
    cudaStream_t s = p->work.stream[0];
    if (p->scratch_bytes) CUDA_CHECK(cudaMemsetAsync(p->L.scratch, POISON, p->scratch_bytes, s));
    CUDA_CHECK(cudaMemsetAsync(p->d_sums[slot > 0], POISON, p->L.rows * sizeof(elem_t), s));
}

static void run_once(void *ctx, int slot, int copy)
{
    plan_t *p = (plan_t *)ctx;
    reduce((const bf16 *)((const char *)p->d_in + copy * p->stride), p->d_sums[slot > 0], &p->L, p->work.stream[0]);
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) device_fail("out of host memory for the matrix");
    return p;
}

// The GPU's bf16 matrix (every copy) and memory; returns the matrix's values
// as floats, on the CPU: those of the GPU's copy 0, made floats exactly.
static float *set_up(plan_t *p, const device_t *dev, size_t rows, size_t len, const options *o)
{
    size_t n = rows * len;
    p->L = rows_launch_t{ rows, len, 512, 0, dev->id, dev->sm_count, NULL, NULL };    // step 11's block
    p->L.grid = (int)checked_grid(grid_size(&p->L), 0, n, p->L.block, 0, dev);
    p->stride = div_up(n * sizeof(bf16), 256) * 256;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    p->work = work_t{ .ctx = p, .count = 1, .stream = { stream }, .device = { dev->id },
                      .copies = input_copies(&o->run, p->stride + rows * sizeof(elem_t), dev->l2_bytes),
                      .prepare = poison, .run = run_once };
    float *h = (float *)host_alloc(n * sizeof(float));
    dist_draw(o->input, o->seed, 0, n, n, h, NULL);
    float *d_f = (float *)device_alloc(n * sizeof(float), "the matrix as floats");
    uint16_t *bits = (uint16_t *)host_alloc(n * sizeof(bf16));
    p->d_in = (bf16 *)device_alloc((size_t)p->work.copies * p->stride, "the matrix");
    CUDA_CHECK(cudaMemcpyAsync(d_f, h, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    for (int c = 0; c < p->work.copies; c++)
        to_bf16_kernel<<<(unsigned)min_size(div_up(n, 256), 4096), 256, 0, stream>>>(
            d_f, n, (bf16 *)((char *)p->d_in + c * p->stride));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(bits, p->d_in, n * sizeof(bf16), cudaMemcpyDeviceToHost, stream));
    sync_or_fail(stream, "in to_bf16_kernel");
    CUDA_CHECK(cudaFree(d_f));
    for (size_t i = 0; i < n; i++) {
        uint32_t b = (uint32_t)bits[i] << 16;            // the bf16 on top of 16 zero bits
        memcpy(&h[i], &b, sizeof b);
#ifdef SQUARES
        h[i] = h[i] * h[i];                              // as term() does: one rounding
#endif
    }
    free(bits);
    p->scratch_bytes = scratch_size(&p->L);
    p->state_bytes = state_size(&p->L);
    p->L.scratch = p->scratch_bytes ? device_alloc(p->scratch_bytes, "the scratch") : NULL;
    p->L.state = p->state_bytes ? device_alloc(p->state_bytes, "the tickets") : NULL;
    for (int s = 0; s < 2; s++) p->d_sums[s] = (elem_t *)device_alloc(rows * sizeof(elem_t), "the row sums");
    if (p->L.state) CUDA_CHECK(cudaMemsetAsync(p->L.state, 0, p->state_bytes, stream));
    return h;
}

// ---- the check ------------------------------------------------------------------
typedef struct {
    size_t wrong, first_wrong;  // rows wrong; the first of them
    size_t worst_row;           // the most ulps from its exact sum
    double worst_ulps, worst_exact, worst_error, worst_bound;
    double median_ulps;         // over the rows
    int replica_equal, runs_equal;
} verdict_t;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

// Every row of x against got (the checked run) and again (the last run, if any).
static void check_rows(const float *x, size_t rows, size_t len, const elem_t *got, const elem_t *again,
                       verdict_t *v)
{
    *v = verdict_t{ 0, rows, 0, -1, 0, 0, 0, 0, 1, 1 };
    double *ulps_of = (double *)host_alloc(rows * sizeof(double));
    for (size_t r = 0; r < rows; r++) {
        const float *row = x + r * len;
        exact_sum_t acc;
        exact_init(&acc);
        exact_add_floats(&acc, row, len);
        double abs_sum = exact_abs_sum(&acc), bound = error_bound(order_depth(len, CHUNK), abs_sum, 1);
        double error = exact_error(&acc, got[r]), ulps = ulp_distance(got[r], exact_round(&acc));
        int replica = same_bits(got[r], order_sum(row, len, CHUNK)), runs = !again || same_bits(again[r], got[r]);
        int ok = replica && runs && (fabs(error) <= bound || !(abs_sum + bound < FLT_MAX));   // (partial sums
        v->replica_equal &= replica;                                                      // may overflow)
        v->runs_equal &= runs;
        if (!ok && v->wrong++ == 0) v->first_wrong = r;
        if (ulps > v->worst_ulps)
            v->worst_ulps = ulps, v->worst_row = r, v->worst_exact = exact_to_double(&acc), v->worst_error = error,
            v->worst_bound = bound;
        ulps_of[r] = ulps;
    }
    qsort(ulps_of, rows, sizeof *ulps_of, compare_double);
    v->median_ulps = ulps_of[rows / 2];
    free(ulps_of);
}

// ---- one matrix -------------------------------------------------------------
static int run_shape(const device_t *dev, size_t rows, size_t len, const options *o)
{
    plan_t p;
    float *x = set_up(&p, dev, rows, len, o);
    timing_t t;
    measure(&p.work, &o->run, &t);
    elem_t *got = (elem_t *)host_alloc(2 * rows * sizeof(elem_t)), *again = t.runs > 1 ? got + rows : NULL;
    CUDA_CHECK(cudaMemcpy(got, p.d_sums[0], rows * sizeof(elem_t), cudaMemcpyDeviceToHost));
    if (again) CUDA_CHECK(cudaMemcpy(again, p.d_sums[1], rows * sizeof(elem_t), cudaMemcpyDeviceToHost));
    verdict_t v;
    check_rows(x, rows, len, got, again, &v);
    size_t left = 0;                          // step 11's tickets and queue: left at zero for the next launch?
    if (p.L.state) {
        unsigned *tickets = (unsigned *)host_alloc(p.state_bytes);
        CUDA_CHECK(cudaMemcpy(tickets, p.L.state, p.state_bytes, cudaMemcpyDeviceToHost));
        for (size_t r = 0; r < p.state_bytes / sizeof(unsigned); r++) left += tickets[r] != 0;
        free(tickets);
    }
    double bytes = 2.0 * rows * len + 4.0 * rows, gbps = t.reps ? bytes / (t.median_us * 1e3) : 0;
    char timing[160] = "not timed";
    if (t.reps)
        snprintf(timing, sizeof timing, "median %.2f us, min %.2f us | %.0f GB/s, %.1f%% of peak", t.median_us,
                 t.min_us, gbps, dev->peak_gbps > 0 ? 100 * gbps / dev->peak_gbps : 0.0);
    if (o->csv)
        printf(NAME ",%s,%zu,%zu,%s,%llu,%d,%.3f,%.3f,%.1f,%.0f,%.0f,%.3g,%s,%s\n", dev->name, rows, len,
               dist_info[o->input].name, (unsigned long long)o->seed, t.reps, t.median_us, t.min_us, gbps,
               v.median_ulps, v.worst_ulps, v.worst_error, v.replica_equal ? "equal" : "different",
               v.wrong || left ? "WRONG" : "OK");
    else
        printf(NAME " | %zu x %zu bf16, %s (%.2f GB) | %s | ulps from the exact sum: median %.0f, most %.0f "
               "(row %zu, exact sum %.2e, error %.1e, bound %.1e) | every row the CPU replica's bits: %s, the same "
               "bits every run: %s (%d run%s) | %s\n", rows, len, dist_info[o->input].name, 2.0 * rows * len / 1e9,
               timing, v.median_ulps, v.worst_ulps, v.worst_row, v.worst_exact, v.worst_error, v.worst_bound,
               v.replica_equal ? "yes" : "NO", v.runs_equal ? "yes" : "NO", t.runs, t.runs == 1 ? "" : "s",
               v.wrong || left ? "WRONG" : "OK");
    if (left) fprintf(stderr, NAME ": %zu x %zu: %zu tickets or the queue left changed\n", rows, len, left);
    if (v.wrong)
        fprintf(stderr, NAME ": %zu x %zu: row %zu gave %.9g, the replica of the order %.9g; %zu row%s wrong\n",
                rows, len, v.first_wrong, (double)got[v.first_wrong],
                (double)order_sum(x + v.first_wrong * len, len, CHUNK), v.wrong, v.wrong == 1 ? "" : "s");
    fflush(stdout);
    free(x), free(got);
    CUDA_CHECK(cudaFree(p.d_in));
    for (int s = 0; s < 2; s++) CUDA_CHECK(cudaFree(p.d_sums[s]));
    if (p.L.scratch) CUDA_CHECK(cudaFree(p.L.scratch));
    if (p.L.state) CUDA_CHECK(cudaFree(p.L.state));
    CUDA_CHECK(cudaStreamDestroy(p.work.stream[0]));
    return v.wrong || left ? EXIT_WRONG : EXIT_OK;
}

// ---- the command line -------------------------------------------------------
static void help(const char *argv0)
{
    printf("usage: %s [options]\n"
           "Step 11's row sums over an R x L matrix of bf16, each element made a float as it\n"
           "is loaded and added in step 11's order. Every row is checked against the exact\n"
           "sum of its bf16 values and the CPU replica of the order; the line gives the time.\n"
           "  --shape RxL[,RxL...]  the matrices (default 65536x4096); each side a size as\n"
           "                        the steps' --n takes it: 2^16x4K, 7x1000\n"
           "  --seed S              the input's seed (default 1)\n"
           "  --input NAME          the floats drawn, then rounded to bf16 (default uniform):\n", argv0);
    for (int d = 0; d < DIST_COUNT; d++) printf("                          %-8s %s\n", dist_info[d].name, dist_info[d].line);
    printf("  --reps R              timed runs after the warm-up (default %d, fewer if one\n"
           "                        run takes over 0.1 s)\n"
           "  --check-only          one run, checked, not timed\n"
           "  --csv                 a CSV header, then one row a shape (results/<gpu>/bf16_rows.csv)\n"
           "  --help                this text\n"
           "Exit status: 0 every row right, 1 some wrong, 2 bad usage, 3 a CUDA problem.\n", DEFAULT_REPS);
#ifdef SQUARES
    printf("Built with -DSQUARES (%s): each row's sum of squares, RMSNorm's statistic.\n", NAME);
#endif
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

// One option that takes a value, into *o, or a reason in why.
static void set_option(const char *a, size_t name, const char *val, options *o, char *why, size_t len)
{
    char err[200];
    uint64_t v;
    int d;
    if (is(a, name, "--shape")) {
        parse_shapes(val, o, why, len);
    } else if (is(a, name, "--seed")) {
        char *end;
        errno = 0;
        o->seed = strtoull(val, &end, 10);
        if (!isdigit((unsigned char)*val) || *end || errno) snprintf(why, len, "--seed: '%s' is not a whole number", val);
    } else if (is(a, name, "--input")) {
        if ((d = dist_parse(val, err, sizeof err)) < 0) snprintf(why, len, "--input: %s", err);
        else o->input = (dist_t)d;
    } else if (parse_count(val, MAX_REPS, &v, err, sizeof err)) {      // --reps
        snprintf(why, len, "--reps: %s", err);
    } else {
        o->run.reps = (int)v;
    }
}

// The options into *o; -1 to go on, else the exit code.
static int parse_options(int argc, char **argv, options *o)
{
    char why[300] = "";
    *o = options{};
    o->shape[0][0] = 65536, o->shape[0][1] = 4096, o->shapes = 1, o->seed = 1, o->input = DIST_UNIFORM;
    for (int i = 1; i < argc && !why[0]; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *val = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
        size_t name = eq ? (size_t)(eq - a) : strlen(a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return help(argv[0]), EXIT_OK;
        if (!strcmp(a, "--check-only")) { o->run.check_only = 1; continue; }
        if (!strcmp(a, "--csv")) { o->csv = 1; continue; }
        if (!is(a, name, "--shape") && !is(a, name, "--seed") && !is(a, name, "--input") && !is(a, name, "--reps"))
            snprintf(why, sizeof why, "unknown option '%s'", a);
        else if (!val)
            snprintf(why, sizeof why, "%s needs a value", a);
        else
            set_option(a, name, val, o, why, sizeof why);
        i += !eq;                             // the value was the next argument
    }
    if (!why[0]) return -1;
    fprintf(stderr, NAME ": %s\nTry '%s --help'.\n", why, argv[0]);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    g_step = NAME;
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    device_t dev;
    count_devices();
    open_device_id(&dev, 0);
    if (o.csv)
        printf("step,device,rows,len,input,seed,reps,median_us,min_us,gbps,median_ulps,worst_ulps,worst_error,"
               "replica,status\n");
    for (int s = 0; s < o.shapes; s++) {
        int r = run_shape(&dev, o.shape[s][0], o.shape[s][1], &o);
        if (r > rc) rc = r;
    }
    return rc;
}
