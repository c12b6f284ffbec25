#!/usr/bin/env python3
"""inputs_cost.py: what each input costs the sums that must not depend on it (`make inputs-cost`).

    python3 bench/inputs_cost.py            measure on this GPU, write results/<gpu>/inputs_cost.csv

Step 10's fast path takes a group of 32 elements at once only while their
exponents lie within 24 of one another; every other group goes element by
element. So its time depends on the input, where a float sum's does not.
This times step 07 (the plain sum), step 08 (the fixed order), step 10 on
one GPU, CUB's default sum and, where it was built, CUB's gpu_to_gpu mode
on every input the harness draws (--input: the names in
common/inputs/inputs.c) at 2^24 and 2^28 elements, the input not in L2, in
two rounds one after the other. It writes results/<gpu>/inputs_cost.csv:
the harness's CSV columns, one row per program, input, size and round
(round is the last column). Chapter 10 shows the medians of the rounds.
Only the Python standard library is used.
"""
import os
import sys

from accuracy import input_names
from compare import CUB, CUB_G2G
from lib import ROOT, gpu_turn, progress, run_csv, slug, write_csv

SIZES = [2 ** 24, 2 ** 28]
ROUNDS = 2


def programs():
    """(name, command) of the sums timed here that are built."""
    found = [("07_cooperative", "./step07"), ("08_fixed_order", "./step08")]
    if os.path.exists(os.path.join(ROOT, "step10")):
        found.append(("10_exact", "./step10"))
    else:
        progress("SKIP 10_exact: not built (make step10 says what it needs)")
    found.append(CUB)
    if os.path.exists(os.path.join(ROOT, CUB_G2G[1])):
        found.append(CUB_G2G)
    else:
        progress("SKIP cub_gpu_to_gpu: not built (it needs newer CCCL headers: see make compare)")
    return [(name, cmd) for name, cmd in found if os.path.exists(os.path.join(ROOT, cmd.split()[0]))]


def measure():
    rows = []
    progs = programs()
    sizes = ",".join(map(str, SIZES))
    for r in range(1, ROUNDS + 1):
        for inp in input_names():
            for name, cmd in progs:
                got, _ = run_csv(cmd.split() + ["--csv", "--input", inp, "--n", sizes],
                                 f"round {r}, {inp}, {name}")
                for row in got:
                    row["round"] = str(r)
                rows += got
    return rows


def main():
    if sys.argv[1:] in (["--help"], ["-h"]):
        print(__doc__.strip())
        return
    if len(sys.argv) > 1:
        print(f"inputs_cost: unexpected {sys.argv[1]!r}; usage:\n  " + __doc__.strip().splitlines()[2].strip(),
              file=sys.stderr)
        sys.exit(2)
    gpu_turn()
    rows = measure()
    if not rows:
        sys.exit("inputs_cost: no program produced results (is there a GPU?)")
    out_dir = os.path.join(ROOT, "results", slug(rows[0]["device"]))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "inputs_cost.csv")
    write_csv(path, rows, list(rows[0].keys()))
    progress(f"inputs_cost: {len(rows)} rows in {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
