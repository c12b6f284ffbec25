#!/usr/bin/env python3
"""stamps_csv.py PROGRAM=FILE ... > stamps.csv: the lines `stamps` prints
(variants.sh builds it), one row a launch, for the chapters' numbers."""
import re
import sys

print("program,run,n,grid,start_to_first_ticket_us,first_to_last_ticket_us,combine_us,level1_cycles,level2_cycles")
for arg in sys.argv[1:]:
    program, path = arg.split("=", 1)
    for line in open(path):
        f = dict(re.findall(r"(\w+)=([-\d,]+)", line))
        if "combine_ns" not in f:
            continue
        levels = f["level_cycles"].split(",")
        print(f"{program},{path.rsplit('/', 1)[-1]},{f['n']},{f['grid']},{int(f['start_to_first_ticket_ns']) / 1e3:.3f},"
              f"{int(f['first_to_last_ticket_ns']) / 1e3:.3f},{int(f['combine_ns']) / 1e3:.3f},{levels[0]},{levels[1]}")
