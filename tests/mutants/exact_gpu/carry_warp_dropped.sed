# The carry between words dropped on the GPU: warp 0's carry rounds keep each
# digit's low 32 bits and pass nothing up (the CPU tests cannot see this: the
# warp's carries run on the GPU only). Block words are sums over a block's
# threads, wider than 32 bits, so most sums come out wrong.
s/d = i >= DIGITS ? d : i == 0 ? digit : digit + up;/d = i >= DIGITS ? d : digit + 0 * up;/
