/* one_block.cuh: what steps 05, 06 and 07 choose from n, in one place.
 *
 * Included by those steps (and the answers built on them) after they define
 * LOADS_IN_FLIGHT; chapter 05 explains it. The three steps differ in how they
 * combine the blocks' sums, which is their lesson; what they do when there is
 * nothing to combine, and how many threads a block gets, is the same in all
 * three, so it is written once, here.
 *
 * When one block covers n in one round of loads, there is nothing to combine
 * across blocks: one_block_kernel sums n and writes the total in one launch,
 * as CUB does for an input of one tile.
 */
#ifndef LOADS_IN_FLIGHT
#error "define LOADS_IN_FLIGHT before including one_block.cuh"
#endif

// [begin one_block]
// The whole sum when one block covers n in one round of loads: thread_sum and
// the including step's block_sum for a grid of one block (the same bits), in
// a kernel of its own with 32-bit indices, which measured faster
// (results/NOTES.md).
__global__ void one_block_kernel(const elem_t *in, unsigned n, elem_t *out)
{
    cg::thread_block block = cg::this_thread_block();
    const elem4_t *in4 = (const elem4_t *)in;
    unsigned n4 = n / 4, t = block.thread_rank(), size = block.size();
    elem4_t v[LOADS_IN_FLIGHT];
    #pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; k++)             // every load guarded, all in flight
        v[k] = t + k * size < n4 ? in4[t + k * size] : elem4_t{};
    elem_t sum = 0;
    #pragma unroll
    for (int k = 0; k < LOADS_IN_FLIGHT; k++)
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    if (t < n - n4 * 4)                                   // the last n % 4 elements
        sum += in[n4 * 4 + t];
    sum = block_sum(block, sum);
    if (t == 0)
        *out = sum;
}
// [end one_block]

// Sums n with one_block_kernel when the launch is one block that covers n in
// one round, and says so; otherwise launches nothing and returns 0, and the
// step launches its own kernels.
static int one_block_sum(const elem_t *d_in, elem_t *d_out, const launch_t *L, cudaStream_t stream)
{
    if (L->grid != 1 || L->n > (size_t)L->block * 4 * LOADS_IN_FLIGHT)
        return 0;
    one_block_kernel<<<1, L->block, 0, stream>>>(d_in, (unsigned)L->n, d_out);
    CUDA_CHECK(cudaGetLastError());
    return 1;
}

// Threads per block from n, as CUB's tuning does: 256 while one block of
// them covers n in a round, 512, then 1024 once every multiprocessor gets a
// block of 1024 full rounds (half the partials; see results/NOTES.md).
static int block_size(const launch_t *L)
{
    size_t round = 4 * LOADS_IN_FLIGHT;                   // elements per thread per round
    if (L->n <= 256 * round) return 256;
    return L->n >= 1024 * round * L->sm_count ? 1024 : 512;
}
