/* ticket_per_chunk.cu: step 11 with long rows summed by warps alone, a ticket a chunk (lost).
 *
 *     nvcc -O3 -std=c++20 -arch=native -o tpc lab/rows/ticket_per_chunk.cu \
 *          build/float/*.o build/float/inputs/*.o build/float/rows/rows.o -lgomp
 *     ./tpc --shape 1x2^28,16x2^24 --reps 10      (after make step11)
 *
 * Rows longer than 128 elements are chunks counted along the rows; warp w of
 * the grid sums chunks w, w + warps, ..., as step 08's warps do along one
 * array. A row of several chunks is summed level by level in groups of 4096
 * sums, each group by the warp that draws its last ticket. Same order, same
 * bits as steps/11_rows.cu (tests/rows.sh passed on it), but every warp waits
 * for a fence and an atomic after every chunk: see README.md in this folder.
 */
#include <cooperative_groups.h>

#include "../../common/rows/rows.h"

namespace cg = cooperative_groups;

#define CHUNK 4096              // elements a chunk: step 08's, part of the order
#define LANES 32
#define LOADS_IN_FLIGHT 8       // a lane's loads issued before its first add: speed only
#define GROUPS 4                // short rows: row groups a warp loads at once: speed only

// ---- kernels ----------------------------------------------------------------
// [begin tile_sum]
// Vector i (elements 4i .. 4i + 3, i < (len + 3) / 4) of p[0..len), zeros past
// len. ALIGNED: p is 16-byte aligned and what follows p[len - 1] in its 16
// bytes is zeros (rows of a multiple of 4 elements; the levels of sums, which
// are padded so), so one 16-byte load always. Otherwise one where p happens
// to be aligned and the vector whole, else four 4-byte loads. Speed only:
// ALIGNED needs fewer registers, so more warps fit on a multiprocessor.
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

// Step 08's chunk sum of p[0..len), len <= CHUNK, by a warp: lane l adds
// vectors l, l + 32, ... in sequence, each as (x + y) + (z + w); vectors past
// the end are zeros (adding +0 changes no sum: one that starts at +0 is
// never -0). Valid in lane 0.
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
// Rows of at most 128 elements, one vector a lane: a warp takes 32 / W rows
// at a time, a tile of W lanes each, and loads GROUPS such groups of rows
// before it adds any.
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

// [begin long_rows]
// Longer rows, as chunks: warp w of the grid sums chunks w, w + warps, ...
// counted along the rows (chunk q is chunk q % chunks of row q / chunks), as
// step 08's warps do along one array. A row of one chunk is then summed. A
// longer row's chunk sums are summed as step 08's levels are, in groups of
// CHUNK, each group by the warp that finishes it last: a ticket a group (step
// 06's), and so up the levels until one sum is left.
template <bool ALIGNED>
__global__ void long_rows_kernel(const elem_t *in, size_t rows, size_t len, elem_t *sums,
                                 size_t row_sums, unsigned *tickets, size_t row_tickets, elem_t *out)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    size_t chunks = (len + CHUNK - 1) / CHUNK, warps = (size_t)gridDim.x * warp.meta_group_size();
    size_t first = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    for (size_t q = first; q < rows * chunks; q += warps) {
        size_t row = q / chunks, c = q % chunks, m = chunks;    // sum c of a level of m
        const elem_t *p = in + row * len + c * CHUNK;
        size_t n = len - c * CHUNK < CHUNK ? len - c * CHUNK : CHUNK;
        elem_t *level = sums + row * row_sums;              // this row's levels of sums
        unsigned *ticket = tickets + row * row_tickets;     // and their groups' tickets
        for (;;) {
            elem_t s = chunk_sum<ALIGNED>(warp, p, n);
            if (m == 1) {                                   // the row's sum
                if (warp.thread_rank() == 0) out[row] = s;
                break;
            }
            size_t group = c / CHUNK, up = (m + CHUNK - 1) / CHUNK;
            n = m - group * CHUNK < CHUNK ? m - group * CHUNK : CHUNK;
            int last = 0;
            if (warp.thread_rank() == 0) {
                level[c] = s;
                for (size_t pad = m; c == m - 1 && pad % 4; pad++)
                    level[pad] = 0;                         // the level's last vector: zeros past m
                __threadfence();                            // release: the sum before the ticket
                last = atomicAdd(&ticket[group], 1) == n - 1;
                if (last) {
                    __threadfence();                        // acquire: the ticket before the sums
                    ticket[group] = 0;                      // all drawn: ready for the next launch
                }
            }
            warp.sync();                                    // lane 0's acquire before the others read
            if (!warp.shfl(last, 0)) break;                 // another warp sums this group
            p = level + group * CHUNK;                      // this warp does: one level up
            level += (m + 3) / 4 * 4;                       // (each level 16-byte aligned)
            ticket += up;
            c = group;
            m = up;
        }
    }
}
// [end long_rows]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
#define SHORT_ROWS (4 * LANES)  // rows up to one vector a lane go to short_rows_kernel

static size_t chunks_of(size_t len) { return div_up(len, CHUNK); }

// A long row's sums (every level with more than one, each 16-byte aligned) and tickets (a group each).
static size_t row_sums(size_t len)
{
    size_t elems = 0;
    for (size_t m = chunks_of(len); m > 1; m = div_up(m, CHUNK)) elems += div_up(m, 4) * 4;
    return elems;
}

static size_t row_tickets(size_t len)
{
    size_t groups = 0;
    for (size_t m = chunks_of(len); m > 1; m = div_up(m, CHUNK)) groups += div_up(m, CHUNK);
    return groups;
}

// The kernel for L->len, as a pointer: its ALIGNED form when rows start 16 bytes apart.
typedef void (*rows_kernel_t)(const elem_t *, size_t, size_t, elem_t *, size_t, unsigned *, size_t, elem_t *);
static void *kernel_of(const rows_launch_t *L)
{
    bool aligned = L->len % 4 == 0;
    if (L->len <= SHORT_ROWS) return aligned ? (void *)short_rows_kernel<true> : (void *)short_rows_kernel<false>;
    return aligned ? (void *)long_rows_kernel<true> : (void *)long_rows_kernel<false>;
}

// As many blocks as fit on the GPU at once, no more than there is work for.
static size_t grid_size(const rows_launch_t *L)
{
    int per_sm = 0;
    size_t warps = L->block / LANES;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of(L), L->block, 0));
    size_t needed = L->len <= SHORT_ROWS ? div_up(L->rows, warps * (LANES / tile_width(L->len)) * GROUPS)
                                         : div_up(L->rows * chunks_of(L->len), warps);
    return min_size((size_t)per_sm * L->sm_count, needed);
}

static size_t scratch_size(const rows_launch_t *L)
{
    return L->len <= SHORT_ROWS ? 0 : L->rows * row_sums(L->len) * sizeof(elem_t);
}

static size_t state_size(const rows_launch_t *L)
{
    return L->len <= SHORT_ROWS ? 0 : L->rows * row_tickets(L->len) * sizeof(unsigned);
}

static void reduce(const elem_t *d_in, elem_t *d_out, const rows_launch_t *L, cudaStream_t stream)
{
    void *kernel = kernel_of(L);
    if (L->len <= SHORT_ROWS)
        ((void (*)(const elem_t *, size_t, size_t, elem_t *))kernel)<<<L->grid, L->block, 0, stream>>>(
            d_in, L->rows, L->len, d_out);
    else
        ((rows_kernel_t)kernel)<<<L->grid, L->block, 0, stream>>>(d_in, L->rows, L->len, (elem_t *)L->scratch,
                                                                 row_sums(L->len), (unsigned *)L->state,
                                                                 row_tickets(L->len), d_out);
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
