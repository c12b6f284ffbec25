# grid_order: step 08, except that each warp adds the sums of the chunks it
# took into one running value and writes that: which chunk sums share a
# running value, and in which order, now follows the grid. Every run gives the
# same bits and every element is added once (the exact build is right), but
# another --grid or --block gives other bits: only the CPU replica of the
# order can tell (tests/gpu/fixed-order.sh).
/^    first_level(block, in, n, sums, out);/,/^    if (n <= CHUNK) return;/c\
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);\
    size_t warps = (size_t)gridDim.x * warp.meta_group_size();\
    size_t chunks = (n + CHUNK - 1) / CHUNK;\
    size_t first = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();\
    elem_t mine = 0;\
    for (size_t c = first; c < chunks; c += warps) {\
        size_t left = n - c * CHUNK;\
        mine += chunk_sum(warp, in + c * CHUNK, left < CHUNK ? (unsigned)left : CHUNK);\
    }\
    size_t count = warps < chunks ? warps : chunks;      // BUG: one running sum per warp\
    if (warp.thread_rank() == 0 && first < chunks)\
        *(count == 1 ? out : sums + first) = mine;\
    if (count == 1) return;
s|combine(block, sums, (n + CHUNK - 1) / CHUNK, out);|combine(block, sums, count, out);|
