#!/usr/bin/env python3
"""course_check.py: is course/ what the sources make today?

    course_check.py stamp DIR PANDOC_VERSION FILE...
        write DIR/sources.sha256: the Pandoc version, then the SHA-256 of every
        file course/ was made from (make course does this)
    course_check.py check DIR FILE...
        compare the files of today with DIR/sources.sha256; print one line per
        file added, removed or changed since, and exit 1 if there is any

The check needs no Pandoc, so it runs everywhere; tests/docs.sh also renders
course/ again and compares it whole where the Pandoc version is the same.
"""
import hashlib
import os
import sys

STAMP = "sources.sha256"


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def stamp(folder, version, files):
    with open(os.path.join(folder, STAMP), "w", encoding="utf-8") as out:
        out.write("# course/ was made from these files by `make course`, with " + version + "\n")
        for f in sorted(set(files)):
            out.write(f"{digest(f)}  {f}\n")
    return 0


def read_stamp(folder):
    path = os.path.join(folder, STAMP)
    if not os.path.isfile(path):
        return None, {}
    version, files = "", {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            version = line.rsplit("with ", 1)[-1]
        elif line:
            h, name = line.split("  ", 1)
            files[name] = h
    return version, files


def check(folder, files):
    version, recorded = read_stamp(folder)
    if version is None:
        print(f"{folder}/{STAMP} is missing: run make course")
        return 1
    problems = []
    now = sorted(set(files))
    for f in now:
        if f not in recorded:
            problems.append(f"{f} is new since {folder}/ was made")
        elif digest(f) != recorded[f]:
            problems.append(f"{f} changed since {folder}/ was made")
    for f in sorted(set(recorded) - set(now)):
        problems.append(f"{f} is gone since {folder}/ was made")
    for p in problems:
        print(p + ": run make course")
    print(f"{len(now)} sources, made with {version}", file=sys.stderr)
    return 1 if problems else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "stamp":
        return stamp(sys.argv[2], sys.argv[3], sys.argv[4:])
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3:])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
