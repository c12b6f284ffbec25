#!/usr/bin/env python3
"""reading_path.py: what a reader of each step reads, in lines.

A step's reading path is its file and every header it reaches by
`#include "..."` under steps/ and common/, each counted once. The design
caps it: steps 00-08, 11 and 12 at 450 lines, step 09 at 550, step 10 at 700
(and at 5 files).

    python3 tests/reading_path.py            one line per step: lines, files, the files
    python3 tests/reading_path.py --check    PASS/FAIL per step against its cap (tests/run)

"""
import argparse
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CAPS = {"09": 550, "10": 700}          # every other step: DEFAULT_CAP
DEFAULT_CAP = 450
FILE_CAPS = {"10": 5}                  # files on the path, where the design caps them too
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def reading_path(path, root=ROOT):
    """The files a reader of `path` reads, in the order first reached."""
    seen, todo = [], [os.path.normpath(path)]
    places = tuple(os.path.join(root, d) + os.sep for d in ("steps", "common"))
    while todo:
        f = todo.pop(0)
        if f in seen:
            continue
        seen.append(f)
        for name in INCLUDE.findall(open(f).read()):
            h = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if h.startswith(places) and os.path.exists(h) and h not in seen:
                todo.append(h)
    return seen


def lines(path):
    with open(path) as f:
        return sum(1 for _ in f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--root", default=ROOT)
    a = ap.parse_args()
    failed = 0
    for step in sorted(glob.glob(os.path.join(a.root, "steps", "[0-9][0-9]_*.cu"))):
        num = os.path.basename(step)[:2]
        files = reading_path(step, a.root)
        total = sum(lines(f) for f in files)
        cap = CAPS.get(num, DEFAULT_CAP)
        if not a.check:
            parts = ", ".join("%s %d" % (os.path.relpath(f, a.root), lines(f)) for f in files)
            print("step %s  %4d lines  %d files  (cap %d)  %s" % (num, total, len(files), cap, parts))
            continue
        fcap = FILE_CAPS.get(num)
        name = "alike/reading-path/step%s: %d lines in %d files, cap %d%s" % (
            num, total, len(files), cap, " lines and %d files" % fcap if fcap else "")
        if fcap and len(files) > fcap:
            failed += 1
            print("FAIL %s: %d files too many" % (name, len(files) - fcap))
        elif total <= cap:
            print("PASS %s" % name)
        else:
            failed += 1
            print("FAIL %s: over by %d" % (name, total - cap))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
