# (b) Truncation instead of round to nearest, ties to even: the bits below the
# 24 kept are dropped, whatever they are.
s/bool up = \(rest > half.*\);$/bool up = false \&\& (\1);/
