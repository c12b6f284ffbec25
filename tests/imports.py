#!/usr/bin/env python3
"""imports.py: no circle among the scripts' imports of each other.

    python3 tests/imports.py [DIR...]     (default: bench and every folder of lab/)

A script may import the scripts of its own folder and of bench/ (the lab's
scripts use the comparison's helpers); those imports, at the top of a file or
inside a function, make a graph, which must have no cycle: a module that
imports another that imports it back runs half-loaded. Prints one PASS or
FAIL line (tests/run's bench group); exit 1 on a circle.
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
    graph, count = {}, 0
    for d in dirs:
        local = modules([bench, d] if os.path.abspath(d) != os.path.abspath(bench) else [d])
        for path in sorted(glob.glob(os.path.join(d, "*.py"))):
            name = os.path.relpath(path, ROOT)
            graph[name] = [os.path.relpath(local[m], ROOT) for m in imports(path, local)]
            count += 1
    found = cycle(graph)
    if found:
        print("FAIL bench/imports: a circle: %s" % " -> ".join(found))
        return 1
    print("PASS bench/imports: no circle among %d scripts' imports" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
