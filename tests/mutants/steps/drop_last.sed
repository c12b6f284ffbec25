# drop_last: step 03, except that its launcher hands the kernel n - 1, so the
# last element is never added. The exact (uint32) build must report WRONG at
# every size; the float build only where one element outweighs the rounding
# bound, which is why tests/gpu/mutants.sh runs both.
s|reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n, d_out);|reduce_kernel<<<L->grid, L->block, 0, stream>>>(d_in, L->n - 1, d_out);|
