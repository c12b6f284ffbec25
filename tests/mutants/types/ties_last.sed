# ties_last: step 12's argmax with ties resolved the other way: the last index
# of the largest, not the first. tests/types.sh must catch it.
s/return a.index < b.index ? a : b;/return a.index > b.index ? a : b;/
