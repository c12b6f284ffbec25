# identity_search: step 12's argmax without its search over the identity: a
# thread whose vectors hold only the lowest key (int32 INT32_MIN) keeps the
# identity's index. tests/types.sh must catch it (an array of INT32_MIN).
s/if (best > acc.key || acc.index == LLONG_MAX)/if (best > acc.key)/
