# A long row's chunk sums stored in reverse, so its last block combines them
# in another order: every element still counted once (the exact build cannot
# see it), only the CPU replica of the order can.
s/store_sum(warp, level, c, chunks, s);/store_sum(warp, level, chunks - 1 - c, chunks, s);/
