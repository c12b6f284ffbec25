# A wrong reference the tests must catch: exact_round truncates instead of
# rounding to nearest (tests/tests.mk builds it into build/tests/).
/^static uint64_t round_bits(/,/^}/ s/^    if (mode == NEAREST_EVEN ? half/    if (mode == NEAREST_EVEN) half = sticky = 0;\n&/
