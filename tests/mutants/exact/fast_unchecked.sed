# (a) The fast path without its exactness check: every finite group that is
# not all zero is summed in one go, though its exponents span more than 24
# and the double (or the 64-bit integer) rounds or overflows.
s/return e_lo > 0 \&\& e_hi - e_lo <= 24 ? GROUP_EXACT : GROUP_WIDE;/return e_lo > 0 || e_hi - e_lo <= 24 || 1 ? GROUP_EXACT : GROUP_WIDE;/
