# drop_tail: step 12 without the last element after the last 16-byte vector:
# every pair, at every n whose tail is not empty. tests/types.sh must catch it.
s/if (tail + rank < n)/if (tail + rank + 1 < n)/
