#!/usr/bin/env python3
"""sass_per_element.py: step 12's machine code, instructions per element in
its main loop, for every pair. No GPU needed: nvcc compiles for sm_90 and
cuobjdump prints the SASS.

    python3 lab/types/sass_per_element.py              the step as it is
    python3 lab/types/sass_per_element.py --rev REV    as it was at commit REV
    ... --csv FILE --label NAME                        also add its rows to FILE's

The main loop is the loop of thread_fold that issues LOADS_IN_FLIGHT 16-byte
loads (LDG.E.128) a round. Its instructions are counted once each; its
common path leaves out the blocks that a predicated forward branch skips
(argmax's search for an index, taken only when a vector's largest key can
win), and per element is the common path over the elements of a round: 4
loads of 16 bytes, so 32 halves or bf16s, 16 floats or int32s, 8 doubles.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WIDTH = {"f": 4, "i": 4, "d": 2, "13__nv_bfloat16": 8, "6__half": 8}
TYPE = {"f": "float", "i": "int32", "d": "double", "13__nv_bfloat16": "bf16", "6__half": "half"}
OPS = {"3Sum": "sum", "5SumSq": "sumsq", "6ArgMax": "argmax", "7Extreme": "max/min"}


def source(rev):
    """The step's file, as it is or at rev, in a tree where its includes resolve."""
    if not rev:
        return os.path.join(ROOT, "steps", "12_types.cu")
    top = os.path.join(ROOT, "build", "lab", "types", rev)
    os.makedirs(os.path.join(top, "steps"), exist_ok=True)
    if not os.path.exists(os.path.join(top, "common")):
        os.symlink(os.path.join(ROOT, "common"), os.path.join(top, "common"))
    text = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:steps/12_types.cu"], capture_output=True,
                          text=True, check=True).stdout
    path = os.path.join(top, "steps", "12_types.cu")
    with open(path, "w") as f:
        f.write(text)
    return path


def main_loop(instructions):
    """The longest backward branch's body that holds four LDG.E.128."""
    best = []
    for k, (addr, text) in enumerate(instructions):
        m = re.search(r"\bBRA\b.*0x([0-9a-f]+)", text)
        if m and int(m.group(1), 16) < addr:
            body = [(a, t) for a, t in instructions if int(m.group(1), 16) <= a <= addr]
            if sum("LDG.E.128" in t for _, t in body) >= 4 and len(body) > len(best):
                best = body
    return best


def common_path(body):
    """The loop without the blocks a predicated forward branch skips (argmax's search for
    an index, which a round takes only when its largest key can win)."""
    skipped = set()
    for addr, text in body:
        m = re.match(r"@!?U?P\d\s+BRA\b.*0x([0-9a-f]+)", text.strip())
        if m and int(m.group(1), 16) > addr:
            skipped |= {a for a, _ in body if addr < a < int(m.group(1), 16)}
    return [t for a, t in body if a not in skipped]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="", help="a commit: the step as it was there")
    ap.add_argument("--csv", default="", help="add the rows to this CSV (rows of the same label replaced)")
    ap.add_argument("--label", default="", help="the rows' label in the CSV (default: the commit, or 'now')")
    a = ap.parse_args()
    for tool in ("nvcc", "cuobjdump"):
        if not shutil.which(tool):
            sys.exit(f"sass_per_element.py: {tool} not found (the CUDA Toolkit's bin/ on PATH)")
    cubin = os.path.join(ROOT, "build", "lab", "types", f"12_types{'_' + a.rev if a.rev else ''}.cubin")
    os.makedirs(os.path.dirname(cubin), exist_ok=True)
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-std=c++20", "-cubin", "-o", cubin, source(a.rev)], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, check=True).stdout
    rows = {}
    for f in re.split(r"\n\s+Function : ", sass)[1:]:
        m = re.match(r"_Z13reduce_kernelI(13__nv_bfloat16|6__half|f|d|i)(3Sum|5SumSq|6ArgMax|7Extreme)", f)
        if not m:
            continue
        ins = [(int(x, 16), t) for x, t in re.findall(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", f)]
        loop = main_loop(ins)
        elements = 4 * WIDTH[m.group(1)]
        rows[(OPS[m.group(2)], TYPE[m.group(1)])] = (len(loop), len(common_path(loop)), elements)
    print(f"step 12{' at ' + a.rev if a.rev else ''}, sm_90: the main loop (four LDG.E.128 a round)")
    print(f"{'op':8s} {'type':7s} {'instructions':>12s} {'common path':>11s} {'elements':>8s} {'per element':>11s}")
    for (op, t), (n, c, e) in sorted(rows.items()):
        print(f"{op:8s} {t:7s} {n:12d} {c:11d} {e:8d} {c / e:11.2f}")
    if a.csv:
        label = a.label or a.rev or "now"
        fields = ["label", "op", "type", "loop_instructions", "common_path", "elements", "per_element"]
        old = []
        if os.path.exists(a.csv):
            with open(a.csv) as f:
                old = [r for r in csv.DictReader(f) if r["label"] != label]
        new = [{"label": label, "op": op, "type": t, "loop_instructions": n, "common_path": c, "elements": e,
                "per_element": f"{c / e:.2f}"} for (op, t), (n, c, e) in sorted(rows.items())]
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(old + new)


if __name__ == "__main__":
    main()
