"""exact_timeline.py: step 10 with the GPU's timer stamped in the kernel
(lab/exact-tail/README.md). exact_timeline.sh runs it; by hand:

    python3 lab/exact-tail/exact_timeline.py make SRC DEST
                                    copies of the step in SRC (a copy of steps/,
                                    or a variant's directory) into
                                    DEST/timeline{,_lo}/
    python3 lab/exact-tail/exact_timeline.py table FILE...   what the stamps say

Lane 0 of every warp writes %globaltimer when the warp starts (t0), when its
last group's loads are all in (t1: after a value that needs every one of
them) and when that group is in its digits (t2); thread 0 of every block
after the block's words (t4) and after the blocks' meeting (t5); the last
block after the rounding (t6). Launch 8 prints launch 7's stamps (each
launch writes one of two slots), so the stamps are of a timed launch, L2
cold. timeline_lo is the same with each group's arithmetic left out (its
bits added as integers, as exact_variants.sh's loads_only): wrong
sums, the same loads and ending."""
import os, statistics, sys

PROBE = r'''
#ifdef __CUDACC__
struct tl_warp { unsigned long long t0, t1, t2; unsigned block, warp; };
struct tl_block { unsigned long long t4, t5, t6; };
__device__ tl_warp tl_w[2][65536];
__device__ tl_block tl_b[2][8192];
__device__ unsigned tl_launch;
__device__ __forceinline__ unsigned long long tl_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory");
    return t;
}
#endif
'''

LOADS_ONLY = '''        unsigned x = 0;
        UNROLL
        for (int k = 0; k < GROUP_VECTORS; k++)
            x ^= bits_of(v[k].x) + bits_of(v[k].y) + bits_of(v[k].z) + bits_of(v[k].w);
        d[0] += x;
        (void)stride;
        flags |= SAW_NOT_NEG_ZERO;'''


def replace(text, old, new, where):
    if old not in text:
        sys.exit("exact_timeline: %s no longer has the code to stamp:\n%s" % (where, old))
    return text.replace(old, new, 1)


def stamp_step(s):
    """The kernel's stamps: the block's words, the meeting, the rounding, and the print."""
    s = replace(s, "    extern __shared__ long long digits[];          // DIGITS per thread: see digits_bytes\n",
                "    extern __shared__ long long digits[];          // DIGITS per thread: see digits_bytes\n"
                "    unsigned tl_slot = tl_launch & 1, tl_wid = (blockIdx.x * blockDim.x + threadIdx.x) / 32;\n"
                "    if (threadIdx.x % 32 == 0)\n"
                "        tl_w[tl_slot][tl_wid] = { tl_now(), 0, 0, blockIdx.x, threadIdx.x / 32 };\n",
                "10_exact.cu")
    s = replace(s, "    block_words(block, digits, tile_flags, words);\n    block.sync();\n",
                "    block_words(block, digits, tile_flags, words);\n    block.sync();\n"
                "    if (threadIdx.x == 0) tl_b[tl_slot][blockIdx.x].t4 = tl_now();\n", "10_exact.cu")
    old_meet = ("    if (gridDim.x > 1 && !combine_warp(tile, state, &w, gridDim.x))\n"
                "        return;                                    // not the last block\n")
    new_meet = ("        if (!combine_warp(tile, state, &w, gridDim.x))\n"
                "            return;                                // not the last block\n")
    if old_meet in s:                          # the ticket, as the step had it
        s = s.replace(old_meet, "    bool tl_last = gridDim.x == 1 || combine_warp(tile, state, &w, gridDim.x);\n"
                      "    if (i == 0) tl_b[tl_slot][blockIdx.x].t5 = tl_now();\n"
                      "    if (!tl_last)\n        return;\n", 1)
    else:
        s = replace(s, new_meet, "        bool tl_last = combine_warp(tile, state, &w, gridDim.x);\n"
                    "        if (i == 0) tl_b[tl_slot][blockIdx.x].t5 = tl_now();\n"
                    "        if (!tl_last)\n            return;\n", "10_exact.cu")
    s = replace(s, "    if (i == 0)\n        *out = float_of(bits);\n",
                "    if (i == 0)\n        *out = float_of(bits);\n"
                "    if (i == 0) {\n"
                "        tl_b[tl_slot][blockIdx.x].t6 = tl_now();\n"
                "        if (tl_launch == 8 && !rank_words && gridDim.x <= 8192 && gridDim.x * blockDim.x <= 65536 * 32) {\n"
                "            unsigned p = 1 - tl_slot, warps = gridDim.x * blockDim.x / 32;\n"
                "            printf(\"TLN,%llu,%u,%u\\n\", (unsigned long long)n, gridDim.x, blockDim.x);\n"
                "            for (unsigned k = 0; k < warps; k++)\n"
                "                printf(\"TLW,%u,%u,%llu,%llu,%llu\\n\", tl_w[p][k].block, tl_w[p][k].warp,\n"
                "                       tl_w[p][k].t0, tl_w[p][k].t1, tl_w[p][k].t2);\n"
                "            for (unsigned b = 0; b < gridDim.x; b++)\n"
                "                printf(\"TLB,%u,%llu,%llu,%llu\\n\", b, tl_b[p][b].t4, tl_b[p][b].t5, tl_b[p][b].t6);\n"
                "        }\n"
                "        tl_launch++;\n"
                "    }\n", "10_exact.cu")
    return s


def make(src, dest):
    files = ("10_exact.cu", "exact_acc.cuh", "exact_digits.cuh", "exact_group.cuh", "exact_meet.cuh")
    for name, loads_only in (("timeline", False), ("timeline_lo", True)):
        d = os.path.join(dest, name)
        os.makedirs(d, exist_ok=True)
        text = {f: open(os.path.join(src, f)).read() for f in files}
        g = replace(text["exact_group.cuh"], "// ---- 4. a thread's share", PROBE + "// ---- 4. a thread's share",
                    "exact_group.cuh")
        g = replace(g, "        acc_add_group(d, stride, v, &flags);\n    }\n    return flags;", '''#ifdef __CUDA_ARCH__
        bool last = 4 * (i + GROUP_VECTORS * threads) >= n;
        unsigned slot = tl_launch & 1, wid = (unsigned)(rank / 32);
        if (last && rank % 32 == 0) {           // the stamp waits for every load of the group
            unsigned fold = 0;
            UNROLL
            for (int k = 0; k < GROUP_VECTORS; k++)
                fold ^= bits_of(v[k].x) ^ bits_of(v[k].y) ^ bits_of(v[k].z) ^ bits_of(v[k].w);
            if (fold != 0x12345679u) tl_w[slot][wid].t1 = tl_now();
        }
#endif
''' + (LOADS_ONLY if loads_only else "        acc_add_group(d, stride, v, &flags);") + '''
#ifdef __CUDA_ARCH__
        if (last && rank % 32 == 0 && d[0] != 0x123456789ll)   // after the group's digits
            tl_w[slot][wid].t2 = tl_now();
#endif
    }
    return flags;''', "exact_group.cuh")
        s = stamp_step(text["10_exact.cu"])
        text["10_exact.cu"], text["exact_group.cuh"] = s, g
        for f, t in text.items():
            p = os.path.join(d, f)
            if not os.path.exists(p) or open(p).read() != t:
                open(p, "w").write(t)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def table(paths):
    print("%-34s %6s %9s %9s %9s %9s %9s %9s %9s" % ("file", "grid", "t1 p50", "t1 max", "t2-t1",
                                                     "t2 max", "words", "meet", "rounded"))
    for path in paths:
        W, B, N = [], {}, None
        for line in open(path):
            f = line.strip().split(",")
            if f[0] == "TLN": N = f[1:]
            elif f[0] == "TLW": W.append([int(x) for x in f[1:]])
            elif f[0] == "TLB": B[int(f[1])] = [int(x) for x in f[2:]]
        if not W or not B:
            print("%-34s no stamps (run with --reps 20 or more, one size a run)" % path)
            continue
        T0 = min(w[2] for w in W)
        t1 = [w[3] - T0 for w in W if w[3]]
        t2 = [w[4] - T0 for w in W if w[4]]
        d12 = [w[4] - w[3] for w in W if w[3] and w[4]]
        last = max(B, key=lambda b: B[b][2])
        t4, t5, t6 = (x - T0 if x else 0 for x in B[last])
        us = lambda x: "%9.2f" % (x / 1e3)
        print("%-34s %6s" % (path[-34:], N[1]) + us(pct(t1, .5)) + us(max(t1)) + us(statistics.median(d12)) +
              us(max(t2)) + us(t4) + us(t5) + us(t6))
    print("\nmicroseconds from the first warp's start: t1, a warp's last group's loads all in (the median "
          "warp's, the last warp's); t2-t1, the median warp's last group from its loads to its digits; t2 max, "
          "the last warp's; then the last block: its words (t4), the blocks met (t5), the sum rounded (t6)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(sys.argv[2:])
    else:
        sys.exit(__doc__)
