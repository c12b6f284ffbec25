#!/usr/bin/env python3
"""funclen.py: no function longer than a reader takes in at once.

Every function defined in the harness (common/**/*.c, *.h), the steps
(steps/*.cu, *.cuh), the benchmark programs (bench/*.cu, *.cuh, *.h), the
lab's programs (lab/**/*.cu, *.cuh, *.h) and the scripts (bench/*.py,
lab/**/*.py, tests/*.py) must be at most MAX_LINES lines long, from
the line with its name to its closing brace (C, CUDA) or its last line
(Python). Prints one line:

    PASS hygiene/function-length (N functions, longest NAME at L lines)
    FAIL hygiene/function-length: FILE:NAME L lines, ...

    python3 tests/funclen.py [--root DIR]      exit 1 on FAIL
"""
import argparse
import ast
import glob
import os
import re
import sys

MAX_LINES = 60

# Where the functions are: (folder, file patterns, recursive?).
C_PLACES = [("common", ("*.c", "*.h"), True),
            ("steps", ("*.cu", "*.cuh"), False),
            ("bench", ("*.cu", "*.cuh", "*.h"), False),
            ("lab", ("*.cu", "*.cuh", "*.h"), True)]
PY_PLACES = [("bench", ("*.py",), False),
             ("lab", ("*.py",), True),
             ("tests", ("*.py",), False)]

# A C or CUDA definition starts at column 0 with its qualifiers, a return
# type and a name followed by "(" (as in tests/alike.py): e.g.
#     template <int BLOCK> __global__ void __launch_bounds__(BLOCK, 2) sum_kernel(
#     static const char *option_name(
# "template <...>" may also stand on the line above; it is not counted.
DEF = re.compile(r"^(?:template\s*<[^>]*>\s*)?"
                 r"(?:(?:static|extern|__global__|__device__|__host__|inline|__inline__|"
                 r"__forceinline__|__noinline__|const|constexpr)\s+)*"
                 r"[A-Za-z_][\w:<>,*&\s]*?[\s*&]"
                 r"(?:__launch_bounds__\([^)]*\)\s+)?"
                 r"([A-Za-z_]\w*)\s*\(")
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "__launch_bounds__"}


def files(root, places):
    """Every file under root that places name, sorted."""
    out = set()
    for folder, patterns, recursive in places:
        for pattern in patterns:
            where = os.path.join(root, folder, "**", pattern) if recursive else os.path.join(root, folder, pattern)
            out.update(glob.glob(where, recursive=recursive))
    return sorted(out)


# Comments, strings and characters, blanked before braces are counted.
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_only(text):
    """text with its comments, strings and characters made spaces (newlines kept)."""
    return NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def body_start(lines, i):
    """The line of a definition's first "{" from line i on, or None where a
    ";" ends the declaration first (a prototype)."""
    for j in range(i, len(lines)):
        if "{" in lines[j]:
            return j
        if lines[j].rstrip().endswith(";"):
            return None
    return None


def c_functions(text):
    """(name, first line, length) for every function defined at column 0."""
    out, lines, i = [], code_only(text).split("\n"), 0
    while i < len(lines):
        m = DEF.match(lines[i])
        open_at = body_start(lines, i) if m and m.group(1) not in NOT_NAMES else None
        if open_at is None:
            i += 1
            continue
        opening = lines[open_at]
        if opening.count("{") == opening.count("}"):       # the whole body on one line
            end = open_at
        else:
            end = next((j for j in range(open_at + 1, len(lines)) if lines[j].rstrip() == "}"), None)
            if end is None:
                i += 1
                continue
        out.append((m.group(1), i + 1, end - i + 1))
        i = end + 1
    return out


def py_functions(text, path):
    """(name, first line, length) for every def, methods as Class.name."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(text, filename=path), "")
    return out


def measure(root):
    """(file, name, length) for every function in the places above."""
    found = []
    for path in files(root, C_PLACES):
        with open(path, encoding="utf-8") as f:
            found += [(path, name, length) for name, _, length in c_functions(f.read())]
    for path in files(root, PY_PLACES):
        with open(path, encoding="utf-8") as f:
            found += [(path, name, length) for name, _, length in py_functions(f.read(), path)]
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    found = measure(args.root)
    if not found:
        print("FAIL hygiene/function-length: no function found under %s" % args.root)
        return 1
    over = sorted((f for f in found if f[2] > MAX_LINES), key=lambda f: (-f[2], f[0], f[1]))
    if over:
        print("FAIL hygiene/function-length: " + ", ".join(
            "%s:%s %d lines" % (os.path.relpath(path, args.root), name, length) for path, name, length in over)
            + " (at most %d)" % MAX_LINES)
        return 1
    path, name, length = max(found, key=lambda f: f[2])
    print("PASS hygiene/function-length (%d functions, longest %s:%s at %d lines)"
          % (len(found), os.path.relpath(path, args.root), name, length))
    return 0


if __name__ == "__main__":
    sys.exit(main())
