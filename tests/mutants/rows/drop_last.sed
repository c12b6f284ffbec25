# Every row one element short: the last element of each row is never read
# (a length passed as len - 1 where the row is handed to its tile or warp).
s/load4(in + r \* len, lane % W, len)/load4(in + r * len, lane % W, len - 1)/
s/tile_sum(warp, W, in + r \* len, len, r < rows)/tile_sum(warp, W, in + r * len, len - 1, r < rows)/
s/in + row \* len + c \* CHUNK, left < CHUNK ? left : CHUNK, true);$/in + row * len + c * CHUNK, left <= CHUNK ? left - 1 : CHUNK, true);/
