#!/usr/bin/env python3
"""alike.py: copies that stay alike.

Every step and answer is a whole program, so a later step repeats the
functions of the step before it, and an answer repeats the step it changes.
This test holds each file against its base (step NN against step NN-1, or
the step its header names after "Base:", an answer NN_name against step NN,
an answer flag_name against lab/small-sizes/flag_sum.cu,
answers/nccl_comms.cuh against step 09, and the lab's copies of a step,
LAB_COPIES, against that step): every function the two share by name must be
the same text, except those the file's header comment names after "Changed
functions:". Prints TAP-like lines: "PASS name" / "FAIL name: why".

    python3 tests/alike.py [--root DIR]      exit 1 if any FAIL
"""
import argparse
import glob
import os
import re
import sys

# A function definition starts at column 0 with a return type and a name
# followed by "(", and ends at the first "}" at column 0.
DEF = re.compile(r"^(?:template\s*<[^>]*>\s*)?(?:(?:static|__global__|__device__|__host__|inline|"
                 r"__forceinline__|const)\s+)*[A-Za-z_][\w:<>*\s]*?[\s*](?:__launch_bounds__\(\w+\)\s+)?"
                 r"([A-Za-z_]\w*)\s*\(")


def functions(text):
    """name -> definition text, for every function defined at column 0."""
    out, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        m = DEF.match(lines[i])
        if m and not lines[i].rstrip().endswith(";") and m.group(1) not in ("if", "for", "while"):
            if "{" in lines[i] and lines[i].rstrip().endswith("}"):      # on one line: not held
                i += 1                                                    # (main, tiny helpers)
                continue
            j = i
            while j < len(lines) and lines[j] != "}":
                if lines[j].rstrip().endswith(";") and j == i:
                    break
                j += 1
            if j < len(lines) and lines[j] == "}":
                out[m.group(1)] = "\n".join(lines[i:j + 1])
                i = j + 1
                continue
        i += 1
    return out


def changed_list(text):
    """The names after "Changed functions:" in the file's first comment."""
    head = text.split("*/", 1)[0]
    m = re.search(r"Changed functions:(.*?)(?:\n \*\s*\n|\Z)", head, re.S)
    if not m:
        return set()
    return set(re.findall(r"[A-Za-z_]\w*", m.group(1).replace("*", " ")))


# The lab's programs that copy a step on purpose, and the step each copies.
LAB_COPIES = [("lab/claims/grid_sync.cu", "07"),
              ("lab/claims/one_per_thread.cu", "03"),
              ("lab/tuning/tune.cu", "06")]

INCLUDE = re.compile(r'^#include "([^"]+\.cuh)"', re.M)


def with_headers(path):
    """The text of every steps/*.cuh the file includes, then the file's: a
    step that keeps its base's kernels in a shared header still has them."""
    text = open(path).read()
    headers = ""
    for name in INCLUDE.findall(text):
        header = os.path.normpath(os.path.join(os.path.dirname(path), name))
        if os.path.exists(header):
            headers += open(header).read() + "\n"
    return headers + text


def named_base(path, root):
    """The file its header names after "Base:" (a path from the root), or None."""
    m = re.search(r"^ \* Base: (\S+)", open(path).read().split("*/", 1)[0], re.M)
    return os.path.join(root, m.group(1)) if m else None


def pairs(root):
    steps = {os.path.basename(p)[:2]: p for p in glob.glob(os.path.join(root, "steps", "[0-9][0-9]_*.cu"))}
    for num, path in sorted(steps.items()):
        prev = "%02d" % (int(num) - 1)
        base = named_base(path, root)
        if base or prev in steps:
            yield path, base or steps[prev]
    # Step 09's communicators, repeated for the answers on several GPUs.
    comms = os.path.join(root, "answers", "nccl_comms.cuh")
    if os.path.exists(comms):
        yield comms, os.path.join(root, "steps", "09_multi_gpu.cu")
    for path in sorted(glob.glob(os.path.join(root, "answers", "[0-9][0-9]_*.cu"))):
        num = os.path.basename(path)[:2]
        if num in steps:
            yield path, steps[num]
    # The answers of the appendix on small sizes change the flag-word sum.
    for path in sorted(glob.glob(os.path.join(root, "answers", "flag_*.cu"))):
        yield path, os.path.join(root, "lab", "small-sizes", "flag_sum.cu")
    for copy, num in LAB_COPIES:
        yield os.path.join(root, copy), steps.get(num, os.path.join(root, "steps", num + "_?.cu"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    failed = 0
    for path, base in pairs(args.root):
        missing = [p for p in (path, base) if not os.path.exists(p)]
        if missing:
            failed += 1
            print("FAIL alike/%s: no such file" % os.path.relpath(missing[0], args.root))
            continue
        mine, theirs = functions(with_headers(path)), functions(with_headers(base))
        listed = changed_list(open(path).read())
        name = "alike/%s vs %s" % (os.path.relpath(path, args.root), os.path.basename(base))
        differ = sorted(f for f in mine if f in theirs and mine[f] != theirs[f])
        unlisted = [f for f in differ if f not in listed]
        stale = sorted(f for f in listed if f not in differ)
        if unlisted:
            failed += 1
            print("FAIL %s: %s differ%s from the base and %s not under \"Changed functions:\" in the header"
                  % (name, ", ".join(unlisted), "s" if len(unlisted) == 1 else "",
                     "is" if len(unlisted) == 1 else "are"))
        elif stale:
            failed += 1
            print("FAIL %s: the header lists %s as changed, but %s the same as the base's or not in both"
                  % (name, ", ".join(stale), "it is" if len(stale) == 1 else "they are"))
        else:
            print("PASS %s (%d shared, %d changed)" % (name, len([f for f in mine if f in theirs]), len(differ)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
