#!/usr/bin/env python3
"""exact_tables.py: the tables and numbers of the lab's page on step 10's rounds, from the CSVs.

    python3 lab/exact-tail/exact_tables.py [--results results]

`bash lab/exact-tail/exact_variants.sh results/<gpu>/exact_tail.csv` writes
that file: a label, then the harness's columns. Two rounds of each variant of
step 10 (a copy of the step with one piece of its tail changed; "base" is the
copy unchanged), then two rounds of step 07 beside step 10 (labels step07,
step10, step10_no_fp64 and step10_block1024; step07_wide and step10_wide on
--input wide). A label's time at n is the median, over its rounds, of each
round's median time (a variant that leaves a piece out may give a wrong sum,
so only its time counts; the steps' rows count only where they were right).
The predictions written before any of it ran are in
lab/exact-tail/exact_tail_predictions.csv. This writes, for every
RESULTS/<gpu>/ with an exact_tail.csv:

    exact_tail.md          step 07 and step 10's labels, a row each, their
                           times at 2^16, 2^20, 2^24 and 2^28, then each step
                           10 label's time over step 07's (on the same input)
    exact_tail_summary.csv what=,label=,n=,than= and the text the page shows:
                           median (every label and size), ratio (step 10's
                           labels over step 07's), cost (what a variant's piece
                           adds to the time; n=all: the least to the most),
                           spread (the widest two rounds of any label at n),
                           verdict (step 10 against the targets, in words)

and RESULTS/exact_rounds.md: every variant in one table, round by round (the
change it measures, what it was predicted to save, and what it saved on each
GPU, from the least to the most over the sizes measured). Paths in the
captions are as given, relative to the folder this runs in.

The targets: step 10's time at most 1.03 times step 07's at every power of
two from 2^24 to 2^28, and at most 1.15 times at 2^20.
"""
import argparse
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))  # bench/lib.py
from lib import ROOT, pipe_table, power_label, ratio_text, read_csv, size_md, time_text, write_csv  # noqa: E402

FILE = "exact_tail.csv"
PREDICTIONS = "lab/exact-tail/exact_tail_predictions.csv"
TARGETS = [(2 ** 24, 2 ** 28, 1.03), (2 ** 20, 2 ** 20, 1.15)]
SIZES = [2 ** 16, 2 ** 20, 2 ** 24, 2 ** 28]
STEPS = {"step07": "step 07", "step10": "step 10", "step10_no_fp64": "step 10 without FP64",
         "step10_block1024": "step 10, blocks of 1024", "step07_wide": "step 07, `wide` input",
         "step10_wide": "step 10, `wide` input"}
RATIOS = {"step10": "step07", "step10_no_fp64": "step07", "step10_block1024": "step07", "step10_wide": "step07_wide"}
# A variant that adds its piece (or is the old way) costs its time minus the base's; one that
# leaves a piece out, the base's minus its own. Pieces of the ticket are timed against `ticket`.
LEAVES_OUT = {"base", "no_round", "no_flags", "no_fetch", "loads_only", "skip_last", "no_convert"}
BASE = {"fences": "ticket", "no_fetch": "ticket", "copies2": "ticket", "before": "ticket", "thread0": "ticket"}

# The rounds, in order: each variant, its round, how the change's saving follows from the
# variant's cost (+1 where the variant leaves a piece out or puts back the way the step had
# before the change: the change saves what the variant costs; -1 where the variant is the
# change tried: it saves minus what it costs), and the change it measures.
ROUNDS = [
    ("before", 1, 1, "rounds 1 and 2 together (against `ticket`)"),
    ("carry_always", 1, 1, "no carry by every thread where no block sum can overflow"),
    ("no_round", 1, 1, "without the rounding (a probe)"),
    ("no_flags", 1, 1, "without the flags' reduction (a probe)"),
    ("no_fetch", 1, 1, "without taking the grid's words back (a probe, against `ticket`)"),
    ("carveout_max", 1, -1, "the largest shared-memory carveout"),
    ("thread0", 2, 1, "warp 0 for the tail instead of thread 0 (against `ticket`)"),
    ("fences", 2, 1, "an acquire-release ticket instead of two fences (against `ticket`)"),
    ("shuffle_sum", 2, 1, "the block's digit sums by REDUX, not `cg::reduce`"),
    ("window_round", 2, 1, "the rounding by one conversion, not bit by bit"),
    ("copies2", 2, -1, "two copies of the grid's words (against `ticket`)"),
    ("group16", 2, -1, "groups of 16, 1536 threads a multiprocessor"),
    ("group16_1024", 2, -1, "groups of 16 at the step's occupancy"),
    ("prefetch", 2, -1, "an L2 prefetch of each thread's next group"),
    ("loads_only", 3, 1, "without the groups' arithmetic (a probe)"),
    ("skip_last", 3, 1, "without each thread's last group (a probe)"),
    ("no_convert", 3, 1, "without the conversions to double (a probe)"),
    ("float_hi", 3, 1, "the exponent test from the bits, not `fmaxf`"),
    ("split", 3, -1, "the sum in two float halves, no conversion"),
    ("spread", 3, -1, "the last round spread over every multiprocessor"),
    ("chunks", 3, -1, "4 KB a warp, loads at constant offsets"),
    ("pipe", 3, -1, "the next group's loads before the add into the digits"),
    ("async", 3, -1, "the next group copied by `cp.async` during the add"),
    ("bits1", 4, -1, "a quarter of the conversions by integer instructions"),
    ("bits2", 4, -1, "half of the conversions so"),
    ("bits4", 4, -1, "all of the conversions so"),
    ("dynamic1", 4, -1, "4 KB chunks taken from a counter, one at a time"),
    ("dynamic4", 4, -1, "the same, four at a time"),
    ("tree", 4, -1, "the group's ends and sum as trees, not chains"),
    ("adds3", 4, 1, "`acc_add` reading its three digits before writing any"),
    ("window", 4, -1, "three digits held in registers"),
    ("bulk", 5, -1, "each warp's next 4 KB copied by `cp.async.bulk`"),
    ("ahead1", 5, -1, "an L2 bulk prefetch of the warp's next 4 KB"),
    ("ahead2", 5, -1, "the same, two chunks ahead"),
    ("warm", 5, -1, "the ending run once at the start, its code cached"),
    ("compact", 5, -1, "the slow paths as one loop: 19 KB of code, not 44 KB"),
    ("fit", 5, 1, "whole rounds in the grid, not every block that fits"),
    ("roll", 6, -1, "the next group's loads rolled into this one's adds"),
    ("ticket", 6, 1, "grid words that count their blocks instead of a ticket"),
]


def signed(us, text=time_text):
    return ("−" if us < 0 else "") + text(abs(us))


class Tail:
    """One GPU's exact_tail.csv: each label's time at each n and the spread of its rounds."""

    def __init__(self, d):
        rows = read_csv(os.path.join(d, FILE))
        self.dir, self.device = d, rows[0]["device"].removeprefix("NVIDIA ")
        times, self.sizes = {}, {}
        for r in rows:
            if r["status"] == "OK" or not r["label"].startswith("step"):
                if (r["label"], int(r["n"])) not in times:
                    self.sizes.setdefault(r["label"], []).append(int(r["n"]))
                times.setdefault((r["label"], int(r["n"])), []).append(float(r["median_us"]))
        self.time, self.spread = {}, {}
        for (label, n), v in times.items():
            v.sort()
            m = len(v) // 2
            self.time[label, n] = v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2
            self.spread[n] = max(self.spread.get(n, 0), v[-1] - v[0])

    def cost(self, label, n):
        t, b = self.time.get((label, n)), self.time.get((BASE.get(label, "base"), n))
        if t is None or b is None:
            return None
        return b - t if label in LEAVES_OUT else t - b

    def costs(self, label, sign=1):
        got = [sign * c for c in (self.cost(label, n) for n in self.sizes.get(label, [])) if c is not None]
        return (min(got), max(got)) if got else None

    def verdict(self):
        met, missed = [], []
        for lo, hi, most in TARGETS:
            n = lo
            while n <= hi:
                a, b = self.time.get(("step10", n)), self.time.get(("step07", n))
                if a and b:
                    (met if a / b <= most else missed).append(f"{size_md(n)} ({ratio_text(a / b)})")
                n *= 2
        if not met and not missed:
            return None
        both = lambda l: l[0] if len(l) == 1 else ", ".join(l[:-1]) + " and " + l[-1]
        if not missed:
            return "within the targets at every size they name: " + both(met)
        if not met:
            return "outside the targets at every size they name: " + both(missed)
        return f"within the targets at {both(met)}; outside them at {both(missed)}"

    def table(self):
        body = [[name] + [time_text(self.time[l, n]) if (l, n) in self.time else "–" for n in SIZES]
                for l, name in STEPS.items()]
        for l, base in RATIOS.items():
            body.append([f"*{STEPS[l]} ÷ {STEPS[base]}*"] +
                        [ratio_text(self.time[l, n] / self.time[base, n])
                         if (l, n) in self.time and (base, n) in self.time else "–" for n in SIZES])
        return pipe_table(["program"] + [size_md(n) for n in SIZES], [":--"] + ["--:"] * len(SIZES), body,
                          f"Table: Step 07 and step 10 timed in turn, input not in L2, on {self.device}: each time "
                          f"the median of its rounds' medians, and step 10's over step 07's (`{self.dir}/{FILE}`).")

    def summary(self):
        out = [("verdict", "step10", "all", "", self.verdict())] if self.verdict() else []
        out += [("spread", "", power_label(n), "", time_text(s)) for n, s in sorted(self.spread.items())]
        for label, sizes in self.sizes.items():
            for n in sizes:
                out.append(("median", label, power_label(n), "", time_text(self.time[label, n])))
                if label in RATIOS and (RATIOS[label], n) in self.time:
                    out.append(("ratio", label, power_label(n), RATIOS[label],
                                ratio_text(self.time[label, n] / self.time[RATIOS[label], n])))
                if not label.startswith("step") and label != "base" and self.cost(label, n) is not None:
                    out.append(("cost", label, power_label(n), "", signed(self.cost(label, n))))
            if not label.startswith("step") and label != "base" and self.costs(label):
                lo, hi = self.costs(label)
                out.append(("cost", label, "all", "", f"{signed(lo)} to {signed(hi)}"))
        return [dict(zip(("what", "label", "n", "than", "text"), r)) for r in out]


def rounds_table(tails):
    """Every round's variants, each GPU a column: what each change saved, least to most, in µs."""
    seen, predicted = set(), {}
    for p in read_csv(os.path.join(ROOT, PREDICTIONS)):
        if p["id"] in seen:
            sys.exit(f"exact_tables.py: {PREDICTIONS} has the id '{p['id']}' twice")
        seen.add(p["id"])
        if p["variant"]:
            predicted[p["variant"]] = p
    number = lambda us: signed(us, lambda x: f"{x:.2f}")
    body = []
    for label, rnd, sign, what in ROUNDS:
        p = predicted.get(label)
        saved = [t.costs(label, sign) for t in tails]
        if any(saved):
            body.append([f"`{label}`", str(rnd), what, f"({p['id']}) {p['low_us']} to {p['high_us']}" if p else "–"] +
                        ["–" if not s else number(s[0]) if s[0] == s[1] else f"{number(s[0])} to {number(s[1])}"
                         for s in saved])
    files = ", ".join(f"`{t.dir}/{FILE}`" for t in tails)
    return pipe_table(["variant", "round", "the change", "predicted to save (µs)"] +
                      [f"saved (µs), {t.device}" for t in tails], [":--", "--:", ":--", ":--"] + ["--:"] * len(tails),
                      body, "Table: Each round's variants, each a copy of step 10 with one change: what the change "
                      "saved (below zero: what it cost), from the least to the most over the sizes measured; a probe "
                      "leaves a piece out, and saves what that piece takes. Each time the median of its rounds' "
                      f"medians ({files}); predicted: written before the timing (`{PREDICTIONS}`).")


def main():
    ap = argparse.ArgumentParser(description="the tables of the lab's page on step 10's rounds")
    ap.add_argument("--results", default="results", help="the folder of the results/<gpu>/ folders (results)")
    a = ap.parse_args()
    tails = [Tail(os.path.dirname(f)) for f in sorted(glob.glob(os.path.join(a.results, "*", FILE)))]
    for t in tails:
        with open(os.path.join(t.dir, "exact_tail.md"), "w") as f:
            f.write(t.table())
        write_csv(os.path.join(t.dir, "exact_tail_summary.csv"), t.summary(), ["what", "label", "n", "than", "text"])
    if tails:
        with open(os.path.join(a.results, "exact_rounds.md"), "w") as f:
            f.write(rounds_table(tails))
    print(f"written: {len(tails)} GPUs' exact_tail.md and exact_tail_summary.csv, {a.results}/exact_rounds.md",
          file=sys.stderr)


if __name__ == "__main__":
    main()
