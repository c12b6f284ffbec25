#!/usr/bin/env python3
"""claims.py: what others claimed, tested on this GPU (this is `make claims`).

    python3 lab/claims/claims.py          measure; write results/<gpu>/claims.csv and claims_checks.csv
    python3 lab/claims/claims.py --api    only the compiler's checks of claim C (no GPU needed):
                                     print them, exit 1 if one is not as the claim says

The claims are listed in docs/comparison.md, "What others found, and what we
measure", which reads the two files this writes:
    claims.csv          every timed run: the harness's CSV columns, plus claim
                        (A to D), variant (A: the version; D: the way) and
                        param (A: the row length; B: "grid 1" for one block; D: the
                        tile)
    claims_checks.csv   claim, kind, check, result, detail: what is not a timing (the
                        compiler's verdict on an API, a refused launch, the
                        driver's answer) and numbers that take two timings (a
                        grid.sync()'s cost; each way's time over CG's)
A: batched row sums, CG and plain, tree and shuffles, at n = 2^28 for five row
   lengths; and a cooperative grid one block larger than fits.
B: step 03 with one element per thread (a first lesson's shuffle kernel),
   steps 03, 05 and 07, and the stride bug with the default grid and with one
   block, at 2^20 and 2^24.
C: step 07 against itself with 64 more grid.sync() calls; the multi-device API.
D: tiles of 2 to 32 threads, three ways, at 2^20 and 2^24.
Takes about two minutes on an H100. Only the Python standard library.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))  # bench/lib.py
from lib import ROOT, gpu_turn, progress, run_csv, slug, write_csv  # noqa: E402

C = "./build/claims/"
ROW_N = 2 ** 28
ROW_LENGTHS = [2 ** 10, 2 ** 12, 2 ** 14, 2 ** 16, 2 ** 18]
ROW_PROGRAMS = ["row_sums_cg_tree", "row_sums_plain_tree", "row_sums_cg_shfl", "row_sums_plain_shfl",
                "row_sums_cg_shfl_vec"]
TILES = [2, 4, 8, 16, 32]
WAYS = ["cg", "index", "kernels"]
SMALL_SIZES = "1048576,16777216"          # 2^20 and 2^24
SYNC_SIZES = "1024,16384,131072,1048576,16777216"
CHECK_FIELDS = ["claim", "kind", "check", "result", "detail"]


def plan():
    """(claim, variant, param, command) of every timed run."""
    runs = []
    for prog in ROW_PROGRAMS:
        for length in ROW_LENGTHS:
            runs.append(("A", prog[len("row_sums_"):], str(length),
                         [C + prog, "--n", str(ROW_N), "--grid", str(ROW_N // length)]))
    for prog in ["./step03", "./step05", "./step07", C + "one_per_thread"]:
        runs.append(("B", "", "", [prog, "--n", SMALL_SIZES, "--reps", "100"]))
    runs.append(("B", "", "", ["./build/answers/07_stride_bug", "--n", SMALL_SIZES]))
    runs.append(("B", "", "grid 1", ["./build/answers/07_stride_bug", "--n", SMALL_SIZES, "--grid", "1",
                                       "--reps", "5"]))
    for prog in ["./step07", C + "grid_sync_64"]:
        runs.append(("C", "", "", [prog, "--n", SYNC_SIZES, "--reps", "200"]))
    for way in WAYS:
        for tile in TILES:
            runs.append(("D", way, str(tile), [C + f"subwarp_{way}_{tile}", "--n", SMALL_SIZES, "--reps", "100"]))
    return runs


def measure_timed():
    rows = []
    runs = plan()
    for k, (claim, variant, param, cmd) in enumerate(runs):
        progress(f"[{k + 1}/{len(runs)}] claim {claim}: {' '.join(cmd)}")
        got, _ = run_csv(cmd + ["--csv"], "rows")
        for r in got:
            r.update(claim=claim, variant=variant, param=param)
        rows += got
    return rows


# ---- what is not a timing -------------------------------------------------------
def grid_limit():
    """Claim A: a cooperative grid one block larger than fits is refused."""
    got, note = run_csv(["./step07", "--csv", "--check-only", "--n", str(ROW_N)], "step 07's grid")
    if not got:
        return [dict(claim="A", kind="launch", check="cooperative grid", result="not run", detail=note)]
    fits = int(got[0]["grid"])
    p = subprocess.run(["./step07", "--check-only", "--n", str(ROW_N), "--grid", str(fits + 1)], cwd=ROOT,
                       capture_output=True, text=True)
    why = (p.stderr.strip().splitlines() or [""])[-1]
    result = "refused" if p.returncode == 3 and "CooperativeLaunchTooLarge" in why else f"exit {p.returncode}"
    return [dict(claim="A", kind="launch", check="cooperative grid", result=str(fits), detail="blocks that fit at once"),
            dict(claim="A", kind="launch", check="one block more", result=result, detail=why)]


def probe():
    """Claim C: what the driver here says about the multi-device launch."""
    p = subprocess.run([C + "multi_device"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        return [dict(claim="C", kind="driver", check="driver", result="not run", detail=p.stderr.strip()[-200:])]
    lines = p.stdout.strip().splitlines()[1:]
    out = []
    for line in lines:
        check, result, detail = re.match(r'([^,]*),([^,]*),"?(.*?)"?$', line).groups()
        out.append(dict(claim="C", kind="driver", check="driver " + check, result=result, detail=detail))
    return out


SNIPPETS = [
    ("grid.sync() without -rdc", "compiles",
     "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
     "__global__ void k(int *x) { cg::this_grid().sync(); *x = 1; }\n"
     "int main() { int *x = nullptr; void *a[] = { &x };\n"
     "  return (int)cudaLaunchCooperativeKernel((const void *)k, 1, 1, a, 0, 0); }\n"),
    ("cudaLaunchCooperativeKernelMultiDevice", "does not compile",
     "#include <cuda_runtime.h>\nint main() { return (int)cudaLaunchCooperativeKernelMultiDevice(nullptr, 0, 0); }\n"),
    ("cudaDevAttrCooperativeMultiDeviceLaunch", "does not compile",
     "#include <cuda_runtime.h>\nint main() { return (int)cudaDevAttrCooperativeMultiDeviceLaunch; }\n"),
    ("this_multi_grid().sync()", "does not compile",
     "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
     "__global__ void k() { cg::this_multi_grid().sync(); }\nint main() { k<<<1, 1>>>(); return 0; }\n"),
    ("cuLaunchCooperativeKernelMultiDevice (driver API)", "compiles, deprecated",
     "#include <cuda.h>\nint main() { return cuLaunchCooperativeKernelMultiDevice != nullptr; }\n"),
]


def compile_checks():
    """Claim C: which of the multi-device API this toolkit's headers still have.
    Returns (rows, every result as expected)."""
    v = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    release = re.search(r"release ([\d.]+), (V[\d.]+)", v)
    rows = [dict(claim="C", kind="compiler", check="toolkit", result=release.group(1) if release else "?",
                 detail=f"nvcc {release.group(2)}" if release else v.strip()[-80:])]
    as_expected = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, want, code in SNIPPETS:
            src = os.path.join(tmp, "check.cu")
            with open(src, "w") as f:
                f.write(code)
            p = subprocess.run(["nvcc", "-std=c++20", "-c", src, "-o", os.path.join(tmp, "check.o")],
                               cwd=tmp, capture_output=True, text=True)
            said = [line.replace(src, "check.cu") for line in (p.stderr or "").splitlines()
                    if "error" in line or "deprecated" in line]
            result = "does not compile" if p.returncode else (
                "compiles, deprecated" if any("deprecated" in l for l in said) else "compiles")
            as_expected &= result == want
            detail = (said[0] if said else "").strip()      # whole: a message cut mid-word says less
            rows.append(dict(claim="C", kind="compiler", check=name, result=result, detail=detail))
    return rows, as_expected


def derived(rows):
    """Numbers that take two timings: one grid.sync()'s cost at each n (claim
    C), and each way's time over CG's for every tile and n (claim D)."""
    t = {(r["claim"], r["step"], r["n"]): float(r["median_us"]) for r in rows if r["status"] == "OK"}
    grid = {(r["step"], r["n"]): r["grid"] for r in rows}
    out = []
    for n in SYNC_SIZES.split(","):
        a, b = t.get(("C", "grid_sync_64", n)), t.get(("C", "07_cooperative", n))
        if a is not None and b is not None:
            out.append(dict(claim="C", kind="derived", check=f"barrier {n}", result=f"{(a - b) / 64:.2f} µs",
                            detail=f"(grid_sync_64 - 07_cooperative) / 64, grids {grid[('grid_sync_64', n)]} "
                                   f"and {grid[('07_cooperative', n)]}"))
    for n in SMALL_SIZES.split(","):
        for tile in TILES:
            cg = t.get(("D", f"subwarp_cg_{tile}", n))
            for way in WAYS[1:]:
                other = t.get(("D", f"subwarp_{way}_{tile}", n))
                if cg and other:
                    out.append(dict(claim="D", kind="derived", check=f"{way}/cg {tile} {n}", result=f"{other / cg:.2f}",
                                    detail=f"time of {way} over time of cg, tiles of {tile}, n = {n}"))
    return out


def main():
    ap = argparse.ArgumentParser(description="the sources' claims, tested on this GPU")
    ap.add_argument("--api", action="store_true", help="only the compiler's checks (no GPU)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results"))
    a = ap.parse_args()
    checks, as_expected = compile_checks()
    if a.api:
        for r in checks:
            print(f"{r['check']}: {r['result']}  {r['detail']}")
        sys.exit(0 if as_expected else 1)
    gpu_turn()
    t0 = time.time()
    rows = measure_timed()
    if not rows:
        sys.exit("claims: no program produced results (is there a GPU? did make claims build them?)")
    checks = grid_limit() + probe() + checks + derived(rows)
    out_dir = os.path.join(a.out, slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    fields = ["claim", "variant", "param"] + [k for k in rows[0] if k not in ("claim", "variant", "param")]
    write_csv(os.path.join(out_dir, "claims.csv"), rows, fields)
    write_csv(os.path.join(out_dir, "claims_checks.csv"), checks, CHECK_FIELDS)
    for r in checks:
        print(f"claim {r['claim']}: {r['check']}: {r['result']}  {r['detail']}")
    progress(f"claims measured in {time.time() - t0:.0f} s; results in {os.path.relpath(out_dir, ROOT)}")


if __name__ == "__main__":
    main()
