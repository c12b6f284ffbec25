#!/usr/bin/env python3
"""plotcheck.py: is the plot of a gnuplot SVG at least half of the figure?

    python3 tests/plotcheck.py FILE.svg...

gnuplot draws the border of the plotting area as one closed path of four
corners, "M x0,y0 L x0,y1 L x1,y1 L x1,y0 L x0,y0 Z". The largest such
rectangle is the axes' box; a key that grows (one column of fifteen titles
under the plot) takes its height away. Prints one line per file and exits 1
if any box is less than half the height of its SVG (or has none).
"""
import re
import sys

NUM = r"(-?[\d.]+),(-?[\d.]+)"
BOX = re.compile(r"d=['\"]M" + NUM + r"(?:\s+L" + NUM + r"){4}\s*Z")
CORNERS = re.compile(NUM)


def plot_box(text):
    """(width, height) of the largest closed axis-aligned rectangle, or None."""
    best = None
    for m in BOX.finditer(text):
        pts = [(float(x), float(y)) for x, y in CORNERS.findall(m.group(0))]
        xs, ys = {round(x, 2) for x, _ in pts}, {round(y, 2) for _, y in pts}
        if len(xs) != 2 or len(ys) != 2:
            continue
        w, h = max(xs) - min(xs), max(ys) - min(ys)
        if best is None or w * h > best[0] * best[1]:
            best = (w, h)
    return best


def svg_height(text):
    m = re.search(r'viewBox="[\d.\-]+ [\d.\-]+ [\d.]+ ([\d.]+)"', text) or \
        re.search(r'<svg[^>]*\sheight="([\d.]+)', text)
    return float(m.group(1)) if m else None


def main(paths):
    bad = 0
    for path in paths:
        text = open(path, encoding="utf-8").read()
        box, height = plot_box(text), svg_height(text)
        if not box or not height:
            print(f"{path}: no plotting area or no height found")
            bad += 1
            continue
        share = box[1] / height
        verdict = "ok" if share >= 0.5 else "less than half"
        print(f"{path}: plotting area {box[1]:.0f} of {height:.0f} px high ({100 * share:.0f}%), {verdict}")
        bad += share < 0.5
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    sys.exit(main(sys.argv[1:]))
