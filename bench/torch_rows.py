#!/usr/bin/env python3
"""torch_rows.py: what a user would call instead of writing step 11:
torch.sum(x, dim=1) and cupy.sum(x, axis=1) on a float32 R x L CUDA matrix,
timed as the rows harness times a step.

    python3 bench/torch_rows.py --lib torch --shape 4096x4096,16x2^20 [--seed 1] [--reps 20] [--csv]
    python3 bench/torch_rows.py --lib torch,cupy --shape 1000x4096 --batch-invariance

The input is the harness's: the array that steps 00-10 sum, read as a
row-major R x L matrix (row r is elements [r L, r L + L)), drawn on the CPU
with NumPy (bench/array_libs.py) and copied to the GPU. The timing is
bench/torch_sum.py's: a checked run and a warm-up, then --reps runs between
CUDA events, each on the next of min(ceil(3 L2 / bytes), reps) copies of the
matrix (one with --warm), queued behind a spin. One CSV row a shape, in the
rows harness's columns.

Every row is checked against its exact sum: the input's elements are k/2^23
with |k| <= 2^23, so every partial sum of a row of up to 2^29 elements is a
multiple of 2^-23 below 2^52 of them, exact in float64. The library's order
is unknown, so the bound is the worst order's: (L-1) 2^-24 sum|x| (Jeannerod
and Rump, 2013: it holds for any order of additions).

--batch-invariance asks another question: does a row's sum depend on which
other rows were summed with it? It sums the first 7 rows alone, as a batch
of 7 and within the whole matrix, and counts the rows whose bits differ.
Then the same with the matrix stored column-major (x.T made contiguous, the
rows summed down its columns with .sum(dim=0)). It runs every library that
--lib names (torch,cupy: both, one after the other); timing takes one.

If NumPy or the library is missing, or cannot run here: one SKIP line on
stderr, no rows, exit 0.
"""
import argparse
import csv
import importlib
import math
import sys

from array_libs import Lib, draw              # the input, the libraries
from lib import parse_n                       # the sizes as the harness reads them
from torch_sum import cycles_per_us, timed     # the same timing

HEADER = ("step,technique,elem,device,rows,len,n,bytes,seed,block,grid,reps,runs,median_us,min_us,gbps,"
          "pct_peak,worst_row,worst_error,worst_bound,rows_wrong,status,deterministic,distinct,replica,input,l2")
STEP = {"torch": "torch.sum(dim=1)", "cupy": "cupy.sum(axis=1)"}
PIP = {"torch": "torch", "cupy": "cupy-cuda13x", "numpy": "numpy"}
KEEP_BYTES = 1 << 30        # every timed run's row sums are kept while they fit in this


def parse_shape(text):
    r, l = text.lower().split("x")
    return parse_n(r), parse_n(l)


def row_sum(lib, x, dim=1):
    return lib.m.sum(x, dim=dim) if lib.name == "torch" else lib.m.sum(x, axis=dim)


def host(lib, a):
    return a.cpu().numpy() if lib.name == "torch" else a.get()


def load(lib, np, seed, R, L):
    """The R x L matrix on the GPU, and each row's exact sum and sum of |x| (float64)."""
    n = R * L
    base = lib.empty(n)
    ref, mag = np.zeros(R), np.zeros(R)
    step = 1 << 22
    for a in range(0, n, step):                   # drawn in slices; a slice may cross rows
        h = draw(seed, a, min(step, n - a), np)
        rows = np.arange(a, a + len(h)) // L
        r0 = a // L
        d = h.astype(np.float64)
        s = np.bincount(rows - r0, weights=d)     # in order, exact: every partial is exact
        ref[r0:r0 + len(s)] += s
        mag[r0:r0 + len(s)] += np.bincount(rows - r0, weights=np.abs(d))
        base[a:a + len(h)] = lib.upload(h)
    return base.reshape(R, L), ref, mag


def row(lib, np, R, L, seed, reps, warm, peak):
    x0, ref, mag = load(lib, np, seed, R, L)
    copies = 1 if warm else min(math.ceil(3 * lib.l2 / (4 * R * L)), reps)
    xs = [x0] + [x0.clone() if lib.name == "torch" else x0.copy() for _ in range(copies - 1)]
    first = [host(lib, row_sum(lib, x0)) for _ in range(2)]    # the checked run and the warm-up
    last = reps if R * reps * 4 <= KEEP_BYTES else 2                # every run's row sums, or the last two
    us, kept = timed(lib, xs, reps, cycles_per_us(lib), lambda x: row_sum(lib, x),
                     lambda kept, got: (kept + [host(lib, g) for g in got])[-last:])

    bound = (L - 1) * 2.0 ** -24 * mag
    error = np.zeros(R)
    for s in [first[0]] + kept:                   # each row's worst error over the runs kept
        e = np.abs(s.astype(np.float64) - ref)
        error = np.maximum(error, np.where(np.isfinite(e), e, np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(bound > 0, error / bound, np.where(error > 0, np.inf, 0.0))
    worst = int(np.argmax(ratio))
    wrong = int(np.count_nonzero(error > bound))
    bits = np.sort(np.stack(kept).view(np.uint32), axis=0)          # runs x rows
    distinct = int((1 + np.count_nonzero(bits[1:] != bits[:-1], axis=0)).max())

    us.sort()
    median = us[reps // 2] if reps % 2 else 0.5 * (us[reps // 2 - 1] + us[reps // 2])
    nbytes = 4 * R * L + 4 * R                    # the matrix read, the row sums written
    gbps = nbytes / median / 1e3
    call = "torch.sum(x, dim=1)" if lib.name == "torch" else "cupy.sum(x, axis=1)"
    return [STEP[lib.name], f"{call} on a float32 CUDA matrix ({lib.name} {lib.version})", "float",
            lib.device, R, L, R * L, nbytes, seed, 0, 0, reps, reps + 2, f"{median:.3f}", f"{us[0]:.3f}",
            f"{gbps:.1f}", f"{100 * gbps / peak if peak else 0:.2f}", worst, f"{error[worst]:.3g}",
            f"{bound[worst]:.3g}", wrong, "OK" if wrong == 0 else "WRONG", "no", distinct, "-", "uniform",
            "warm" if warm else "cold"]


def ulp_order(np, f):
    """float32 bits as integers in the floats' order: neighbours differ by 1."""
    i = f.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(1 << 31) - i, i)


def batch_invariance(lib, np, R, L, seed, out):
    """The first k = min(7, R) rows summed alone, as a batch of k and among all R: per layout,
    how many rows got more than one result, and how many ulps apart at most."""
    x, _, _ = load(lib, np, seed, R, L)
    k = min(7, R)
    c = x.T.contiguous() if lib.name == "torch" else lib.m.ascontiguousarray(x.T)
    layouts = [(lib.name, x, 1, lambda a, b: x[a:b]),                 # row r is x[r]
               (f"{lib.name} x.T", c, 0, lambda a, b: c[:, a:b])]     # row r is column r of c
    for name, whole, dim, rows in layouts:
        alone = np.concatenate([host(lib, row_sum(lib, rows(r, r + 1), dim)) for r in range(k)])
        batch = host(lib, row_sum(lib, rows(0, k), dim))
        full = host(lib, row_sum(lib, whole, dim))[:k]
        o = ulp_order(np, np.stack([alone, batch, full]))           # 3 x k
        differ = int(np.count_nonzero(o.max(axis=0) != o.min(axis=0)))
        out.writerow([name, L, k, f"1;{k};{R}", differ, int((o.max(axis=0) - o.min(axis=0)).max())])


def start(name):
    """The library, ready to run; or None after one SKIP line."""
    try:
        lib = Lib(name)
        lib.try_out()                             # no GPU for it, no NVRTC for CuPy: fail now
        return lib
    except ImportError as e:
        missing = (e.name or name).split(".")[0]
        print(f"SKIP {name}: {'' if missing == name else missing + ' '}not installed "
              f"(pip install {PIP.get(missing, missing)})", file=sys.stderr)
    except Exception as e:
        print(f"SKIP {name}: cannot run here ({type(e).__name__}: {e})"[:300], file=sys.stderr)
    return None


def main():
    ap = argparse.ArgumentParser(description="torch.sum(x, dim=1) or cupy.sum(x, axis=1), timed as the "
                                             "rows harness times a step")
    ap.add_argument("--lib", required=True,
                    help="torch or cupy; with --batch-invariance, several: torch,cupy")
    ap.add_argument("--shape", default="4096x4096", help="RxL[,RxL...]; sides like 2^20, 4096, 1000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--csv", action="store_true", help="(always CSV; accepted as the harness's programs do)")
    ap.add_argument("--peak-gbps", type=float, default=0.0, help="nominal peak, for pct_peak")
    ap.add_argument("--batch-invariance", action="store_true",
                    help="the first 7 rows summed alone, in a batch of 7 and in all R (one shape)")
    a = ap.parse_args()
    names = a.lib.split(",")
    if not names or any(n not in ("torch", "cupy") for n in names) or len(set(names)) != len(names):
        ap.error(f"--lib: torch, cupy or torch,cupy, not {a.lib!r}")
    if len(names) > 1 and not a.batch_invariance:
        ap.error("--lib names one library, except with --batch-invariance")
    shapes = [parse_shape(t) for t in a.shape.split(",")]
    try:
        np = importlib.import_module("numpy")
    except ImportError:
        print(f"SKIP {a.lib}: numpy not installed (pip install numpy)", file=sys.stderr)
        return 0
    out = csv.writer(sys.stdout, lineterminator="\n")
    if a.batch_invariance:
        if len(shapes) != 1:
            ap.error("--batch-invariance takes one shape")
        libs = [lib for lib in map(start, names) if lib]
        if libs:
            print("lib,L,rows_checked,batch_sizes,rows_with_more_than_one_result,max_ulp_apart")
        for lib in libs:
            batch_invariance(lib, np, *shapes[0], a.seed, out)
        return 0
    lib = start(names[0])
    if lib is None:
        return 0
    print(HEADER)
    for R, L in shapes:
        out.writerow(row(lib, np, R, L, a.seed, a.reps, a.warm, a.peak_gbps))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
