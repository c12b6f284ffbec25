# A group past the end of the array padded with +0 instead of -0: a sum of
# -0s comes out +0.
s/^#define PAD (-0.0f)/#define PAD (0.0f)/
