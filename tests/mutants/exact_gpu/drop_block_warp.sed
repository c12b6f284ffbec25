# One block's accumulator dropped on the GPU: block 0's warp adds only its
# count (so the others do not wait for it), not its words, so its share of
# the array is missing from the sum.
s/x = atomicAdd(&state->words\[i\]\[0\], add) + add;/x = atomicAdd(\&state->words[i][0], blockIdx.x != 0 ? add : one) + add;/
