# A group past the end of the array padded with +0 instead of -0: a sum of
# -0s comes out +0.
s/elem_t pad = (elem_t)(-0.0f);/elem_t pad = (elem_t)(0.0f);/
