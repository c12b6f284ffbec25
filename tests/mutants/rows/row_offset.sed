# Rows started at the wrong offset: row r read from r * (L rounded down to a
# multiple of 4), as if every row were 16-byte aligned. Right whenever L is a
# multiple of 4; wrong for every other L (the tests run L = 4097).
s/in + r \* len/in + r * (len \& ~(size_t)3)/g
s/in + row \* len + c \* CHUNK/in + row * (len \& ~(size_t)3) + c * CHUNK/
