# from steps/09_multi_gpu.cu
# A broken multi-GPU sum that the GPU tests must catch: step 09, except that
# the last rank never writes its chunk sums. The all-gather hands every rank
# that rank's slots as the harness left them (poisoned), and the total is
# wrong in both builds, on real ranks and on virtual ones.
/^static void local(/,/^}/ s/if (R->L.n == 0)$/if (R->L.n == 0 || R->rank == R->ranks - 1)/
s/\.name = "09_multi_gpu"/.name = "drop_rank"/
