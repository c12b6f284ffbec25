"""clusters_tables.py: the tables of `make clusters` (lab/small-sizes/clusters.py), from its CSVs.

    Saved(dir)          latency.csv, clusters.csv and clusters_floor.csv of one GPU, indexed
    render(saved, md)   the pieces' table and the programs' table, as text or Markdown
    verdict(saved)      the last lines printed: does each candidate meet the targets?

The targets, at every power of two in their range, for a program as it
chooses its launch: its median time at most 1.35x the read-only kernel's
(2^14 to 2^22), and CUB's median time at least 1.3x its own (2^14 to 2^20).
"""
import os

from lib import md_table, power_label, read_csv   # bench/lib.py: clusters.py puts bench/ on the path

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
