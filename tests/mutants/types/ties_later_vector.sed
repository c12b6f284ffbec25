# ties_later_vector: step 12's argmax entering its search on an equal key too,
# so that within a thread a later vector of the same largest key replaces the
# earlier: the last such index, not the first. tests/types.sh must catch it.
s/if (best > acc.key || acc.index == LLONG_MAX)/if (best >= acc.key)/
