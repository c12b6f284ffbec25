#!/usr/bin/env python3
"""torch_sum.py: what a user would call instead of writing a reduction:
torch.sum and cupy.sum on a float32 CUDA array, timed as the harness times a step.

    python3 bench/torch_sum.py --lib torch --csv --n 1024,1048576 [--reps 200] [--warm]
    python3 bench/torch_sum.py --lib cupy --csv --n 2^28
    (make compare runs it for each library that python3 can import)

The same input as the harness's (element i for seed s is common/data.c's
hash, k / 2^23 with k in [-2^23, 2^23)), drawn on the CPU with NumPy and
copied to the GPU; the same timing: a checked run and a warm-up on copy 0,
then --reps runs, each between two CUDA events, each reading the next of
min(ceil(3 L2 / bytes), reps) copies of the input (one with --warm), queued
in batches of 16 behind a kernel that spins until the batch is queued (a
batch whose runs did not follow each other on the GPU is timed again with a
longer spin); the median and the least. The exact sum is the float64 sum of
the input on the GPU (exact: every partial sum is a multiple of 2^-23 below
2^28, within float64's 53 bits), the bound the harness's for an unknown
order. One CSV row per size, in the harness's columns, step "torch.sum" or
"cupy.sum". If NumPy or the library cannot be imported, or the library
cannot run a sum here (no GPU it can use; for CuPy, no NVRTC to compile its
kernels): one SKIP line on stderr, no rows, exit 0. Nothing is downloaded.
The libraries are wrapped in bench/array_libs.py, with the input's hash.
"""
import argparse
import importlib
import math
import sys

from lib import parse_n

HEADER = ("step,technique,elem,device,n,bytes,seed,block,grid,reps,runs,median_us,min_us,gbps,pct_peak,"
          "sum,reference,error,bound,status,deterministic,distinct,spread_ulp,l2,replica,gpus,depth")
BATCH = 16


def cycles_per_us(lib):
    a, b = lib.event(), lib.event()
    a.record()
    lib.spin(2e6)
    b.record()
    lib.sync()
    return 2e6 / lib.elapsed_us(a, b)


def timed(lib, xs, reps, rate, op=None, keep=None):
    """reps runs of op (lib.sum) on the copies xs, the runs queued behind a spin: their
    device times (µs), and keep(kept, batch) of their results (all of them, as floats)."""
    op = op or lib.sum
    keep = keep or (lambda kept, got: kept + [float(g) for g in got])
    us, kept, gate_us, r = [], [], 2000.0, 0
    while r < reps:
        m = min(BATCH, reps - r)
        start, stop = [lib.event() for _ in range(m)], [lib.event() for _ in range(m)]
        gate_end = lib.event()
        lib.spin(gate_us * rate)                  # the batch is queued before the GPU starts it
        gate_end.record()
        got = []
        for j in range(m):
            start[j].record()
            got.append(op(xs[(r + j + 1) % len(xs)]))
            stop[j].record()
        lib.sync()
        t = [lib.elapsed_us(start[j], stop[j]) for j in range(m)]
        if lib.elapsed_us(gate_end, stop[-1]) > 1.5 * sum(t) + 50 and gate_us < 1e5:
            gate_us *= 4                          # the host fell behind the GPU: again, longer
            continue
        us += t
        kept = keep(kept, got)
        r += m
    return us, kept


def ulp_order(f, struct):
    i = struct.unpack("<i", struct.pack("<f", f))[0]
    return -(1 << 31) - i if i < 0 else i


def row(lib, n, seed, reps, warm, peak, base):
    import struct
    x0 = base[:n]
    copies = 1 if warm else min(math.ceil(3 * lib.l2 / (4 * n)), reps)
    xs = [x0] + [x0.clone() if lib.name == "torch" else x0.copy() for _ in range(copies - 1)]
    ref, abs_sum = lib.exact(x0)
    first = [float(lib.sum(x0)) for _ in range(2)]          # the checked run and the warm-up
    us, results = timed(lib, xs, reps, cycles_per_us(lib))
    results = first + results
    depth = n + 2                                            # an unknown order: the worst
    u = 2.0 ** -24
    bound = math.expm1(10 * math.sqrt(depth) * u + depth * u * u / (1 - u)) * abs_sum
    error = max(abs(s - ref) if math.isfinite(s) else math.inf for s in results)
    ok = error <= bound
    bits = sorted({struct.pack("<f", s) for s in results})
    spread = max(results) - min(results)
    spread_ulp = abs(ulp_order(max(results), struct) - ulp_order(min(results), struct)) if spread == spread else math.inf
    us.sort()
    median = us[reps // 2] if reps % 2 else 0.5 * (us[reps // 2 - 1] + us[reps // 2])
    gbps = 4 * n / (median * 1e-6) / 1e9
    tech = f"{lib.name}.sum on a float32 CUDA array ({lib.name} {lib.version})"
    return (f'{lib.name}.sum,"{tech}",float,"{lib.device}",{n},{4 * n},{seed},0,0,{reps},{len(results)},'
            f"{median:.3f},{us[0]:.3f},{gbps:.1f},{100 * gbps / peak if peak else 0:.2f},{results[0]:.9g},"
            f"{ref:.17g},{error:.3g},{bound:.3g},{'OK' if ok else 'WRONG'},no,{len(bits)},{spread_ulp:.0f},"
            f"{'warm' if warm else 'cold'},-,1,{depth}")


def main():
    ap = argparse.ArgumentParser(description="torch.sum or cupy.sum, timed as the harness times a step")
    ap.add_argument("--lib", choices=["torch", "cupy"], required=True)
    ap.add_argument("--n", default="2^28")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--csv", action="store_true", help="(always CSV; accepted as the harness's programs do)")
    ap.add_argument("--peak-gbps", type=float, default=0.0, help="nominal peak, for pct_peak")
    a = ap.parse_args()
    sizes = [parse_n(t) for t in a.n.split(",")]
    try:
        np = importlib.import_module("numpy")
        from array_libs import Lib, draw
        lib = Lib(a.lib)
        lib.try_out()
    except Exception as e:                                   # not installed, no GPU for it, no NVRTC
        print(f"SKIP {a.lib}.sum: python3 cannot use {a.lib} here ({type(e).__name__}: {e})"[:300],
              file=sys.stderr)
        return 0
    big = max(sizes)
    base = lib.empty(big)
    step = 1 << 22
    for first in range(0, big, step):                        # drawn in slices, copied as they come
        base[first:first + min(step, big - first)] = lib.upload(draw(a.seed, first, min(step, big - first), np))
    print(HEADER)
    for n in sizes:
        print(row(lib, n, a.seed, a.reps, a.warm, a.peak_gbps, base), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
