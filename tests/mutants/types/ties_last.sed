# ties_last: step 12's argmax with ties resolved the other way: the last index
# of the largest, not the first. tests/types.sh must catch it.
s/(a.index < b.index ? a : b)/(a.index > b.index ? a : b)/
