#!/usr/bin/env python3
"""misusecheck.py: does tests/misuse.txt cover every kind of misuse?

    python3 tests/misusecheck.py [tests/misuse.txt]

tests/run runs each row of the table; this checks the table itself. Each row
is classified from its arguments (split by bash, as tests/run does), and the
table must hold, for every option that takes a value, a row that gives it:

    empty       --reps ''  or  --reps=
    missing     --reps at the end, with no value
    negative    --reps -3
    zero        --reps 0   (not --seed, whose 0 is a seed like any other)
    text        --reps abc
    too large   --reps 1000000: a number past the option's documented limit
    past 2^64   --reps 99999999999999999999999: past any 64-bit integer
    garbage     --reps 5x: a number with something after it
    twice       --reps 2 --reps 3

and for every flag: given a value (--csv=1) and given twice; and besides: an
unknown option, a stray argument, --check-only with --reps, a hidden GPU
(CUDA_VISIBLE_DEVICES=), and for each step every kind of --block its rule
refuses (read from the step's .block_rule). Prints one line, PASS or FAIL, with
the number of rows and of runs (rows x steps).
"""
import re
import subprocess
import sys
from pathlib import Path

VALUE_OPTIONS = {
    # option: the largest value it accepts
    "--n": 2**40,
    "--reps": 100000,
    "--seed": 2**64 - 1,
    "--block": 1024,
    "--grid": 2**31 - 1,
}
FLAGS = ["--csv", "--check-only", "--warm", "--wait-each", "--help"]
# Options whose value is a name or a path: the kinds of misuse each must have a row for.
NAMED = {
    "--input": ["empty", "missing", "unknown name", "twice"],
    "--input-file": ["empty", "missing", "no such file", "twice", "with --n", "with --seed",
                     "with --input"],
    "--type": ["empty", "missing", "unknown name", "twice"],              # step 12's
    "--op": ["empty", "missing", "unknown name", "twice"],
    "--save-input": ["empty", "missing", "no such file", "twice"],
}
KINDS = ["empty", "missing", "negative", "zero", "text", "too large", "past 2^64",
         "garbage", "twice"]


def shell_split(args):
    """The arguments exactly as bash splits them for tests/run's eval."""
    out = subprocess.run(["bash", "-c", 'eval "set -- $1"; printf "%s\\0" "$@"', "_", args],
                         capture_output=True, check=True).stdout
    return [a.decode("utf-8", "replace") for a in out.split(b"\0")[:-1]]


def size_value(text):
    """The value of a plain number or a simple size expression, or None."""
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    m = re.fullmatch(r"([0-9]+)\^([0-9]+)", text)
    if m:
        return int(m.group(1)) ** min(int(m.group(2)), 200)
    m = re.fullmatch(r"([0-9]+)e([0-9]+)", text)
    if m:
        return int(m.group(1)) * 10 ** min(int(m.group(2)), 200)
    return None


def kinds_of(argv):
    """(option, kind) pairs that one row's arguments exercise."""
    found = set()
    for opt in VALUE_OPTIONS:
        given = [i for i, a in enumerate(argv) if a == opt or a.startswith(opt + "=")]
        if len(given) > 1:
            found.add((opt, "twice"))
        for i in given:
            if argv[i].startswith(opt + "="):
                value = argv[i][len(opt) + 1:]
            elif i + 1 < len(argv):
                value = argv[i + 1]
            else:
                found.add((opt, "missing"))
                continue
            first = value.split(",")[0]
            v = size_value(first) if opt == "--n" else (int(first) if first.isdigit() else None)
            if value == "":
                found.add((opt, "empty"))
            elif re.match(r"-[0-9]", value):
                found.add((opt, "negative"))
            elif v == 0:
                found.add((opt, "zero"))
            elif re.match(r"[A-Za-z]", value):
                found.add((opt, "text"))
            elif v is not None and v >= 2**64:
                found.add((opt, "past 2^64"))
            elif v is not None and v > VALUE_OPTIONS[opt]:
                found.add((opt, "too large"))
            elif re.fullmatch(r"[0-9]+[A-Za-z]+", value) and not (
                    opt == "--n" and re.fullmatch(r"[0-9]+[KMGkmg]", value)):
                found.add((opt, "garbage"))
    for flag in FLAGS:
        if any(a.startswith(flag + "=") for a in argv):
            found.add((flag, "value"))
        if argv.count(flag) > 1:
            found.add((flag, "twice"))
    names = [a.split("=")[0] for a in argv]
    found |= named_kinds(argv, names)
    known = set(VALUE_OPTIONS) | set(FLAGS) | set(NAMED) | {"-h"}
    for i, a in enumerate(argv):
        takes_value = i > 0 and argv[i - 1] in set(VALUE_OPTIONS) | set(NAMED)
        if a.startswith("-") and names[i] not in known and not takes_value:
            found.add(("any", "unknown option"))
        if not a.startswith("-") and not takes_value:
            found.add(("any", "stray argument"))
    if "--check-only" in argv and "--reps" in names:
        found.add(("any", "--check-only with --reps"))
    return found


def named_kinds(argv, names):
    """(option, kind) pairs for the options that take a name or a path."""
    found = set()
    for opt in NAMED:
        given = [i for i, a in enumerate(names) if a == opt]
        if len(given) > 1:
            found.add((opt, "twice"))
        for i in given:
            value = argv[i][len(opt) + 1:] if "=" in argv[i] else argv[i + 1] if i + 1 < len(argv) else None
            if value is None or value.startswith("--"):
                found.add((opt, "missing"))
            elif value == "":
                found.add((opt, "empty"))
            elif opt in ("--input", "--type", "--op"):
                found.add((opt, "unknown name"))
            elif not Path(value).exists():
                found.add((opt, "no such file"))
    if "--input-file" in names:
        for other in ("--n", "--seed", "--input"):
            if other in names:
                found.add(("--input-file", "with " + other))
    return found


def block_kinds(argv):
    """The kinds of refused --block value a row gives: below, between, above."""
    for i, a in enumerate(argv):
        value = a[len("--block="):] if a.startswith("--block=") else (
            argv[i + 1] if a == "--block" and i + 1 < len(argv) else None)
        if value is None or not value.isdigit():
            continue
        v = int(value)
        if v < 1:
            yield "0"
        if 1 <= v < 32:
            yield "below 32"
        if 32 < v < 1024 and v & (v - 1):
            yield "not a power of two"
        if 1024 < v <= 2**20:
            yield "above 1024"


# What each step's --block rule refuses (the kinds block_kinds names).
REFUSED = {
    "BLOCK_ANY": {"0", "above 1024"},
    "BLOCK_POW2": {"0", "below 32", "not a power of two", "above 1024"},
    "BLOCK_NONE": {"0", "below 32", "not a power of two", "above 1024"},
}


def block_rules():
    """{"03": "BLOCK_POW2"}: each step's .block_rule, read from steps/."""
    steps = {}
    for f in sorted(Path("steps").glob("[0-9][0-9]_*.cu")):
        text = f.read_text()
        m = re.search(r"\.block_rule\s*=\s*(BLOCK_\w+)", text)
        # A step on several GPUs (multi_step_t) or of any type (types_step_t) takes powers of
        # two, like steps 01-08.
        pow2 = "multi_step_t" in text or "types_step_t" in text
        steps[f.name[:2]] = m.group(1) if m else "BLOCK_POW2" if pow2 else "BLOCK_ANY"
    return steps


def read_table(table, steps):
    """Classifies every row of the table: (rows, runs, the kinds of misuse
    seen, the --block kinds seen per step, the rows that are malformed)."""
    rows = runs = 0
    seen = set()
    block_seen = {s: set() for s in steps}
    problems = []
    for number, line in enumerate(table.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("|", 4)
        if len(fields) != 5:
            problems.append(f"line {number}: not 5 fields")
            continue
        which, env, args, want, _ = (f.strip() for f in fields)
        names = list(steps) if which == "all" else which.split()
        unknown = [s for s in names if s not in steps]
        if unknown or want not in ("0", "2", "3"):
            problems.append(f"line {number}: steps {unknown} or exit {want} not known")
            continue
        rows += 1
        runs += len(names)
        argv = shell_split(args)
        if want == "3" and env.startswith("CUDA_VISIBLE_DEVICES="):
            seen.add(("any", "no visible GPU"))
        if want != "2":
            continue
        seen |= kinds_of(argv)
        for s in names:
            block_seen[s] |= set(block_kinds(argv))
    return rows, runs, seen, block_seen, problems


def missing_kinds(seen, steps, block_seen):
    """Every kind of misuse that no row of the table gives."""
    missing = [f"{opt} {kind}" for opt in VALUE_OPTIONS for kind in KINDS
               if (opt, kind) not in seen and not (opt == "--seed" and kind in ("zero", "too large"))]
    missing += [f"{flag} {kind}" for flag in FLAGS for kind in ("value", "twice")
                if (flag, kind) not in seen]
    missing += [f"{opt} {kind}" for opt, kinds in NAMED.items() for kind in kinds if (opt, kind) not in seen]
    missing += [kind for kind in ("unknown option", "stray argument", "--check-only with --reps",
                                  "no visible GPU") if ("any", kind) not in seen]
    for s, rule in steps.items():
        for kind in sorted(REFUSED[rule] - block_seen[s]):
            missing.append(f"step{s} --block {kind} ({rule})")
    return missing


def main():
    table = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/misuse.txt")
    steps = block_rules()
    rows, runs, seen, block_seen, problems = read_table(table, steps)
    missing = missing_kinds(seen, steps, block_seen)
    if missing:
        problems.append("no row for: " + ", ".join(missing))
    if problems:
        print(f"FAIL hygiene/misuse-table: {'; '.join(problems)}")
        return 1
    print(f"PASS hygiene/misuse-table ({rows} rows, {runs} runs over {len(steps)} steps; "
          f"every option empty, missing, negative, zero, text, too large, past 2^64, "
          f"trailing garbage, twice; flags with a value and twice; every refused --block)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
