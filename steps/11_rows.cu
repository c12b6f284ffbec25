/* 11_rows.cu: a sum for every row of a matrix, each row's bits fixed by its length alone.
 *
 *     make step11 && ./step11 --shape 65536x4096
 *
 * Changed since 08: many sums at once. The input is R rows of L floats and
 * the result is R sums, as in a softmax's denominators, a norm per row or a
 * loss per sample. Who sums a row is chosen from L, so that every shape keeps
 * the whole GPU busy:
 *
 *   L <= 128       several rows a warp: a tile of W = 1, 2, ..., 32 lanes a row
 *   L <= 4096      a warp a row (one chunk: step 08's chunk sum)
 *   longer rows    the row's chunks spread over blocks (a queue of parts), one
 *                  chunk a warp; the row's last block (step 08's ticket, one a
 *                  row) combines its chunk sums, as step 08's last block does
 *
 * Whoever takes it, row r is added in step 08's order for n = L: chunks of
 * 4096 from the row's start, lane l adding vectors l, l + 32, ... of a chunk,
 * the lanes meeting in a fixed shuffle tree, the chunk sums summed the same
 * way. So a row's bits depend on L alone: not on R, on the other rows in the
 * batch, on the grid, the block or the GPU. The harness replays step 08's
 * order on every row (common/order.c) and requires its bits.
 *
 * Each kernel comes in two forms, in the same order: ALIGNED when L is a
 * multiple of 4 (every row starts 16 bytes apart), and one for any L (load4).
 *
 * Base: steps/08_fixed_order.cu
 * Changed functions: chunk_sum, grid_size, reduce.
 */
#include <cooperative_groups.h>
#include <cuda/atomic>

#include "../common/rows/rows.h"

namespace cg = cooperative_groups;

#define CHUNK 4096              // elements a chunk: step 08's, part of the order
#define LANES 32
#define LOADS_IN_FLIGHT 8       // a lane's loads issued before its first add: speed only
#define GROUPS 8                // short rows: row groups a warp loads at once: speed only

// ---- kernels ----------------------------------------------------------------
// [begin tile_sum]
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
// [end tile_sum]

// [begin short_rows]
// Rows of at most 128 elements, one vector a lane: a warp takes 32 / W rows at
// a time, a tile of W lanes each, and loads GROUPS such groups before adding.
template <bool ALIGNED>
__global__ void short_rows_kernel(const elem_t *in, size_t rows, size_t len, elem_t *out)
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
// [end short_rows]

// [begin warp_rows]
// Rows of 129 to CHUNK elements, one chunk: warp w sums rows w, w + warps, ...
template <bool ALIGNED>
__global__ void warp_rows_kernel(const elem_t *in, size_t rows, size_t len, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    size_t warps = (size_t)gridDim.x * warp.meta_group_size();
    for (size_t r = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank(); r < rows; r += warps) {
        elem_t s = chunk_sum<ALIGNED>(warp, in + r * len, len);
        if (warp.thread_rank() == 0) out[r] = s;
    }
}
// [end warp_rows]

// [begin long_rows]
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

// Longer rows, in parts of one chunk a warp. Block b takes part b, then the
// next part not yet taken, drawn from a queue while it sums the one it has:
// a multiprocessor that finishes early takes more. Part u is part u % parts of
// row u / parts, so a row's combine runs while the next rows stream; the last
// of a row's parts to finish (step 08's ticket) combines its chunk sums.
template <bool ALIGNED>
__global__ void long_rows_kernel(const elem_t *in, size_t rows, size_t len, size_t parts,
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
// [end long_rows]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
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

// Long rows only: their sums, a ticket a row and the queue.
static size_t scratch_size(const rows_launch_t *L) { return L->len <= CHUNK ? 0 : L->rows * row_sums(L->len) * sizeof(elem_t); }
static size_t state_size(const rows_launch_t *L) { return L->len <= CHUNK ? 0 : (L->rows + 1) * sizeof(unsigned); }

template <bool ALIGNED>
static void launch(const elem_t *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
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

static void reduce(const elem_t *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
{
    if (L->len % 4 == 0) launch<true>(d_in, d_out, L, stream);
    else launch<false>(d_in, d_out, L, stream);
    CUDA_CHECK(cudaGetLastError());
}
// [end launcher]

// ---- step -------------------------------------------------------------------
static const rows_step_t step = {
    .name = "11_rows",
    .technique = "a sum a row: tiles, warps or blocks by L; step 08's order per row",
    .deterministic = 1,
    .combine = COMBINE_FIXED_ORDER,
    .chunk = CHUNK,
    .block_rule = BLOCK_POW2,
    .default_block = 512,
    .grid_size = grid_size,
    .scratch_size = scratch_size,
    .state_size = state_size,
    .reduce = reduce,
};

int main(int argc, char **argv) { return run_rows(argc, argv, &step); }
