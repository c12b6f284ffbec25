# (b) Truncation instead of round to nearest, ties to even: the bits below the
# 24 kept are cleared before the conversion, which is then exact.
s/bits_of((float)m)/bits_of((float)(m \& ~0ull << (40 - __builtin_clzll(m))))/
