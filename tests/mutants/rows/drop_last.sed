# Every row one element short: the last element of each row is never read
# (a length passed as len - 1 where the row is handed to its tile or warp).
s/load4<ALIGNED>(in + r \* len, lane % W, len)/load4<ALIGNED>(in + r * len, lane % W, len - 1)/
s/chunk_sum<ALIGNED>(warp, in + r \* len, len)/chunk_sum<ALIGNED>(warp, in + r * len, len - 1)/
s/in + row \* len + c \* CHUNK, left < CHUNK ? left : CHUNK);$/in + row * len + c * CHUNK, left <= CHUNK ? left - 1 : CHUNK);/
