#!/usr/bin/env python3
"""stress.py: every step launched back to back for a while, every result checked.

    python3 tests/stress.py [--seconds 10] [--seed 1] [--builds float exact]
                            [--steps 00 03 ...] [--max-n 2^26]

`make stress` runs this (GPU; not part of `make test`). For each build and
step it draws a pool of input sizes from 1 to --max-n (log-uniform, from the
seed, printed), each with its own input seed, and then runs the step as

    ./stepNN --csv --n N --seed S --reps R

over and over, N taken from the pool at random and R chosen (from a first
timing of every size) so that one invocation keeps the GPU busy about a
second, until the timed runs add up to --seconds of GPU time. The harness
checks every run's result (the checked run, the warm-up and every timed run
each write their own result slot) and counts distinct bit patterns among
them. Between invocations, at random, a --check-only run at a size and seed
outside the pool checks the step on fresh input.

It fails a step and build on any exit code but 0, any WRONG row, or, where
the step declares itself deterministic and in every exact build, more than one
distinct result for one size and seed, within an invocation or across all of
them. Prints one PASS or FAIL line per step and build, then a summary line;
exits 1 if anything failed.
"""
import argparse
import csv
import io
import math
import random
import re
import subprocess
import sys
import time
from pathlib import Path

MAX_REPS = 100000          # the harness's limit on --reps
CHUNK_S = 1.0              # GPU time one invocation aims for


def size_value(text):
    """2^26, 64M, 1000: the forms this script accepts for --max-n."""
    m = re.fullmatch(r"(\d+)\^(\d+)", text)
    if m:
        return int(m.group(1)) ** int(m.group(2))
    m = re.fullmatch(r"(\d+)([KMG]?)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def run(cmd, timeout=600):
    """Runs one invocation; returns (exit code, rows, first stderr line, seconds)."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, [], f"no result in {timeout} s", time.monotonic() - start
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    err = p.stderr.strip().splitlines()
    return p.returncode, rows, err[0] if err else "", time.monotonic() - start


class Stress:
    """One step in one build: its counters and what went wrong."""

    def __init__(self, prog, label, exact_bits):
        self.prog = prog
        self.label = label
        self.exact_bits = exact_bits      # every run of one input must give one result
        self.launches = 0
        self.gpu_s = 0.0
        self.wall_s = 0.0
        self.invocations = 0
        self.wrong = 0
        self.spot_checks = 0
        self.sums = {}                    # (n, seed) -> set of result strings
        self.problems = []

    def invoke(self, n, seed, reps):
        """One invocation, timed (reps > 0) or --check-only (reps == 0)."""
        cmd = [self.prog, "--csv", "--n", str(n), "--seed", str(seed)]
        cmd += ["--reps", str(reps)] if reps else ["--check-only"]
        rc, rows, err, secs = run(cmd)
        self.invocations += 1
        self.wall_s += secs
        what = f"n = {n}, seed {seed}, {'reps ' + str(reps) if reps else 'check-only'}"
        if len(rows) != 1:
            self.problems.append(f"{what}: exit {rc}, {len(rows)} rows: {err}")
            return None
        r = rows[0]
        runs = int(r["runs"])
        self.launches += runs
        if reps:
            self.gpu_s += reps * float(r["median_us"]) * 1e-6
        if r["status"] != "OK":
            self.wrong += 1
            self.problems.append(f"{what}: WRONG: {err}")
        elif rc != 0:
            self.problems.append(f"{what}: exit {rc}: {err}")
        if runs != (reps + 2 if reps else 1):
            self.problems.append(f"{what}: {runs} runs checked, expected {reps + 2 if reps else 1}")
        if self.exact_bits and int(r["distinct"]) != 1:
            self.problems.append(f"{what}: {r['distinct']} distinct results in one invocation")
        self.sums.setdefault((n, seed), set()).add(r["sum"])
        return r


def stress_one(st, pool, seconds, rng):
    """Calibrates on every size of the pool, then runs until seconds of GPU time."""
    est_us = {}
    for n, seed in pool:                                   # a first timing of each size
        r = st.invoke(n, seed, 20)
        est_us[n] = float(r["median_us"]) if r and float(r["median_us"]) > 0 else 1000.0
    wall_limit = max(120.0, 12 * seconds)                  # launches bound by the host
    while st.gpu_s < seconds and st.wall_s < wall_limit and not st.problems:
        n, seed = rng.choice(pool)
        want = min(CHUNK_S, seconds - st.gpu_s + 0.05)
        reps = max(20, min(MAX_REPS, int(want * 1e6 / est_us[n])))
        st.invoke(n, seed, reps)
        if rng.random() < 0.3:                             # a spot check on fresh input
            fresh_n = max(1, int(2 ** rng.uniform(0, math.log2(pool_max(pool)))))
            st.invoke(fresh_n, rng.randrange(1 << 32), 0)
            st.spot_checks += 1
    if st.gpu_s < seconds and not st.problems:
        st.problems.append(f"only {st.gpu_s:.1f} s of GPU time in {st.wall_s:.0f} s: "
                           f"the host could not keep up")


def pool_max(pool):
    return max(n for n, _ in pool)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10, help="GPU time per step and build")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--builds", nargs="+", default=["float", "exact"], choices=["float", "exact"])
    ap.add_argument("--steps", nargs="+", help="step numbers (default: all)")
    ap.add_argument("--max-n", type=size_value, default=1 << 26)
    ap.add_argument("--sizes", type=int, default=6, help="sizes in the pool")
    a = ap.parse_args()

    root = Path(__file__).resolve().parent.parent
    sources = sorted(root.glob("steps/[0-9][0-9]_*.cu"))
    steps = {f.name[:2]: re.search(r"\.deterministic\s*=\s*1", f.read_text()) is not None
             for f in sources}
    chosen = a.steps or list(steps)

    probe = subprocess.run([str(root / "step00"), "--check-only", "--n", "1"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        why = probe.stderr.strip().splitlines()
        print(f"SKIP stress: no usable GPU here ({why[0] if why else 'step00 did not run'})")
        return 0

    print(f"stress: seed {a.seed}, {a.sizes} sizes per step from 1 to {a.max_n}, "
          f"{a.seconds:g} s of GPU time per step and build")
    passed = failed = 0
    for build in a.builds:
        for s in chosen:
            prog = str(root / f"step{s}") if build == "float" else str(root / f"build/exact/step{s}")
            rng = random.Random(f"{a.seed}/{build}/{s}")
            pool = [(1, rng.randrange(1 << 32)), (a.max_n, rng.randrange(1 << 32))]
            while len(pool) < a.sizes:
                n = max(1, int(2 ** rng.uniform(0, math.log2(a.max_n))))
                pool.append((n, rng.randrange(1 << 32)))
            exact_bits = steps[s] or build == "exact"
            name = f"stress/step{s}/{build}"
            print(f"{name}: sizes {', '.join(str(n) for n, _ in pool)}", flush=True)
            st = Stress(prog, name, exact_bits)
            stress_one(st, pool, a.seconds, rng)

            most = max((len(v) for v in st.sums.values()), default=0)
            if exact_bits:
                split = [f"n = {n}: {len(v)}" for (n, _), v in st.sums.items() if len(v) > 1]
                if split:
                    st.problems.append("distinct results across invocations at " + ", ".join(split))
                bits = f"at most {most} distinct result per size and seed, all invocations (must be 1)"
            else:
                bits = (f"at most {most} distinct results per size and seed, all invocations "
                        f"(not claimed deterministic)")
            summary = (f"{st.launches} launches in {st.invocations} invocations "
                       f"({st.spot_checks} spot checks), {st.gpu_s:.1f} s of GPU time, "
                       f"{st.wall_s:.1f} s wall; {st.wrong} WRONG; {bits}")
            if st.problems:
                failed += 1
                print(f"FAIL {name}: {'; '.join(st.problems[:3])} ({summary})", flush=True)
            else:
                passed += 1
                print(f"PASS {name} ({summary})", flush=True)
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
