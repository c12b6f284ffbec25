/* order.c: step 08's order of additions, replayed on the CPU.
 *
 * Step 08 fixes the order in which the elements are added by n alone, so
 * that every GPU, grid and block size gives the same bits. This file adds
 * them in that same order, one float addition at a time, so that the GPU's
 * result can be checked bit for bit, not just against a bound. It is the
 * order written down a second time, in plain C:
 *
 *   chunk     the array is cut into chunks of `chunk` elements (the last one
 *             may be shorter). Each is summed as one warp sums it (the GPU
 *             may spread the loads over a block; the additions stay): lane
 *             l (0..31) adds the 4-element vectors l, l + 32, l + 64, ... in
 *             that sequence, each vector as (x + y) + (z + w), elements past
 *             the end read as 0; then the 32 lanes' sums meet in the shuffle-down tree
 *             (lane l += lane l + 16, then + 8, + 4, + 2, + 1; lane 0 ends
 *             with the chunk's sum).
 *   levels    the chunk sums, in chunk order, are summed the same way: cut
 *             into chunks, one sum per chunk, and again, until one value is
 *             left. For n up to chunk that is the first chunk's sum.
 *
 * No multiplication appears, so no fused multiply-add can creep in, and C
 * evaluates float additions in float (FLT_EVAL_METHOD 0 on x86-64 and Arm):
 * each line below rounds exactly as the GPU's FADD does.
 */
#include <stdlib.h>

#include "parts.h"

#define LANES 32

elem_t order_chunk_sum(const elem_t *p, size_t len, size_t chunk)
{
    elem_t lane_sum[LANES];
    size_t per_lane = chunk / ((size_t)4 * LANES);   /* vectors per lane */
    for (size_t lane = 0; lane < LANES; lane++) {
        elem_t sum = 0;
        for (size_t j = 0; j < per_lane; j++) {
            size_t i = 4 * (lane + LANES * j);       /* first element of the vector */
            if (i >= len) break;     /* only zeros left: sum + 0 is sum (never -0: it starts +0) */
            elem_t x = p[i];
            elem_t y = i + 1 < len ? p[i + 1] : 0;
            elem_t z = i + 2 < len ? p[i + 2] : 0;
            elem_t w = i + 3 < len ? p[i + 3] : 0;
            sum += (x + y) + (z + w);
        }
        lane_sum[lane] = sum;
    }
    for (size_t offset = LANES / 2; offset > 0; offset /= 2)    /* the shuffle tree */
        for (size_t lane = 0; lane < offset; lane++)
            lane_sum[lane] += lane_sum[lane + offset];
    return lane_sum[0];
}

/* Chunks are independent, so the CPU's threads may take them in any order. */
void order_chunk_sums(const elem_t *x, size_t len, size_t chunk, elem_t *sums)
{
    long long chunks = (long long)div_up(len, chunk);
    #pragma omp parallel for schedule(static)
    for (long long c = 0; c < chunks; c++) {
        size_t first = (size_t)c * chunk;
        sums[c] = order_chunk_sum(x + first, min_size(chunk, len - first), chunk);
    }
}

/* Level after level, as above. */
elem_t order_combine(const elem_t *sums, size_t m, size_t chunk)
{
    if (m == 1) return sums[0];
    size_t up = div_up(m, chunk);
    elem_t *next = (elem_t *)malloc(up * sizeof *next);
    if (!next) device_fail("out of host memory for the CPU replica of the order");
    order_chunk_sums(sums, m, chunk, next);
    elem_t total = order_combine(next, up, chunk);
    free(next);
    return total;
}

/* x itself is the first level, but for n = 1 the one element still goes
 * through its chunk's additions (-0 comes out +0). */
elem_t order_sum(const elem_t *x, size_t n, size_t chunk)
{
    return n == 1 ? order_chunk_sum(x, 1, chunk) : order_combine(x, n, chunk);
}

/* How many additions one element goes through: in every level, its lane's
 * sequence (one per vector of the lane), the two inside its vector, and the
 * five of the shuffle tree. */
double order_depth(size_t n, size_t chunk)
{
    size_t per_lane = chunk / ((size_t)4 * LANES);
    double per_level = (double)per_lane + 2 + 5;
    double levels = 1;
    for (size_t m = div_up(n, chunk); m > 1; m = div_up(m, chunk)) levels++;
    return levels * per_level;
}
