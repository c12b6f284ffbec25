#!/usr/bin/env python3
"""compare_types.py: step 12 beside CUB, torch and CuPy on the same arrays, for
every type and operator of step 12 (this is `make compare-types`).

    python3 bench/compare_types.py                          measure, write results/<gpu>/types.*
    python3 bench/compare_types.py --pairs bf16:sum,int32:argmax --n 2^20,2^24
    python3 bench/compare_types.py --from DIR               only the tables and plots, from DIR's CSVs

For each pair (TYPE:OP) and each n = 2^10, 2^12, ..., 2^28: ./step12 --save-input
writes the array it reduced to a file in a temporary folder (removed after
each size); build/bench/cub_types runs CUB's call on that file; torch and CuPy,
where python3 imports them, load the same file with NumPy (bf16: torch's
bfloat16 view of the raw words; CuPy has no bf16) and run what their users
write (bench/array_libs.py: Lib.reduce). All are timed with the input out of
L2: step 12 and CUB by the harness (common/timing.c), the libraries by
bench/torch_sum.py's timing; 200 timed runs up to 2^22, 20 above. GB/s is the
bytes read (n times the element's size) over the median time.

Each row is judged against step 12's exact reference: a float sum by its
distance in ulps of the result's type (float; double for double), an exact
operator (max, min, the int32 sum) by equality, argmax by its index. Then the
accumulator each program really uses, measured: for the half, bf16 and float
sums, an array [B, s, s, ..., s, -B] (B = 2^30 and s = 1; half: 2^15 and
2^-10) whose sum, (n - 2) s, is exact in float. A float accumulator rounds
every partial sum that holds B or -B to a multiple of 64 s or 128 s (their
ulps), and so loses the s it adds there; a wider accumulator (double, or float
with a compensation) gives the exact sum.

Writes, in results/<gpu>/: types.csv (every row), types_accumulator.csv (the
probe), types.md (a table per operator: n down, programs across; step 12 against
CUB, the read ceiling of ceiling.csv and the read floor of floor.csv at
the same bytes; the errors; the accumulators) and,
with gnuplot, types-OP.svg (GB/s against n, step 12 solid and CUB dashed, a
colour per type). A missing torch or CuPy: a note, and '–' in its columns.
"""
import argparse
import math
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

from lib import ROOT, fmt_time, gpu_turn, md_table, parse_n, power_label, progress, read_csv, run_csv, slug, \
    write_csv
from peak import gbps_text

PAIRS = [("float", "sum"), ("double", "sum"), ("half", "sum"), ("bf16", "sum"), ("int32", "sum"),
         ("float", "max"), ("bf16", "max"), ("int32", "max"), ("float", "min"), ("bf16", "min"),
         ("int32", "min"), ("float", "argmax"), ("bf16", "argmax"), ("int32", "argmax"),
         ("bf16", "sumsq"), ("float", "sumsq")]
OPS = ["sum", "max", "min", "argmax", "sumsq"]
SIZES = [1 << k for k in range(10, 29, 2)]
SMALL = 1 << 22                  # sizes up to this get 200 timed runs, as bench/compare.py's
PROGRAMS = [("step12", "step 12"), ("cub", "CUB"), ("torch", "torch"), ("cupy", "CuPy")]
LIBS = ["torch", "cupy"]
SIZE = {"float": 4, "double": 8, "half": 2, "bf16": 2, "int32": 4}
FIELDS = ["program", "type", "op", "device", "n", "bytes", "median_us", "gbps", "result", "index", "reference",
          "reference_index", "error_ulp", "agrees", "status"]
PROBE_FIELDS = ["program", "type", "n", "result", "exact", "float_sequential", "accumulator"]
# The probe: B, n - 2 copies of s, -B (see above); n - 2 is odd, so the exact sum is no
# multiple of 64 s.
PROBE = {"float": (2.0 ** 30, 1.0), "bf16": (2.0 ** 30, 1.0), "half": (2.0 ** 15, 2.0 ** -10)}
PROBE_N = (1 << 20) + 1
# A colour per type (the plots' series), far apart (tests/plotcheck.py).
COLOURS = {"float": "#0072b2", "double": "#009e73", "half": "#e69f00", "bf16": "#d62728", "int32": "#9933aa"}


def file_name(tmp, dtype):
    return os.path.join(tmp, "x.bf16" if dtype == "bf16" else "x.npy")


# ---- judging a result --------------------------------------------------------------------
def is_float_sum(dtype, op):
    return op in ("sum", "sumsq") and dtype != "int32"


def ulp(x, dtype):
    """The unit in the last place at x in the result's type: double for double, else float."""
    if dtype == "double":
        return math.ulp(x)
    if x == 0 or not math.isfinite(x):
        return 2.0 ** -149
    return max(2.0 ** (math.frexp(abs(x))[1] - 24), 2.0 ** -149)


def same(a, b, dtype):
    """Two values as text (results, references) the same number (NaN the same as NaN)?"""
    if dtype == "int32":
        return int(a) == int(b)                 # (an int64 sum: not through a double)
    x, y = float(a), float(b)
    return (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))


def judge(row, ref):
    """row's error_ulp and agrees against step 12's row ref (its reference, reference_index)."""
    row["reference"], row["reference_index"] = ref["reference"], ref.get("reference_index", "-")
    row["error_ulp"], row["agrees"] = "-", "-"
    if row["result"] in ("", None):
        return row
    if is_float_sum(row["type"], row["op"]):
        got, want = float(row["result"]), float(ref["reference"])
        d = abs(got - want) if math.isfinite(got) else math.inf
        row["error_ulp"] = f"{d / ulp(want, row['type']):.3g}" if math.isfinite(d) else "inf"
    elif row["op"] == "argmax":
        row["agrees"] = "yes" if str(row["index"]) == str(row["reference_index"]) else "no"
    else:
        row["agrees"] = "yes" if same(row["result"], ref["reference"], row["type"]) else "no"
    return row


# ---- measuring ------------------------------------------------------------------------------
def open_libs():
    """{name: Lib} of the libraries python3 can use here; a note for each it cannot."""
    libs = {}
    for name in LIBS:
        try:
            from array_libs import Lib
            lib = Lib(name)
            lib.try_out()
            libs[name] = lib
        except Exception as e:                  # not installed, no GPU for it, no NVRTC
            progress(f"SKIP {name}: python3 cannot use {name} here ({type(e).__name__}: {e})"[:300] +
                     f"; its columns are '–'")
    return libs


def lib_row(lib, dtype, op, n, path, device):
    """One library's row on the array in path, timed as bench/torch_sum.py times a sum; None where
    the library has no such dtype."""
    from torch_sum import cycles_per_us, timed
    x0 = lib.load(path, dtype)
    if x0 is None:
        return None
    reps = 200 if n <= SMALL else 20
    xs = [x0] + [lib.copy(x0) for _ in range(min(math.ceil(3 * lib.l2 / (n * SIZE[dtype])), reps) - 1)]
    r = lib.reduce(op, x0)                                    # the checked run
    lib.reduce(op, x0)                                        # the warm-up
    us, _ = timed(lib, xs, reps, cycles_per_us(lib), lambda x: lib.reduce(op, x), lambda kept, got: kept)
    index = int(r) if op == "argmax" else "-"
    value = x0[index] if op == "argmax" else r
    result = int(value) if dtype == "int32" else float(value)
    median = statistics.median(us)
    del xs, x0
    lib.release()
    return {"program": lib.name, "type": dtype, "op": op, "device": device, "n": n, "bytes": n * SIZE[dtype],
            "median_us": f"{median:.3f}", "gbps": f"{n * SIZE[dtype] / median / 1e3:.1f}",
            "result": result if dtype == "int32" else f"{result:.17g}", "index": index, "status": "-"}


def one_size(dtype, op, n, tmp, libs):
    """Every program's row for one pair at one n (step 12's first), judged; [] if step 12 gave none."""
    path = file_name(tmp, dtype)
    reps = ["--reps", "200"] if n <= SMALL else []
    got, _ = run_csv(["./step12", "--type", dtype, "--op", op, "--n", str(n), "--csv", "--save-input", path]
                     + reps, f"step12 {dtype} {op} n={power_label(n)}")
    if not got or not os.path.exists(path):
        return []
    ref = got[-1]
    rows = [dict(ref, program="step12")]
    cub, _ = run_csv(["build/bench/cub_types", "--type", dtype, "--op", op, "--input-file", path] + reps,
                     f"cub_types {dtype} {op}")
    rows += [dict(r, program="cub", status="-") for r in cub[-1:]]
    for lib in libs.values():
        row = lib_row(lib, dtype, op, n, path, ref["device"])
        if row:
            rows.append(row)
    os.remove(path)
    return [judge({k: r.get(k, "-") for k in FIELDS}, ref) for r in rows]


def save(out, name, rows, fields, keep=None):
    """out/name: rows, after the old file's rows that keep(row) says to keep."""
    path = os.path.join(out, name)
    old = [r for r in read_csv(path) if keep(r)] if keep and os.path.exists(path) else []
    write_csv(path, old + rows, fields, extrasaction="ignore")


def measure(pairs, sizes):
    """Every pair at every size, then the probe; types.csv is written after each pair (the rows of
    pairs and sizes not measured again kept), so that a run cut short keeps what it measured."""
    for prog in ("step12", "build/bench/cub_types"):
        if not os.path.exists(os.path.join(ROOT, prog)):
            sys.exit(f"compare-types: {prog} is not built (make step12 bench)")
    gpu_turn()
    libs = open_libs()
    rows, out = [], None
    with tempfile.TemporaryDirectory() as tmp:
        for dtype, op in pairs:
            for n in sizes:
                rows += one_size(dtype, op, n, tmp, libs)
            if rows:
                out = os.path.join(ROOT, "results", slug(rows[0]["device"]))
                os.makedirs(out, exist_ok=True)
                save(out, "types.csv", rows, FIELDS,
                     lambda r: (r["type"], r["op"]) not in pairs or int(r["n"]) not in sizes)
        if not rows:
            sys.exit("compare-types: nothing was measured (is ./step12 built? make step12 bench)")
        probe = [r for d in PROBE if (d, "sum") in pairs for r in probe_rows(d, tmp, libs)]
        if probe:
            save(out, "types_accumulator.csv", probe, PROBE_FIELDS, lambda r: (r["type"], "sum") not in pairs)
    return out


# ---- the accumulator probe ----------------------------------------------------------------
def write_probe(dtype, path):
    """The probe array for dtype in path (a .npy, or raw bf16 words); its exact sum, and its sum
    accumulated in float from left to right."""
    big, small = PROBE[dtype]
    values = [big] + [small] * (PROBE_N - 2) + [-big]
    if dtype == "bf16":       # the upper halves of the floats' bits: exact for these values
        data = struct.pack(f"<{PROBE_N}H", *(struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in values))
    else:
        code, descr = ("e", "<f2") if dtype == "half" else ("f", "<f4")
        head = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({PROBE_N},), }}"
        head += " " * (63 - (10 + len(head)) % 64) + "\n"
        data = (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode()
                + struct.pack(f"<{PROBE_N}{code}", *values))
    with open(path, "wb") as f:
        f.write(data)
    acc = 0.0
    for v in values:
        acc = struct.unpack("<f", struct.pack("<f", acc + v))[0]
    return (PROBE_N - 2) * small, acc


def probe_rows(dtype, tmp, libs):
    """Each program's sum of the probe for dtype, and what it says of its accumulator."""
    path = file_name(tmp, dtype)
    exact, seq = write_probe(dtype, path)
    found = []
    got, _ = run_csv(["./step12", "--type", dtype, "--op", "sum", "--input-file", path, "--csv", "--check-only"],
                     f"step12 {dtype} sum, the probe")
    found += [("step12", r["result"]) for r in got[-1:]]
    got, _ = run_csv(["build/bench/cub_types", "--type", dtype, "--op", "sum", "--input-file", path,
                      "--reps", "1"], f"cub_types {dtype} sum, the probe")
    found += [("cub", r["result"]) for r in got[-1:]]
    for lib in libs.values():
        x = lib.load(path, dtype)
        if x is not None:
            found.append((lib.name, f"{float(lib.reduce('sum', x)):.17g}"))
            del x
            lib.release()
    os.remove(path)
    return [{"program": p, "type": dtype, "n": PROBE_N, "result": r, "exact": f"{exact:.17g}",
             "float_sequential": f"{seq:.17g}",
             "accumulator": "exact: wider than float" if float(r) == exact else "float: s lost"} for p, r in found]


# ---- the tables -------------------------------------------------------------------------------
def ceiling_of(out):
    path = os.path.join(out, "ceiling.csv")
    if not os.path.exists(path):
        return 0.0
    return next((float(r["gbps"]) for r in read_csv(path) if r["kind"] == "read"), 0.0)


def floor_of(out):
    """The read-only kernel's cold time at each size in bytes (floor.csv, written by make compare)."""
    path = os.path.join(out, "floor.csv")
    return {int(r["bytes"]): float(r["median_us"]) for r in read_csv(path) if r["kind"] == "floor"} \
        if os.path.exists(path) else {}


def cell(r):
    return f"{fmt_time(float(r['median_us']))} · {gbps_text(float(r['gbps']))}" if r else "–"


def speed_table(rows, dtype, op, ceiling, floor):
    """n down, programs across (median time · GB/s), CUB's time over step 12's, step 12's share of
    the read ceiling, and of the read floor: the read-only kernel's time for the same bytes over
    step 12's."""
    by = {(r["program"], int(r["n"])): r for r in rows if r["type"] == dtype and r["op"] == op}
    head = ["n"] + [label for _, label in PROGRAMS] + ["CUB / step 12 (time)"] + \
        (["step 12 / read ceiling"] if ceiling else []) + (["read floor / step 12 (time)"] if floor else [])
    body = []
    for n in sorted({n for _, n in by}):
        s, c = by.get(("step12", n)), by.get(("cub", n))
        line = [power_label(n)] + [cell(by.get((p, n))) for p, _ in PROGRAMS]
        line.append(f"{float(c['median_us']) / float(s['median_us']):.2f}×" if s and c else "–")
        if ceiling:
            line.append(f"{100 * float(s['gbps']) / ceiling:.0f}%" if s else "–")
        if floor:
            f = floor.get(int(s["bytes"])) if s else None
            line.append(f"{100 * f / float(s['median_us']):.0f}%" if f else "–")
        body.append(line)
    return md_table(head, body, ["--:"] * len(head))


def worst(rows, dtype, op, program):
    """A program's error over every n for a pair: the most ulps, or where it disagrees."""
    mine = [r for r in rows if (r["type"], r["op"], r["program"]) == (dtype, op, program)]
    if not mine:
        return "–"
    if is_float_sum(dtype, op):
        errs = [float(r["error_ulp"]) for r in mine if r["error_ulp"] not in ("-", "")]
        return ("0 ulp" if max(errs) == 0 else f"≤ {max(errs):.3g} ulp") if errs else "–"
    bad = [power_label(int(r["n"])) for r in mine if r["agrees"] == "no"]
    what = "index" if op == "argmax" else "value"
    return f"{what} differs at {', '.join(bad)}" if bad else f"same {what}, every n"


def tables(out):
    """types.md from out's types.csv, types_accumulator.csv and ceiling.csv."""
    rows = read_csv(os.path.join(out, "types.csv"))
    ceiling, floor = ceiling_of(out), floor_of(out)
    have = [(d, o) for d, o in PAIRS if any((r["type"], r["op"]) == (d, o) for r in rows)]
    parts = [f"# Step 12 beside CUB, torch and CuPy on {rows[0]['device']}", "",
             "Median time · GB/s (bytes read: n times the element's size), cold L2; "
             "CUB / step 12 above 1: step 12 is faster" +
             (f"; the read ceiling {ceiling:,.0f} GB/s (ceiling.csv)" if ceiling else "") +
             ("; the read floor: the read-only kernel's time for the same bytes, cold (floor.csv)."
              if floor else "."), ""]
    for op in OPS:
        for dtype in [d for d, o in have if o == op]:
            parts += [f"## {op}, {dtype}", "", speed_table(rows, dtype, op, ceiling, floor), ""]
    parts += ["## Errors against step 12's exact reference", "",
              "Float sums: the most ulps (of the result's type) over every n; the others: equal or not.", "",
              md_table(["pair"] + [label for _, label in PROGRAMS],
                       [[f"{op} {dtype}"] + [worst(rows, dtype, op, p) for p, _ in PROGRAMS] for dtype, op in have]),
              ""]
    probe = os.path.join(out, "types_accumulator.csv")
    if os.path.exists(probe):
        parts += accumulator_table(read_csv(probe))
    parts.append(f"(`{os.path.relpath(os.path.join(out, 'types.csv'), ROOT)}`; `make compare-types`)")
    with open(os.path.join(out, "types.md"), "w") as f:
        f.write("\n".join(parts) + "\n")
    return "\n".join(parts)


def accumulator_table(probe):
    """The probe's table: each program's sum against the exact one and the float one."""
    by = {(r["program"], r["type"]): r for r in probe}
    exact = {r["type"]: float(r["exact"]) for r in probe}
    body = [[t, f"{exact[t]:.10g}"] + [f"{by[(p, t)]['accumulator']} ({float(by[(p, t)]['result']):.10g})"
                                    if (p, t) in by else "–" for p, _ in PROGRAMS]
            for t in PROBE if t in exact]
    seq = ", ".join(f"{t} {float(r['float_sequential']):g}" for t, r in {r["type"]: r for r in probe}.items())
    return ["## The accumulator, measured", "",
            f"A sum of n = {PROBE_N} elements [B, s, ..., s, -B] (B = 2^30, s = 1; half: B = 2^15, "
            "s = 2^-10): exact in float, but a float accumulator rounds each partial sum that "
            "holds B or -B to a multiple of 64 s or 128 s, and loses s there; left to right in "
            f"float it is {seq}. Each program's verdict, with its sum in brackets.", "",
            md_table(["type", "exact sum"] + [label for _, label in PROGRAMS], body), ""]


# ---- the plots --------------------------------------------------------------------------------
def plot(out, op, rows, ceiling, device):
    """types-OP.svg: GB/s against n, a colour per type, step 12 solid, CUB dashed."""
    mine = [r for r in rows if r["op"] == op and r["program"] in ("step12", "cub")]
    types = [d for d, o in PAIRS if o == op and any(r["type"] == d for r in mine)]
    if not types:
        return None
    data = os.path.join(out, f"types-{op}.dat")
    series = []
    with open(data, "w") as f:
        for dtype in types:
            for program, dashes in (("step12", 1), ("cub", 2)):
                pts = sorted((int(r["n"]), float(r["gbps"])) for r in mine if (r["type"], r["program"]) == (dtype, program))
                f.write("".join(f"{n} {g}\n" for n, g in pts) + "\n\n")
                title = f"title '{dtype}'" if program == "step12" else "notitle"
                series.append(f"'{data}' index {len(series)} with linespoints lc rgb '{COLOURS[dtype]}' lw 2 "
                              f"dt {dashes} pt {7 if program == 'step12' else 6} ps 0.8 {title}")
    series.append("keyentry with lines lc rgb '#000000' dt 2 lw 2 title 'CUB (dashed)'")
    if ceiling:
        series.append(f"{ceiling} with lines lc rgb '#888888' dt 3 lw 2 title 'read ceiling'")
    script = [
        "set terminal svg size 480,620 fixed enhanced font 'sans,16' background rgb 'white'",
        f"set output '{os.path.join(out, f'types-{op}.svg')}'",
        f"set title '{op}, {device.replace('NVIDIA ', '')}: step 12 and CUB' noenhanced",
        "set logscale x 2", "set xrange [2**9:2**29]", "set xtics ('2^{10}' 2**10, '2^{16}' 2**16, '2^{22}' 2**22, '2^{28}' 2**28)",
        "set xlabel 'n (elements)'", "set logscale y 10", "set format y '%g'",
        "set ylabel 'GB/s (bytes read)' offset 1,0", "set lmargin 9", "set rmargin 2",
        "set key outside below center horizontal Left reverse maxcols 3 samplen 1.5 width -3",
        "set grid", "plot " + ", ".join(series)]
    p = subprocess.run(["gnuplot"], input="\n".join(script), text=True, capture_output=True)
    os.remove(data)
    return None if p.returncode == 0 else f"compare-types: gnuplot failed on {op}: {p.stderr.strip()[:200]}"


def plots(out):
    if not shutil.which("gnuplot"):
        return "SKIP compare-types: gnuplot is not installed (apt-get install gnuplot-nox); no types-*.svg"
    rows = read_csv(os.path.join(out, "types.csv"))
    ceiling = ceiling_of(out)
    failed = [e for e in (plot(out, op, rows, ceiling, rows[0]["device"]) for op in OPS) if e]
    return "\n".join(failed) if failed else f"compare-types: types-*.svg drawn in {out}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="from_dir", help="only the tables and the plots, from DIR/types.csv")
    ap.add_argument("--pairs", default="", help="TYPE:OP,... (default: every pair of step 12)")
    ap.add_argument("--n", default="", help="sizes, comma-separated (default: 2^10, 2^12, ..., 2^28)")
    a = ap.parse_args()
    pairs = [tuple(p.split(":")) for p in a.pairs.split(",") if p] or PAIRS
    unknown = [":".join(p) for p in pairs if p not in PAIRS]
    if unknown:
        sys.exit(f"compare-types: --pairs: no pair {', '.join(unknown)} "
                 f"(pairs: {', '.join(d + ':' + o for d, o in PAIRS)})")
    sizes = [parse_n(t) for t in a.n.split(",") if t] or SIZES
    out = a.from_dir or measure(pairs, sizes)
    print(tables(out))
    print(plots(out))


if __name__ == "__main__":
    main()
