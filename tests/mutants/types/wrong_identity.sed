# wrong_identity: step 12 with 0 as the identity of max (the key of +0 for a
# float) and of argmax's key, instead of the lowest key: an array of
# negatives then gets 0, or argmax an index past the end. tests/types.sh must
# catch it.
s/return MAX ? INT_MIN : INT_MAX;/return MAX ? 0 : INT_MAX;/
s/return { INT_MIN, LLONG_MAX };/return { 0, LLONG_MAX };/
