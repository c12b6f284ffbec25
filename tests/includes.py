#!/usr/bin/env python3
"""includes.py [--root DIR]: every #include "..." in the course's C and CUDA
sources names a file that is there: beside the including file, or in one of
the folders the Makefile passes with -I (steps/, answers/). A header moved
without its includers is caught here, on machines that cannot build every
program (the answers on several GPUs need NCCL and MPI)."""
import os, re, sys

root = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv else "."
SEARCH = ["steps", "answers"]
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
bad, seen = [], 0
for top in ["common", "steps", "answers", "lab", "tests", "bench"]:
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if not f.endswith((".c", ".h", ".cu", ".cuh")):
                continue
            path = os.path.join(d, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for name in INC.findall(text):
                seen += 1
                where = [d] + [os.path.join(root, s) for s in SEARCH]
                if not any(os.path.isfile(os.path.join(w, name)) for w in where):
                    bad.append(f'{os.path.relpath(path, root)}: "{name}"')
if bad:
    for b in bad:
        print(f"FAIL alike/includes/{b} is not found")
else:
    print(f"PASS alike/includes ({seen} includes, each found)")
