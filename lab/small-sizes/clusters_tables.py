"""clusters_tables.py: the tables of `make clusters` (lab/small-sizes/clusters.py), from its CSVs.

    Saved(dir)          latency.csv, clusters.csv and clusters_floor.csv of one GPU, indexed
    render(saved, md)   the pieces' table and the programs' table, as text or Markdown
    verdict(saved)      the last lines printed: does each candidate meet the targets?
    write_page(saved, out_dir, name)   the appendix's tables (clusters_pieces.md, clusters_grid.md,
                        clusters_meet.md, clusters_flag*.md) and numbers (clusters_summary.csv)

    python3 lab/small-sizes/clusters_tables.py [--results results]
                        writes the appendix's files for every results/<gpu>/ with a clusters.csv

The targets, at every power of two in their range, for a program as it
chooses its launch: its median time at most 1.35x the read-only kernel's
(2^14 to 2^22), and CUB's median time at least 1.3x its own (2^14 to 2^20).
"""
import os

import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))  # bench/lib.py
from lib import ROOT, md_table, pipe_table, power_label, ratio_text, read_csv, size_md, time_text, write_csv  # noqa: E402

SIZES = [2 ** k for k in range(10, 25)]
PROBE_SIZES = [2 ** k for k in (14, 16, 18, 20, 22)]
REPS = 200
TARGET_FLOOR = (2 ** 14, 2 ** 22, 1.35)      # sizes, and at most this times the floor's time
TARGET_CUB = (2 ** 14, 2 ** 20, 1.3)         # sizes, and at least this times CUB's speed
CANDIDATES = ("flag_sum", "clusters")        # the programs judged, as they choose
TEXT_SIZES = [2 ** k for k in (12, 14, 16, 18, 20, 22, 24)]
TEXT_LABELS = ("flag_sum", "clusters", "clusters_wait", "clusters_pdl", "clusters_async",
               "07_cooperative", "cub", "torch.sum", "cupy.sum")


class Saved:
    """The CSVs of one GPU, indexed."""

    def __init__(self, out_dir):
        self.rows = read_csv(os.path.join(out_dir, "clusters.csv"))
        self.labels = list(dict.fromkeys(r["label"] for r in self.rows))
        self.by = {(r["label"], int(r["n"])): r for r in self.rows}
        self.device = self.rows[0]["device"]
        path = os.path.join(out_dir, "latency.csv")
        self.probes = read_csv(path) if os.path.exists(path) else []
        path = os.path.join(out_dir, "clusters_floor.csv")
        self.floor = {int(r["bytes"]) // 4: float(r["median_us"])
                      for r in (read_csv(path) if os.path.exists(path) else []) if r["kind"] == "floor"}

    def time(self, label, n):
        r = self.by.get((label, n))
        return float(r["median_us"]) if r and r["status"] == "OK" else None

    def best(self, n, prefix):
        """The fastest row at n among the labels that start with prefix: (time, label)."""
        got = [(self.time(l, n), l) for l in self.labels if l.startswith(prefix) and self.time(l, n)]
        return min(got) if got else (None, "-")

    def wrong(self):
        out = sorted({f"{r['label']} at {power_label(int(r['n']))}" for r in self.rows if r["status"] != "OK"})
        return out + [f"probe {r['probe']} ({r['cluster']}x{r['block']}) at {power_label(int(r['n']))}"
                      for r in self.probes if r["check"] == "WRONG"]


def table(head, body, markdown):
    if markdown:
        return md_table(head, body, ["---"] + ["--:"] * (len(head) - 1))
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(head)] + [fmt(r) for r in body])


def probe_table(saved, markdown, block="512"):
    """Each probe's median at every probe size: plain ones with blocks of `block` threads (the
    steps' at these sizes), cluster ones at their best cluster size and block (shown)."""
    sizes = sorted({int(r["n"]) for r in saved.probes})
    names = list(dict.fromkeys(r["probe"] for r in saved.probes))
    body = []
    for name in names:
        cells = []
        for n in sizes:
            mine = [r for r in saved.probes if r["probe"] == name and int(r["n"]) == n and
                    r["check"] in ("ok", "-") and (name.startswith("c_") or r["block"] == block or name == "empty")]
            if not mine:
                wrong = [r["check"] for r in saved.probes if r["probe"] == name and int(r["n"]) == n]
                cells.append("WRONG" if "WRONG" in wrong else "refused" if wrong else "-")
                continue
            r = min(mine, key=lambda r: float(r["median_us"]))
            where = f" ({r['cluster']}x{r['block']})" if name.startswith("c_") else ""
            cells.append(f"{float(r['median_us']):.2f}{where}")
        body.append([name] + cells)
    return table(["probe, median us"] + [power_label(n) for n in sizes], body, markdown)


def short(label):
    """"clusters --cluster 4" -> "K=4", "flag_sum --block 256" -> "B=256", "clusters_pdl" -> "pdl"."""
    if label in CANDIDATES:
        return "as chosen"
    for prefix in ("clusters --cluster ", "clusters --block ", "flag_sum --block ", "clusters_"):
        if label.startswith(prefix):
            return {"clusters --cluster ": "K=", "clusters_": ""}.get(prefix, "B=") + label[len(prefix):]
    return label


def judged(saved, label, n):
    """(time / floor's, CUB's time / time, "ok" or what it misses) for a label at n."""
    t, cub, floor = saved.time(label, n), saved.time("cub", n), saved.floor.get(n)
    if not t:
        return None, None, "-"
    over = t / floor if floor else None
    speed = cub / t if cub else None
    miss = ""
    lo, hi, most = TARGET_FLOOR
    if lo <= n <= hi and over and over > most:
        miss += "F"
    lo, hi, least = TARGET_CUB
    if lo <= n <= hi and speed and speed < least:
        miss += "C"
    return over, speed, (miss or "ok") if TARGET_FLOOR[0] <= n <= TARGET_FLOOR[1] else ""


def summary(saved, markdown):
    """Each program's time, the floor's; the best of each kind; the candidates judged."""
    sizes = SIZES if markdown else TEXT_SIZES
    labels = saved.labels if markdown else [l for l in saved.labels if l in TEXT_LABELS]
    cell = lambda v: f"{v:.2f}" if v else "-"
    body = [["floor: read-only kernel"] + [cell(saved.floor.get(n)) for n in sizes]]
    for label in labels:
        body.append([f"`{label}`" if markdown else label] + [cell(saved.time(label, n)) if saved.time(label, n) else
                               ("WRONG" if (label, n) in saved.by else "-") for n in sizes])
    for prefix, what in (("flag_sum", "flag-word"), ("clusters", "cluster")):
        best = {n: saved.best(n, prefix) for n in sizes}
        body.append([f"best {what} program"] + [cell(best[n][0]) for n in sizes])
        body.append(["  which"] + [short(best[n][1]) for n in sizes])
    for label in CANDIDATES:
        j = {n: judged(saved, label, n) for n in sizes}
        body.append([f"{label}: time / floor's"] + [cell(j[n][0]) for n in sizes])
        body.append([f"{label}: CUB's time / its"] + [cell(j[n][1]) for n in sizes])
        body.append([f"{label}: targets"] + [j[n][2] for n in sizes])
    return table(["program, median us"] + [power_label(n) for n in sizes], body, markdown)


def verdict(saved):
    """One line per candidate: the targets met at every size, or where and by how much not."""
    lines = [f"Targets on {saved.device}: within {TARGET_FLOOR[2]}x the floor from "
             f"{power_label(TARGET_FLOOR[0])} to {power_label(TARGET_FLOOR[1])}, at least {TARGET_CUB[2]}x "
             f"CUB's speed from {power_label(TARGET_CUB[0])} to {power_label(TARGET_CUB[1])}:"]
    for label in CANDIDATES:
        inside = [n for n in SIZES if TARGET_FLOOR[0] <= n <= TARGET_FLOOR[1]]
        got = {n: judged(saved, label, n) for n in inside}
        if all(got[n][2] == "-" for n in inside):
            lines.append(f"  {label}: not measured")
            continue
        misses = []
        for n in inside:
            over, speed, mark = got[n]
            why = ["not measured"] if mark == "-" else []
            why += [f"{over:.2f}x the floor"] if "F" in mark else []
            why += [f"{speed:.2f}x CUB's speed"] if "C" in mark else []
            if why:
                misses.append(f"{power_label(n)} ({', '.join(why)})")
        worst_f = max(got[n][0] for n in inside if got[n][0])
        worst_c = min(got[n][1] for n in inside if got[n][1] and n <= TARGET_CUB[1])
        state = "MET at every size" if not misses else "missed at " + ", ".join(misses)
        lines.append(f"  {label}: {state}; worst {worst_f:.2f}x the floor, {worst_c:.2f}x CUB's speed")
    return lines


def render(saved, markdown):
    h1, h2 = ("# ", "## ") if markdown else ("", "")
    probes = probe_table(saved, markdown) if saved.probes else "(latency.csv: not measured)"
    text = "\n\n".join([f"{h1}Small sizes on {saved.device} (input not in L2, median of {REPS})",
                        f"{h2}The pieces of a small sum (latency.csv)",
                        probes,
                        f"{h2}The programs (clusters.csv, clusters_floor.csv); targets: F = over "
                        f"{TARGET_FLOOR[2]}× the floor ({power_label(TARGET_FLOOR[0])}..{power_label(TARGET_FLOOR[1])}), "
                        f"C = under {TARGET_CUB[2]}× CUB's speed ({power_label(TARGET_CUB[0])}..{power_label(TARGET_CUB[1])})",
                        summary(saved, markdown)])
    return (text.replace("^", "\\^") if markdown else text) + "\n"   # 2^14 as it is, not a superscript


# ---- the appendix's tables and numbers (docs/appendix_clusters.md includes them) ----
# Each table: its file in results/<gpu>/, the labels (rows), the sizes (columns), the metric.
PAGE_TABLES = [
    ("clusters_grid.md", [f"clusters --cluster {k}" for k in (1, 2, 4, 8, 16)], [2 ** 24], "grid"),
    ("clusters_meet.md", ["clusters", "clusters --cluster 16", "clusters_wait", "clusters_pdl", "07_cooperative", "cub"],
     [2 ** k for k in (12, 14, 16, 18, 20, 22, 24)], "median"),
    ("clusters_flag.md", ["flag_sum", "07_cooperative", "cub", "torch.sum", "cupy.sum"],
     [2 ** k for k in (10, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24)], "median"),
    ("clusters_flag_floor.md", ["flag_sum", "07_cooperative", "cub", "torch.sum", "cupy.sum"],
     [2 ** k for k in range(14, 23)], "over_floor"),
    ("clusters_flag_blocks.md", ["flag_sum --block 256", "flag_sum --block 512", "flag_sum --block 1024", "flag_sum"],
     [2 ** k for k in (14, 16, 18, 20, 22)], "median"),
]
PIECES_N = 2 ** 14
PREDICTIONS = "lab/small-sizes/latency_predictions.csv"
SPEEDUPS = [("clusters_async", "clusters")]           # the speedup= numbers the appendix quotes
METRICS = {"median": "Median time", "over_floor": "Time over the floor's (the read-only kernel's)",
           "vs_cub": "CUB's time over the program's (above 1: faster than CUB)", "grid": "Blocks launched"}


class Page:
    """One GPU's values as the appendix shows them (µs, ratios, sizes as 2^14^)."""

    def __init__(self, saved, name):
        self.s, self.name, self.device = saved, name, saved.device.removeprefix("NVIDIA ")
        path = os.path.join(name, "clusters_floor.csv")
        self.empty = next((float(r["median_us"]) for r in (read_csv(path) if os.path.exists(path) else [])
                           if r["kind"] == "empty"), None)
        self.predicted = read_csv(os.path.join(ROOT, PREDICTIONS))

    def probe(self, name, n, block=None, cluster="any"):
        block = block or ("any" if name.startswith("c_") or name == "empty" else "512")
        got = [r for r in self.s.probes if r["probe"] == name and int(r["n"]) == n and r["check"] in ("ok", "-")
               and block in ("any", r["block"]) and cluster in ("any", r["cluster"])]
        return min(got, key=lambda r: float(r["median_us"])) if got else None

    def delta(self, name, base, n, block=None, base_block=None):
        r, b = self.probe(name, n, block), self.probe(base, n, base_block)
        if not (r and b):
            return None
        d = float(r["median_us"]) - float(b["median_us"])
        return ("+" if d >= 0 else "−") + time_text(abs(d))

    def judged(self, label, n):
        over, speed, mark = judged(self.s, label, n)
        return over, speed, mark if mark != "ok" else ""

    def value(self, label, n, metric):
        r = self.s.by.get((label, n))
        if not r:
            return None
        if metric == "grid":
            return r["grid"]
        if r["status"] != "OK":
            return "WRONG"
        over, speed, _ = self.judged(label, n)
        x = {"median": float(r["median_us"]), "over_floor": over, "vs_cub": speed}[metric]
        return None if x is None else time_text(x) if metric == "median" else ratio_text(x)

    def budget(self, n):
        floor, cub = self.s.floor.get(n), self.s.time("cub", n)
        if floor is None:
            return None
        most = TARGET_FLOOR[2] * floor
        if cub and n <= TARGET_CUB[1]:
            most = min(most, cub / TARGET_CUB[2])
        return time_text(most - floor)

    def over_sizes(self, label):
        """worst_floor, worst_cub and the verdict in words over the targets' sizes (None: not measured)."""
        worst_f, worst_c, misses, seen = None, None, [], 0
        n = TARGET_FLOOR[0]
        while n <= TARGET_FLOOR[1]:
            over, speed, miss = self.judged(label, n)
            seen += 1 if over or speed else 0
            worst_f = max(worst_f or 0, over) if over else worst_f
            worst_c = min(worst_c or 1e9, speed) if speed and n <= TARGET_CUB[1] else worst_c
            why = ([] if over else ["not measured"]) + ([ratio_text(over) + " the floor's time"] if "F" in miss else []) \
                + ([ratio_text(speed) + " CUB's speed"] if "C" in miss else [])
            if why:
                misses.append(f"{size_md(n)} ({', '.join(why)})")
            n *= 2
        if not seen:
            return None
        verdict = ("missed at " + ", ".join(misses) if misses else
                   f"both targets met at every size from {size_md(TARGET_FLOOR[0])} to {size_md(TARGET_FLOOR[1])}")
        return worst_f and ratio_text(worst_f), worst_c and ratio_text(worst_c), verdict

    def table(self, labels, sizes, metric):
        body = [[f"`{l}`"] + [self.value(l, n, metric) or "–" for n in sizes] for l in labels]
        if metric == "median":
            body.append(["*floor: read-only kernel*"] +
                        [time_text(self.s.floor[n]) if n in self.s.floor else "–" for n in sizes])
        return pipe_table(["program"] + [size_md(n) for n in sizes], [":--"] + ["--:"] * len(sizes), body,
                          f"Table: {METRICS[metric]}, input not in L2, on {self.device} (`{self.name}/clusters.csv`).")

    def pieces(self, n=PIECES_N):
        body = []
        for p in self.predicted:
            shape = self.probe(p["probe"], n, p["block"])
            rng = f"{float(p['lo']):+.1f} to {float(p['hi']):+.1f} µs".replace("-", "−")
            body.append([f"`{p['probe']}`", p["adds"], f"`{p['base']}`", rng,
                         self.delta(p["probe"], p["base"], n, p["block"], p["base_block"]) or "–",
                         (shape["cluster"] + " × " if shape["cluster"] != "1" else "") + shape["block"] if shape else "–"])
        return pipe_table(["probe", "what it adds", "over", "predicted", "measured", "blocks"],
                          [":--", ":--", ":--", "--:", "--:", "--:"], body,
                          f"Table: The pieces of a one-launch sum at n = {size_md(n)} on {self.device}: each probe's "
                          f"median time minus the one before it (`{self.name}/latency.csv`), and what we predicted "
                          f"before measuring (`{PREDICTIONS}`). Blocks: threads per block (and blocks per cluster) "
                          "of the probe's row.")

    def summary(self):
        """clusters_summary.csv's rows: what=, label=, n=, than= and the text the appendix shows."""
        out = [("empty", "", "", "", time_text(self.empty))] if self.empty is not None else []
        for n in sorted(self.s.floor):
            out.append(("floor", "", power_label(n), "", time_text(self.s.floor[n])))
            if self.budget(n):
                out.append(("budget", "", power_label(n), "", self.budget(n)))
        for label in self.s.labels:
            for what, x in zip(("worst_floor", "worst_cub", "verdict"), self.over_sizes(label) or ()):
                if x:
                    out.append((what, label, "", "", x))
            for n in sorted(n for l, n in self.s.by if l == label):
                for metric in ("median", "over_floor", "vs_cub"):
                    if self.value(label, n, metric):
                        out.append((metric, label, power_label(n), "", self.value(label, n, metric)))
                for a, b in SPEEDUPS:
                    if a == label and self.s.time(a, n) and self.s.time(b, n):
                        out.append(("speedup", a, power_label(n), b, ratio_text(self.s.time(b, n) / self.s.time(a, n))))
        pairs = [(p["probe"], p["base"]) for p in self.predicted] + [("flag_word", "block")]
        for n in sorted({int(r["n"]) for r in self.s.probes}):
            for a, b in pairs:
                if self.delta(a, b, n):
                    out.append(("delta", a, power_label(n), b, self.delta(a, b, n)))
        return [dict(zip(("what", "label", "n", "than", "text"), r)) for r in out]


def write_page(saved, out_dir, name):
    """The appendix's files in out_dir: clusters_pieces.md, the tables of PAGE_TABLES, clusters_summary.csv."""
    page = Page(saved, name)
    files = [("clusters_pieces.md", page.pieces())] if saved.probes else []
    files += [(f, page.table(labels, sizes, metric)) for f, labels, sizes, metric in PAGE_TABLES]
    for f, text in files:
        with open(os.path.join(out_dir, f), "w") as out:
            out.write(text)
    write_csv(os.path.join(out_dir, "clusters_summary.csv"), page.summary(), ["what", "label", "n", "than", "text"])


if __name__ == "__main__":
    import argparse
    import glob
    ap = argparse.ArgumentParser(description="the appendix's tables and numbers, from every RESULTS/<gpu>/clusters.csv")
    ap.add_argument("--results", default="results", help="the folder of the results/<gpu>/ folders (results)")
    for d in sorted(os.path.dirname(f) for f in glob.glob(os.path.join(ap.parse_args().results, "*", "clusters.csv"))):
        write_page(Saved(d), d, d)
