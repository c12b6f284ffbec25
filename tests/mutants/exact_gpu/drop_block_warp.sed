# One block's accumulator dropped on the GPU: block 0's warp sends none of its
# words to the grid's, so its share of the array is missing from the sum.
s/if (i < WORDS \&\& \*w != 0)$/if (i < WORDS \&\& *w != 0 \&\& blockIdx.x != 0)/
