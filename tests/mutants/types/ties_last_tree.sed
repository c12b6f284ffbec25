# ties_last_tree: step 12's argmax tile tree taking the last index of the
# largest key, not the first (the largest index among the lanes that hold it,
# the others dropping out at 0). tests/types.sh must catch it.
s/: LLONG_MAX;          \/\/ smaller keys drop out/: 0;/
s/cg::less<unsigned>()/cg::greater<unsigned>()/g
s/: UINT_MAX, cg::greater/: 0u, cg::greater/
