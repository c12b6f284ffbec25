/* 11_rows.cu: a sum for every row of a matrix, each row's bits fixed by its length alone.
 *
 *     make step11 && ./step11 --shape 65536x4096
 *
 * Changed since 08: many sums at once. The input is R rows of L floats and
 * the result is R sums, as in a softmax's denominators, a norm per row or a
 * loss per sample. Who sums a row is chosen from L, so that every shape keeps
 * the whole GPU busy:
 *
 *   L <= 64        several rows a warp: a tile of W = 1, 2, ..., 16 lanes a row
 *   L <= 4096      a warp a row (one chunk: step 08's chunk sum)
 *   longer rows    the row's chunks spread over blocks, one chunk a warp; the
 *                  row's last block to finish (step 06's ticket, one per row)
 *                  combines its chunk sums, as step 08's last block does
 *
 * Whoever takes it, row r is added in step 08's order for n = L: chunks of
 * 4096 from the row's start, lane l adding vectors l, l + 32, ... of a chunk,
 * the lanes meeting in a fixed shuffle tree, the chunk sums summed the same
 * way. So a row's bits depend on L alone: not on R, on the other rows in the
 * batch, on the grid, the block or the GPU. The harness replays step 08's
 * order on every row (common/order.c) and requires its bits.
 *
 * Rows that do not start 16 bytes apart (L not a multiple of 4) are read one
 * element at a time, in the same order.
 *
 * Base: steps/08_fixed_order.cu
 * Changed functions: grid_size, reduce, scratch_size.
 */
#include <cooperative_groups.h>

#include "../common/rows/rows.h"

namespace cg = cooperative_groups;

#define CHUNK 4096              // elements a chunk: step 08's, part of the order
#define LANES 32
#define LOADS_IN_FLIGHT 8       // a lane's loads issued before its first add: speed only
#define GROUPS 4                // short rows: row groups a warp loads at once: speed only

// ---- kernels ----------------------------------------------------------------
// [begin tile_sum]
// Vector i (elements 4i .. 4i + 3) of the row p[0..len), zeros past len: one
// 16-byte load where p is 16-byte aligned and the vector whole.
__device__ elem4_t load4(const elem_t *p, size_t i, size_t len)
{
    if ((size_t)p % 16 == 0 && 4 * i + 4 <= len) return ((const elem4_t *)p)[i];
    elem4_t v = { 0, 0, 0, 0 };
    if (4 * i + 0 < len) v.x = p[4 * i + 0];
    if (4 * i + 1 < len) v.y = p[4 * i + 1];
    if (4 * i + 2 < len) v.z = p[4 * i + 2];
    if (4 * i + 3 < len) v.w = p[4 * i + 3];
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

// The sum of p[0..len), len <= CHUNK, in step 08's chunk order, by a tile of
// W lanes (W < 32 only when len <= 4 W): lane s adds vectors s, s + 32, ...
// in sequence, each as (x + y) + (z + w). Vectors past the end are zeros, as
// in step 08 (adding +0 changes no sum: one that starts at +0 is never -0).
__device__ elem_t tile_sum(cg::thread_block_tile<32> warp, unsigned W, const elem_t *p, size_t len,
                           bool active)
{
    size_t s = warp.thread_rank() % W, vectors = active ? (len + 3) / 4 : 0;
    elem_t sum = 0;
    for (size_t j = s; j < vectors; j += LANES * LOADS_IN_FLIGHT) {
        elem4_t v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = j + LANES * k < vectors ? load4(p, j + LANES * k, len) : elem4_t{ 0, 0, 0, 0 };
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    return tile_tree(warp, W, sum);
}
// [end tile_sum]

// [begin short_rows]
// Rows of one chunk (len <= CHUNK): each warp takes 32 / W rows at a time, a
// tile of W lanes each, and its next rows GROUPS groups later. Rows of at
// most 128 elements (one vector a lane) load GROUPS groups before adding any.
__global__ void short_rows_kernel(const elem_t *in, size_t rows, size_t len, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    unsigned W = tile_width(len), lane = warp.thread_rank();
    size_t per_warp = LANES / W, warps = (size_t)gridDim.x * warp.meta_group_size();
    size_t first = ((size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank()) * per_warp;
    for (size_t r0 = first * GROUPS; r0 < rows; r0 += warps * per_warp * GROUPS) {
        elem_t sum[GROUPS];
        if (len <= 4 * LANES) {
            elem4_t v[GROUPS];
            #pragma unroll
            for (int g = 0; g < GROUPS; g++) {
                size_t r = r0 + g * per_warp + lane / W;
                v[g] = r < rows ? load4(in + r * len, lane % W, len) : elem4_t{ 0, 0, 0, 0 };
            }
            #pragma unroll
            for (int g = 0; g < GROUPS; g++) {
                sum[g] = 0;
                sum[g] += (v[g].x + v[g].y) + (v[g].z + v[g].w);
                sum[g] = tile_tree(warp, W, sum[g]);
            }
        } else {
            for (int g = 0; g < GROUPS; g++) {
                size_t r = r0 + g * per_warp + lane / W;
                sum[g] = tile_sum(warp, W, in + r * len, len, r < rows);
            }
        }
        for (int g = 0; g < GROUPS; g++) {
            size_t r = r0 + g * per_warp + lane / W;
            if (lane % W == 0 && r < rows) out[r] = sum[g];
        }
    }
}
// [end short_rows]

// [begin long_rows]
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
            elem_t s = tile_sum(warp, LANES, level + c * CHUNK, left < CHUNK ? left : CHUNK, true);
            if (warp.thread_rank() == 0) *(up == 1 ? out : next + c) = s;
        }
        block.sync();                         // this level is written: the next may read it
        level = next;
    }
}

// Rows longer than a chunk, cut into parts of one chunk a warp: block b of
// the grid takes parts b, b + gridDim.x, ... (part u is row u / parts). A
// row's chunk sums go to its own stretch of sums; the last of its parts to
// finish combines them.
__global__ void long_rows_kernel(const elem_t *in, size_t rows, size_t len, size_t parts,
                                 elem_t *sums, size_t row_sums, unsigned *tickets, elem_t *out)
{
    __shared__ bool is_last;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t chunks = (len + CHUNK - 1) / CHUNK;
    for (size_t u = blockIdx.x; u < rows * parts; u += gridDim.x) {
        size_t row = u / parts, c = u % parts * warp.meta_group_size() + warp.meta_group_rank();
        elem_t *level = sums + row * row_sums;
        if (c < chunks) {
            size_t left = len - c * CHUNK;
            elem_t s = tile_sum(warp, LANES, in + row * len + c * CHUNK, left < CHUNK ? left : CHUNK, true);
            if (warp.thread_rank() == 0) level[c] = s;
        }
        if (parts > 1)
            __threadfence();                  // release: this part's chunk sums before its ticket
        block.sync();
        if (block.thread_rank() == 0) {
            is_last = parts == 1 || atomicAdd(&tickets[row], 1) == parts - 1;
            if (is_last && parts > 1) {
                __threadfence();              // acquire: the tickets before the chunk sums
                tickets[row] = 0;             // every part has drawn: ready for the next launch
            }
        }
        block.sync();                         // share is_last
        if (is_last) combine_row(block, level, chunks, out + row);
        block.sync();                         // is_last read by all before the next part sets it
    }
}
// [end long_rows]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
static size_t chunks_of(size_t len) { return div_up(len, CHUNK); }

// Parts a long row is cut into: one chunk a warp.
static size_t parts_of(const rows_launch_t *L) { return div_up(chunks_of(L->len), L->block / LANES); }

// A long row's stretch of sums: every level with more than one, each 16-byte aligned.
static size_t row_sums(size_t len)
{
    size_t elems = 0;
    for (size_t m = chunks_of(len); m > 1; m = div_up(m, CHUNK)) elems += div_up(m, 4) * 4;
    return elems;
}

// As many blocks as fit on the GPU at once, no more than there is work for.
static size_t grid_size(const rows_launch_t *L)
{
    int per_sm = 0;
    bool short_rows = L->len <= CHUNK;
    if (short_rows)
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, short_rows_kernel, L->block, 0));
    else
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, long_rows_kernel, L->block, 0));
    size_t rows_a_block = (size_t)L->block / LANES * (LANES / tile_width(L->len)) * GROUPS;
    size_t needed = short_rows ? div_up(L->rows, rows_a_block) : L->rows * parts_of(L);
    return min_size((size_t)per_sm * L->sm_count, needed);
}

static size_t scratch_size(const rows_launch_t *L)
{
    return L->len <= CHUNK ? 0 : L->rows * row_sums(L->len) * sizeof(elem_t);
}

static size_t state_size(const rows_launch_t *L)
{
    return L->len <= CHUNK ? 0 : L->rows * sizeof(unsigned);    // a ticket a row
}

static void reduce(const elem_t *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
{
    if (L->len <= CHUNK)
        short_rows_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->rows, L->len, d_out);
    else
        long_rows_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->rows, L->len, parts_of(L),
                                                           (elem_t *)L->scratch, row_sums(L->len),
                                                           (unsigned *)L->state, d_out);
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
