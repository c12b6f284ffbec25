# The rounding loses what lies below the window: where next's two low bits
# are 0, the digits under it decide which way a near-tie goes; without them
# a sum just above or below a halfway point rounds as if it were on it.
s/int f = (next \& 3) ? 1 : (low > 0) - (low < 0);/int f = (next \& 3) ? 1 : 0;/
