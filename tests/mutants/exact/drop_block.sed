# (d) One block's accumulator dropped: the block whose add brings word 0's
# count to one short of the grid takes the grid's words, before the last
# block's have arrived.
s/if (word_count(x\[0\]) != blocks)/if (word_count(x[0]) != blocks - 1)/
