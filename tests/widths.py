#!/usr/bin/env python3
"""widths.py: is any built page wider than the screen it is read on?

    python3 tests/widths.py DIR [WIDTH...]      (default widths: 390 1280)

Loads every DIR/*.html and DIR/answers/*.html in a frame WIDTH px wide, in
headless Chromium (all pages of one run in one browser), and compares the
page's scroll width with the frame's. A wide table or listing must scroll in
its own box, never the page. Prints one line per page and width that is too
wide, naming the widest element that sticks out, then a summary; exits 1 if
any page is wider than its frame, 2 if Chromium is not installed or says
nothing.
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
    worst = e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : '') +
            ' "' + (e.textContent || '').replace(/\\s+/g, ' ').slice(0, 50) + '"';
  });
  parent.postMessage(JSON.stringify({ page: %s, width: vw, scroll: de.scrollWidth, worst: worst }), '*');
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
    print(f"{len(pages)} pages at {' and '.join(map(str, widths))} px: {len(wide)} wider than the screen",
          file=sys.stderr)
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
