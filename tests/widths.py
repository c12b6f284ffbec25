#!/usr/bin/env python3
"""widths.py: does every built page fit the screen it is read on?

    python3 tests/widths.py DIR [WIDTH...]      (default widths: 390 1280)

Loads every DIR/*.html and DIR/answers/*.html in a frame WIDTH px wide, in
headless Chromium (all pages of one run in one browser), and checks two
things:

  - the page is no wider than the frame: a wide table or listing scrolls in
    its own box, never the page (it names the widest element that sticks out);
  - nothing that must be seen is cut by such a box at its first position:
    a figure, plot or chart (img, svg) whole, legend and all; in a table of
    results, the columns n, program, median time and vs CUB, the
    first column, and the caption's every line; in a table made to fit
    (fit="yes": class "fit"), every column. Code, and the other columns
    of a wide table, may scroll.

Prints one line per page and width with a problem, then a summary; exits 1
if there is any, 2 if Chromium is not installed or says nothing.
"""
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys

# Put into a copy of each page: once it has loaded, report the widths to the
# frame's parent, with the outermost element that reaches past the right edge.
PROBE = """<script>
window.addEventListener('load', function () { setTimeout(function () {
  var de = document.documentElement, vw = de.clientWidth, worst = '', right = vw;
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right <= right + 1 || r.width === 0) return;
    for (var p = e.parentElement; p && p !== document.body; p = p.parentElement)
      if (getComputedStyle(p).overflowX !== 'visible') return;
    right = r.right;
    worst = e.tagName.toLowerCase() + (e.className ? '.' + String(e.className.baseVal === undefined ?
            e.className : e.className.baseVal).split(' ')[0] : '') +
            ' "' + (e.textContent || '').replace(/\\s+/g, ' ').slice(0, 50) + '"';
  });
  // The part of the page that e's clipping ancestors (scroll boxes) show.
  function shown(e) {
    var left = -1e9, right = 1e9;
    for (var p = e.parentElement; p && p !== document.documentElement; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      var b = p.getBoundingClientRect();
      left = Math.max(left, b.left + p.clientLeft);
      right = Math.min(right, b.left + p.clientLeft + p.clientWidth);
    }
    return [left, right];
  }
  function cut(r, e) { var s = shown(e); return r.width > 0 && (r.right > s[1] + 1 || r.left < s[0] - 1); }
  function words(e) { return (e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 40); }
  var hidden = [];
  document.querySelectorAll('img, svg').forEach(function (e) {
    if (e.parentElement && e.parentElement.closest('svg')) return;     // (inside an svg: the svg is checked)
    if (cut(e.getBoundingClientRect(), e))
      hidden.push('figure ' + (e.getAttribute('src') || e.getAttribute('aria-label') || 'svg').slice(0, 60) + ' cut');
  });
  var KEY = /^(n|program|median time|vs CUB)$/;
  document.querySelectorAll('.results table').forEach(function (t) {
    var row = t.tHead && t.tHead.rows[0], name = t.caption ? words(t.caption) : words(t);
    var all = t.closest('.fit') !== null;
    if (row) for (var k = 0; k < row.cells.length; k++) {
      var c = row.cells[k], text = words(c);
      if ((all || k === 0 || KEY.test(text)) && cut(c.getBoundingClientRect(), c))
        hidden.push('column "' + text + '" of the table "' + name + '" cut');
    }
    if (t.caption) {
      var range = document.createRange();
      range.selectNodeContents(t.caption);
      var rects = range.getClientRects();
      for (var i = 0; i < rects.length; i++)
        if (cut(rects[i], t.caption)) { hidden.push('caption "' + name + '" cut'); break; }
    }
  });
  parent.postMessage(JSON.stringify({ page: %s, width: vw, scroll: de.scrollWidth, worst: worst,
                                      hidden: hidden }), '*');
}, 200); });
</script>"""

FRAMES = """<!doctype html><html><body>
%s
<pre id="widths"></pre>
<script>
var got = [];
window.addEventListener('message', function (e) {
  got.push(e.data);
  document.getElementById('widths').textContent = got.join('\\n');
});
</script>
</body></html>"""


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    return None


def measure(chrome, root, jobs):
    """{(page, width): result} for the (page, width) pairs that Chromium
    reported on in one run (a large page can miss the deadline: ask again)."""
    made, frames = [], []
    try:
        for k, (name, width) in enumerate(jobs):
            page = os.path.join(root, name)
            copy = os.path.join(os.path.dirname(page), f".widths-{k}.html")
            text = open(page, encoding="utf-8").read()
            with open(copy, "w", encoding="utf-8") as f:
                f.write(text.replace("</body>", PROBE % json.dumps(name) + "</body>"))
            made.append(copy)
            src = os.path.relpath(copy, root)
            frames.append(f'<iframe src="{html.escape(src)}" style="width:{width}px;height:900px;border:0"></iframe>')
        outer = os.path.join(root, ".widths-all.html")
        with open(outer, "w", encoding="utf-8") as f:
            f.write(FRAMES % "\n".join(frames))
        made.append(outer)
        p = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1400,1000", "--virtual-time-budget=20000", "--dump-dom",
                            "file://" + os.path.abspath(outer)], capture_output=True, text=True, timeout=300)
    finally:
        for f in made:
            os.remove(f)
    m = re.search(r'<pre id="widths">(.*?)</pre>', p.stdout, re.S)
    got = [json.loads(line) for line in html.unescape(m.group(1)).splitlines() if line.strip()] if m else []
    return {(r["page"], r["width"]): r for r in got}


def main(args):
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, widths = args[0], [int(w) for w in args[1:]] or [390, 1280]
    chrome = browser()
    if not chrome:
        print("widths: no Chromium here (apt-get install chromium)", file=sys.stderr)
        return 2
    pages = sorted(glob.glob(os.path.join(root, "*.html")) + glob.glob(os.path.join(root, "answers", "*.html")))
    jobs = [(os.path.relpath(p, root), w) for p in pages for w in widths]
    results = {}
    for _ in range(3):
        results.update(measure(chrome, root, [j for j in jobs if j not in results]))
        if len(results) == len(jobs):
            break
    missing = [f"{name} at {w} px" for name, w in jobs if (name, w) not in results]
    if missing:
        print(f"widths: Chromium did not measure {', '.join(missing)}")
        return 2
    wide = [r for r in results.values() if r["scroll"] > r["width"]]
    for r in sorted(wide, key=lambda r: (r["page"], r["width"])):
        print(f"{r['page']} at {r['width']} px: {r['scroll']} px wide ({r['worst'] or 'the page itself'})")
    cut = [r for r in results.values() if r["hidden"]]
    for r in sorted(cut, key=lambda r: (r["page"], r["width"])):
        print(f"{r['page']} at {r['width']} px: {'; '.join(r['hidden'][:4])}"
              + (f"; and {len(r['hidden']) - 4} more" if len(r["hidden"]) > 4 else ""))
    print(f"{len(pages)} pages at {' and '.join(map(str, widths))} px: {len(wide)} wider than the screen, "
          f"{len(cut)} with something cut", file=sys.stderr)
    return 1 if wide or cut else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
