# (d) One block's accumulator dropped: the block with the second-to-last
# ticket takes the grid's words, before the last block's have arrived.
s/if (ticket(&state->blocks_done) != blocks - 1)/if (ticket(\&state->blocks_done) != blocks - 2)/
