#!/usr/bin/env python3
"""bits.py: step 08's result bits on this GPU, and the check that every GPU agrees.

    python3 bench/bits.py                  # measure: results/<gpu>/bits08.csv (make bits, GPU)
    python3 bench/bits.py --check          # every committed bits08.csv: the same bits on
                                           # every GPU, and the CPU replica's (tests/bits)

Measuring runs ./step08 --check-only once over a fixed list of sizes and seeds
and writes, per row, the sum and its bit pattern. The check needs no GPU: it
compares the committed files with each other and, for the sizes a CPU sums in
a moment, with build/tests/replica (the same input added in the same order on
the CPU). Prints PASS/FAIL/SKIP lines for tests/run. Only the standard library.
"""
import argparse
import csv
import glob
import io
import os
import struct
import subprocess
import sys

from lib import ROOT, read_csv, slug, write_csv

SIZES = "1,1000,4095,4096,4097,10^6+3,2^20,2^24+1,10^8+7,2^28"
SEEDS = "1,2,3"
REPLICA_MAX_N = 10 ** 8 + 7      # above this the host check trusts the GPUs agreeing
FIELDS = ["n", "seed", "sum", "bits", "device", "status", "replica"]


def float_bits(text):
    """The bit pattern of the float that %.9g printed (9 digits name one float)."""
    return "%08x" % struct.unpack("<I", struct.pack("<f", float(text)))[0]


def measure():
    p = subprocess.run(["./step08", "--check-only", "--csv", "--n", SIZES, "--seed", SEEDS],
                       cwd=ROOT, capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    if p.returncode != 0 or not rows:
        sys.exit("bits: ./step08 failed: " + (p.stderr.strip().splitlines() or ["no output"])[-1])
    out = [{"n": r["n"], "seed": r["seed"], "sum": r["sum"], "bits": float_bits(r["sum"]),
            "device": r["device"], "status": r["status"], "replica": r["replica"]} for r in rows]
    d = os.path.join(ROOT, "results", slug(rows[0]["device"]))
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "bits08.csv")
    write_csv(path, out, FIELDS)
    print(f"bits: {len(out)} sums on {rows[0]['device']} in {os.path.relpath(path, ROOT)}")


def check():
    files = sorted(glob.glob(os.path.join(ROOT, "results", "*", "bits08.csv")))
    if not files:
        print("SKIP bits/committed: no results/<gpu>/bits08.csv yet (make bits on a GPU)")
        return 0
    sets = {}
    for f in files:
        gpu = os.path.basename(os.path.dirname(f))
        rows = read_csv(f)
        bad = [r for r in rows if r["status"] != "OK" or r["replica"] != "equal"
               or float_bits(r["sum"]) != r["bits"]]
        if bad or not rows:
            print(f"FAIL bits/{gpu}: rows not OK, not the replica's, or bits that are not the sum's: "
                  + ", ".join(f"n={r['n']} seed={r['seed']}" for r in bad[:3]))
        else:
            print(f"PASS bits/{gpu}: {len(rows)} sums, each OK and equal to the replica when measured")
        sets[gpu] = {(r["n"], r["seed"]): r["bits"] for r in rows}
    names = sorted(sets)
    first = sets[names[0]]
    for other in names[1:]:
        diff = [k for k in first if sets[other].get(k) != first[k]]
        if diff or set(sets[other]) != set(first):
            print(f"FAIL bits/{names[0]} = {other}: differ at " +
                  ", ".join(f"n={n} seed={s}" for n, s in diff[:5]))
        else:
            print(f"PASS bits/{names[0]} = {other}: the same bits for all {len(first)} sums")
    if len(names) == 1:
        print(f"SKIP bits/across GPUs: only {names[0]} has committed bits")
    replica = os.path.join(ROOT, "build", "tests", "replica")
    if not os.access(replica, os.X_OK):
        print("FAIL bits/replica: build/tests/replica is not built (make unit)")
        return 0
    wrong, checked = [], 0
    for (n, seed), bits in sorted(first.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
        if int(n) > REPLICA_MAX_N:
            continue
        got = subprocess.run([replica, n, seed], capture_output=True, text=True, check=True).stdout.split()[0]
        checked += 1
        if got != bits:
            wrong.append(f"n={n} seed={seed}: GPU {bits}, CPU {got}")
    if wrong:
        print("FAIL bits/replica on this CPU: " + "; ".join(wrong[:3]))
    else:
        print(f"PASS bits/replica on this CPU: {checked} committed sums up to n = {REPLICA_MAX_N}, bit for bit")
    return 0


def main():
    ap = argparse.ArgumentParser(description="step 08's result bits on this GPU, or the check")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    return check() if a.check else measure()


if __name__ == "__main__":
    sys.exit(main())
