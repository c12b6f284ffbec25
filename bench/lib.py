"""lib.py: the helpers that the scripts of bench/ and lab/ share, each written once.

A script in bench/ imports it as it is (`python3 bench/x.py` puts bench/ on
Python's path); a script in lab/<topic>/ first puts bench/ there:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
    from lib import ROOT, progress  # noqa: E402

tests/imports.py fails if a script of bench/ or lab/ defines one of these again.
Only the Python standard library.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def progress(msg):
    """One line on stderr at once: what a measuring script is doing."""
    print(msg, file=sys.stderr, flush=True)


def slug(device):
    """The results folder's name for a GPU: "NVIDIA H200" -> "nvidia-h200"."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")


def power_label(n, least=1):
    """n as 2^K (a power of two from least on), M*2^K (n a multiple of 2^10) or digits."""
    if n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}" if n >= least else str(n)
    low = (n & -n).bit_length() - 1
    return f"{n >> low}*2^{low}" if low >= 10 else str(n)


def parse_n(text):
    """1000, 2^24, 3*2^33, 10^6+3: digits, powers, products and sums, as the harness reads --n."""
    if not re.fullmatch(r"[0-9]+([*^+][0-9]+)*", text.strip()):
        raise argparse.ArgumentTypeError(f"'{text}': write N as 2^K, M*2^K, digits or a sum of those (2^20+3)")
    total = 0
    for term in text.strip().split("+"):
        product = 1
        for factor in term.split("*"):
            parts = [int(p) for p in factor.split("^")]
            value = parts[-1]
            for p in reversed(parts[:-1]):         # 2^3^2 = 2^9, as Python's 2**3**2
                value = p ** value
            product *= value
        total += product
    return total


def read_csv(path):
    """The rows of a CSV file, as dicts."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, rows, fields, **options):
    """rows under a header of fields, lines ended by \\n (options go to csv.DictWriter)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, **{"lineterminator": "\n", **options})
        w.writeheader()
        w.writerows(rows)


def md_table(head, body, align=None):
    """A Markdown table: the head, the alignment row (--- each by default), the body's rows."""
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align or ["---"] * len(head)) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in body])


def fmt_time(us):
    """A median time for a table: 12.34 µs, 123.4 µs, 1.23 ms."""
    if us >= 1000:
        return f"{us / 1000:.2f} ms"
    if us >= 100:
        return f"{us:.1f} µs"
    return f"{us:.2f} µs"


def time_text(us):
    """A time as the pages write it (docs/filters/numbers.lua): 7.34 µs, 123.4 µs, 1.23 ms, 123.4 ms, 1.23 s."""
    if us < 100:
        return f"{us:.2f} µs"
    if us < 1000:
        return f"{us:.1f} µs"
    if us < 1e5:
        return f"{us / 1000:.2f} ms"
    return f"{us / 1000:.1f} ms" if us < 1e6 else f"{us / 1e6:.2f} s"


def ratio_text(r):
    """A ratio as the pages write it: 1.23×, 0.074×, 12.3×, 1351×."""
    if r < 0.1:
        return f"{r:.2g}×"
    return f"{r:.0f}×" if r >= 100 else f"{r:.1f}×" if r >= 10 else f"{r:.2f}×"


def size_md(n):
    """n as the pages write it: 2^24^ (a superscript in Pandoc's Markdown), other n as digits."""
    return f"2^{n.bit_length() - 1}^" if n & (n - 1) == 0 else str(n)


def pipe_table(head, align, body, caption):
    """A Markdown table as the lab's pages show it, with its caption (Table: ...)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in body] + ["", caption]) + "\n"


def make_list(target):
    """The names a `make print-...` target prints (steps/07_cooperative.cu -> 07_cooperative)."""
    p = subprocess.run(["make", "-s", "--no-print-directory", target], cwd=ROOT,
                       capture_output=True, text=True, check=True)
    return [os.path.basename(f)[:-3] for f in p.stdout.split()]


def run_csv(cmd, what):
    """Runs a program with --csv; returns its rows and a note if it failed."""
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.stdout.strip() else []
    note = ""
    if p.returncode != 0:
        note = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
    elif p.stderr.startswith("SKIP "):                   # bench/torch_sum.py: the library would not start
        note = p.stderr.strip().splitlines()[0]
    progress(f"  {what}: {len(rows)} rows in {time.time() - t0:.1f} s" + (f"  ({note})" if note else ""))
    return rows, note


_lock = None


def gpu_turn():
    """Waits until no other measuring script of this tree holds the GPU, then
    holds it until this process ends: `make -j compare claims accuracy` then
    measures one after the other instead of each timing the others' work."""
    global _lock
    import fcntl
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    _lock = open(os.path.join(ROOT, "build", "gpu.lock"), "w")
    try:
        fcntl.flock(_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        progress("waiting for another measuring script to finish (build/gpu.lock)")
        fcntl.flock(_lock, fcntl.LOCK_EX)
