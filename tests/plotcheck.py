#!/usr/bin/env python3
"""plotcheck.py: can a reader read a gnuplot SVG?

    python3 tests/plotcheck.py FILE.svg...            the plot is half the figure
    python3 tests/plotcheck.py --series FILE.svg...   every series can be told apart

Half the figure: gnuplot draws the border of the plotting area as one closed
path of four corners, "M x0,y0 L x0,y1 L x1,y1 L x1,y0 L x0,y0 Z". The
largest such rectangle is the axes' box; a key that grows (one column of
fifteen titles under the plot) takes its height away. Fails a box less than
half the height of its SVG, or a file without one.

Series: each titled plot (gnuplot's <g id="gnuplot_plot_N"><title>; one
with notitle is not in the key, and not checked) is drawn
in one colour, with one marker or none. Fails two series of one file in the
same colour (and so the same colour and marker), or two colours closer than
MIN_DELTA_E in CIEDE2000 (about what tells apart two thin lines on white:
#D6D645 and #ABD600 are 8.4 apart, two reds a plot once had 6.1).

Prints one line per file (what it found, or what is wrong and where) and
exits 1 if any file fails.
"""
import itertools
import math
import re
import sys

NUM = r"(-?[\d.]+),(-?[\d.]+)"
BOX = re.compile(r"d=['\"]M" + NUM + r"(?:\s+L" + NUM + r"){4}\s*Z")
CORNERS = re.compile(NUM)
MIN_DELTA_E = 10.0
NAMED = {"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#00ff00", "blue": "#0000ff",
         "magenta": "#ff00ff", "cyan": "#00ffff", "yellow": "#ffff00", "gray": "#bebebe", "grey": "#bebebe"}


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


def hex_colour(value):
    """'#1f77b4', 'rgb( 31, 119, 180)' or a name, as '#1f77b4'; None for
    anything else (currentColor, none)."""
    v = value.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{6}", v):
        return v
    m = re.fullmatch(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", v)
    if m:
        return "#%02x%02x%02x" % tuple(int(c) for c in m.groups())
    return NAMED.get(v)


def series(text):
    """[(title, colour, marker)] of each titled plot: the colour of its first
    stroked path (the line in the key), its marker gnuplot's point symbol
    (#gpPtN) or None."""
    found = []
    parts = re.split(r"<g id=\"gnuplot_plot_\d+\"\s*>", text)[1:]
    for part in parts:
        title = re.match(r"\s*<title>(.*?)</title>", part, re.S)
        if not title or re.fullmatch(r"gnuplot_plot_\d+", title.group(1).strip()):
            continue                     # (a plot with notitle: not in the key)
        part = part.split("<g id=\"gnuplot_plot_")[0]
        colours = [hex_colour(c) for c in re.findall(r"<path stroke=['\"]([^'\"]+)['\"]", part)]
        colours += [hex_colour(c) for c in re.findall(r"<use [^>]*color=['\"]([^'\"]+)['\"]", part)]
        colours = [c for c in colours if c]
        marker = re.search(r"xlink:href=['\"]#(gpPt\d+)['\"]", part)
        found.append((title.group(1).strip(), colours[0] if colours else None, marker.group(1) if marker else None))
    return found


def lab(colour):
    """CIE L*a*b* (D65) of '#rrggbb'."""
    rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(c1, c2):
    """CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = lab(c1), lab(c2)
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1p * c2p == 0 else (h2 - h1 + 180) % 360 - 180
    d_hh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cpbar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1 + h2
    elif abs(h1 - h2) <= 180:
        hbar = (h1 + h2) / 2
    else:
        hbar = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar))
         + 0.32 * math.cos(math.radians(3 * hbar + 6)) - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cpbar, 1 + 0.015 * cpbar * t
    rt = (-math.sin(math.radians(60 * math.exp(-((hbar - 275) / 25) ** 2)))
          * 2 * math.sqrt(cpbar ** 7 / (cpbar ** 7 + 25 ** 7)))
    dl, dc = (l2 - l1) / sl, (c2p - c1p) / sc
    dhh = d_hh / sh
    return math.sqrt(dl ** 2 + dc ** 2 + dhh ** 2 + rt * dc * dhh)


def series_problems(found):
    """What makes two series of one plot hard to tell apart."""
    problems = [f"'{t}' has no colour" for t, c, _ in found if not c]
    drawn = [(t, c, m) for t, c, m in found if c]
    for (t1, c1, m1), (t2, c2, m2) in itertools.combinations(drawn, 2):
        if c1 == c2:
            same = " and marker" if m1 == m2 else ""
            problems.append(f"'{t1}' and '{t2}' share the colour{same} {c1}")
        elif delta_e(c1, c2) < MIN_DELTA_E:
            problems.append(f"'{t1}' ({c1}) and '{t2}' ({c2}) are {delta_e(c1, c2):.1f} apart "
                            f"(CIEDE2000), less than {MIN_DELTA_E:g}")
    return problems


def read(path):
    try:
        return open(path, encoding="utf-8").read(), None
    except OSError as e:
        return None, f"{path}: cannot be read ({e.strerror}): was it drawn?"


def check_height(path):
    text, why = read(path)
    if why:
        return False, why
    box, height = plot_box(text), svg_height(text)
    if not box or not height:
        return False, f"{path}: no plotting area or no height found (not a gnuplot SVG?)"
    share = box[1] / height
    ok = share >= 0.5
    return ok, (f"{path}: plotting area {box[1]:.0f} of {height:.0f} px high ({100 * share:.0f}%), "
                + ("ok" if ok else "less than half"))


def check_series(path):
    text, why = read(path)
    if why:
        return False, why
    found = series(text)
    problems = series_problems(found)
    if problems:
        return False, f"{path}: {'; '.join(problems)}"
    return True, f"{path}: {len(found)} series, each its own colour"


def main(args):
    check = check_height
    if args and args[0] == "--series":
        check, args = check_series, args[1:]
    if not args:
        sys.exit(__doc__.strip())
    bad = 0
    for path in args:
        ok, line = check(path)
        print(line)
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
