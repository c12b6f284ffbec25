# (c) The carry between digits dropped: acc_carry cuts each digit to 32 bits
# and passes nothing to the next.
s/carry = x >> 32;  /carry = 0 * (x >> 32);/
