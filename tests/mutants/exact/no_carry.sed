# (c) The carry between digits dropped: acc_carry keeps each digit's low 32
# bits and passes nothing to the next.
s/carry = (x - digit) >> 32; /carry = 0 * ((x - digit) >> 32);/
