// adds3: acc_add as the step had it before, three +=: the compiler must assume
// a write may change the next digit, so each read waits for the write before it.
// (exact_variants.sh puts this in place of a block of step 10's accumulator)
HOST_DEVICE void acc_add(long long *d, int stride, long long s, int p)
{
    int q = p >> 5, r = p & 31;
    unsigned long long low = (unsigned long long)s << r;   // bits 0..63 of s * 2^r
    d[q * stride] += (unsigned)low;
    d[(q + 1) * stride] += (unsigned)(low >> 32);
    d[(q + 2) * stride] += ((s >> 32) << r) >> 32;        // bits 64..95, with the sign
}
