# double_block: step 03, except that block 0 adds its sum into the total
# twice. The exact (uint32) build must report WRONG at every size.
s|        atomicAdd(out, total);             // one atomic per block|        atomicAdd(out, blockIdx.x == 0 ? total + total : total);|
