#!/usr/bin/env python3
"""imports.py: no circle among the scripts' imports of each other, and no
private copy of a helper of bench/lib.py.

    python3 tests/imports.py [DIR...]     (default: bench and every folder of lab/)

A script may import the scripts of its own folder and of bench/ (the lab's
scripts use bench/lib.py's helpers); those imports, at the top of a file or
inside a function, make a graph, which must have no cycle: a module that
imports another that imports it back runs half-loaded. A function that
bench/lib.py defines is defined there alone: a script that defines one of the
same name again is a copy that will drift. Prints one PASS or FAIL line for
each (tests/run's bench group); exit 1 on a circle or a copy.
"""
import ast
import glob
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def modules(dirs):
    """name -> path, for every *.py in dirs; a name in two folders means bench/'s."""
    found = {}
    for d in reversed(dirs):
        for path in sorted(glob.glob(os.path.join(d, "*.py"))):
            found[os.path.splitext(os.path.basename(path))[0]] = path
    return found


def imports(path, local):
    """The local modules that the file at path imports."""
    tree = ast.parse(open(path).read(), path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return sorted(m for m in out if m in local)


def defined(path):
    """The names of the functions defined at the top of the file at path."""
    tree = ast.parse(open(path).read(), path)
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def copies(paths, lib):
    """'script: name' for each function of lib that another of paths defines again."""
    shared = defined(lib)
    return ["%s: %s" % (os.path.relpath(p, ROOT), name) for p in paths if os.path.abspath(p) != os.path.abspath(lib)
            for name in sorted(defined(p) & shared)]


def cycle(graph):
    """One cycle of the graph as a list of names, or None."""
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in graph.get(n, ()):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in state:
                found = visit(m, path + [m])
                if found:
                    return found
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n, [n])
            if found:
                return found
    return None


def main():
    dirs = sys.argv[1:] or [os.path.join(ROOT, "bench")] + sorted(
        d for d in glob.glob(os.path.join(ROOT, "lab", "*")) if os.path.isdir(d))
    bench = os.path.join(ROOT, "bench")
    graph, paths = {}, []
    for d in dirs:
        local = modules([bench, d] if os.path.abspath(d) != os.path.abspath(bench) else [d])
        for path in sorted(glob.glob(os.path.join(d, "*.py"))):
            name = os.path.relpath(path, ROOT)
            graph[name] = [os.path.relpath(local[m], ROOT) for m in imports(path, local)]
            paths.append(path)
    found, failed = cycle(graph), 0
    if found:
        print("FAIL bench/imports: a circle: %s" % " -> ".join(found))
        failed = 1
    else:
        print("PASS bench/imports: no circle among %d scripts' imports" % len(paths))
    again = copies(paths, os.path.join(bench, "lib.py"))
    if again:
        print("FAIL bench/imports/copies: bench/lib.py's helpers defined again: %s" % ", ".join(again))
        failed = 1
    else:
        print("PASS bench/imports/copies: no script defines a helper of bench/lib.py again")
    return failed


if __name__ == "__main__":
    sys.exit(main())
