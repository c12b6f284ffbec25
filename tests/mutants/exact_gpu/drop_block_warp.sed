# One block's accumulator dropped on the GPU: block 0's warp adds zero words
# (its count still goes in, so the others do not wait for it), so its share
# of the array is missing from the sum.
s/x = word_add(&state->words\[i\]\[0\], \*w);/x = word_add(\&state->words[i][0], blockIdx.x != 0 ? *w : 0);/
