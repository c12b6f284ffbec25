#!/usr/bin/env python3
"""docs_check.py: checks of the course text, for tests/docs.sh.

    docs_check.py refs FILE.md...      every include, snippet and diff resolves
    docs_check.py answers FILE.md...   every answer file an exercise names exists
    docs_check.py exercises FILE.md... every exercise links to its answer, and
                                       every link target exists
    docs_check.py mdlinks DIR|FILE     every link and image in DIR/*.md (course/),
                                       or in FILE.md, resolves, anchors as GitHub
                                       makes them, and nothing of the chapter
                                       templates is left
    docs_check.py numbers FILE.md...   no measured number typed by hand
    docs_check.py peaks FILE...        each GPU has one nominal peak, whichever
                                       page or results file gives it
    docs_check.py links DIR            every link and image in DIR/*.html resolves
    docs_check.py page-numbers DIR     every measured number on DIR/*.html comes
                                       from a CSV through the filter
    docs_check.py notation DIR|FILE    tables and generated blocks in DIR/*.html
                                       (and table rows in DIR/*.md, or FILE.md)
                                       write powers, µs and × as the chapters do
    docs_check.py evidence FILE.md...  each chapter reads the profiler's evidence,
                                       results/<gpu>/profile.csv, through the
                                       filter at least once: a []{.m file=...}
                                       span, a {.pivot} or a {.csv-table}

Each prints one line per problem on stdout and exits 1 if there was any, 0 if
none. A summary goes to stderr.
"""
import html.parser
import os
import re
import sys
import urllib.parse

FENCE = re.compile(r"^(```+|~~~+)")


def prose_lines(path):
    """(line number, text) of each line outside fenced code blocks."""
    inside = None
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f, 1):
            m = FENCE.match(line.lstrip())
            if m:
                mark = m.group(1)[0] * 3
                if inside is None:
                    inside = mark
                elif mark == inside:
                    inside = None
                continue
            if inside is None:
                yield k, line.rstrip("\n")


def fence_attrs(path):
    """(line number, attribute text) of each fenced block that has {...}."""
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f, 1):
            m = re.match(r"^\s*(```+|~~~+)\s*\{(.*)\}\s*$", line)
            if m:
                yield k, m.group(2)


def attr(text, name):
    m = re.search(r'(?:^|\s)' + name + r'="([^"]*)"', text)
    return m.group(1) if m else None


def has(line, pat):
    """Like the filter: a leading ^ anchors at the start of the line."""
    return line.startswith(pat[1:]) if pat.startswith("^") else pat in line


def span_found(lines, start, end):
    seen = False
    for line in lines:
        seen = seen or has(line, start)
        if seen and has(line, end):
            return True
    return False


# ---- refs ---------------------------------------------------------------------
def check_refs(files):
    problems, count = [], 0
    for md in files:
        for k, a in fence_attrs(md):
            inc, snip, diff = attr(a, "include"), attr(a, "snippet"), attr(a, "diff")
            start, end = attr(a, "start"), attr(a, "end")
            where = f"{md}:{k}"
            if snip and not inc:
                problems.append(f"{where}: snippet=\"{snip}\" without include=")
            if inc:
                count += 1
                if not os.path.isfile(inc):
                    problems.append(f"{where}: include {inc}: no such file")
                elif snip:
                    text = [l.strip() for l in open(inc, encoding="utf-8")]
                    for marker in (f"// [begin {snip}]", f"// [end {snip}]"):
                        if marker not in text:
                            problems.append(f"{where}: {inc} has no line '{marker}'")
                elif start or end:
                    if not (start and end):
                        problems.append(f"{where}: start= and end= go together")
                    elif not span_found(open(inc, encoding="utf-8").read().splitlines(), start, end):
                        problems.append(f"{where}: {inc} has no lines from '{start}' to '{end}'")
            if diff:
                count += 1
                names = diff.split()
                if len(names) != 2:
                    problems.append(f"{where}: diff=\"{diff}\" must name two files")
                for n in names:
                    if not os.path.isfile(n):
                        problems.append(f"{where}: diff {n}: no such file")
    return problems, f"{count} includes and diffs"


# ---- answers ------------------------------------------------------------------
ANSWER = re.compile(r"answers/[A-Za-z0-9_.\-]+\.(?:cu|md|cuh|h|c|sh|py)")


def check_answers(files):
    problems, named = [], set()
    for md in files:
        for k, line in prose_lines(md):
            for name in ANSWER.findall(line):
                named.add(name)
                if not os.path.isfile(name):
                    problems.append(f"{md}:{k}: names {name}, which does not exist")
    return problems, f"{len(named)} answer files named"


# ---- exercises -----------------------------------------------------------------
LINK = re.compile(r"\]\(([^)\s]+)\)")


def exercise_blocks(path):
    """(line number, [lines]) of each ::: exercise block."""
    block, start = None, 0
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f, 1):
            t = line.strip()
            if block is None and re.match(r"^:::+\s*\{?\.?exercise\}?\s*$", t):
                block, start = [], k
            elif block is not None and re.match(r"^:::+\s*$", t):
                yield start, block
                block = None
            elif block is not None:
                block.append(line.rstrip("\n"))


def link_target_problem(md, target):
    """Why a link written in docs/FILE.md leads nowhere, or None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
        return None
    path, _, _ = target.partition("#")
    if not path:
        return None
    m = re.match(r"^([\w]+)\.html$", path)
    if m:
        return None if os.path.isfile(os.path.join(os.path.dirname(md), m.group(1) + ".md")) else \
            f"{target}: there is no chapter {m.group(1)}"
    full = os.path.normpath(os.path.join(os.path.dirname(md), path))
    return None if os.path.exists(full) else f"{target}: no file {os.path.relpath(full)}"


def check_exercises(files):
    problems, count = [], 0
    for md in files:
        for k, lines in exercise_blocks(md):
            count += 1
            text = "\n".join(lines)
            title = re.search(r"\*\*([^*]+)\*\*", text)
            name = f"{md}:{k} ({title.group(1).strip() if title else 'exercise'})"
            at = text.find("*Answer:*")
            if at < 0:
                problems.append(f"{name}: no '*Answer:*' line")
                continue
            links = LINK.findall(text[at:])
            if not links:
                problems.append(f"{name}: the answer has no link")
            for t in links:
                why = link_target_problem(md, t)
                if why:
                    problems.append(f"{name}: {why}")
    return problems, f"{count} exercises"


# ---- course/: the chapters as Markdown ----------------------------------------
def github_slug(text, seen):
    slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    base, k = slug, 0
    while slug in seen:
        k += 1
        slug = f"{base}-{k}"
    seen.add(slug)
    return slug


def md_anchors(path):
    seen, inside = set(), None
    for line in open(path, encoding="utf-8"):
        m = FENCE.match(line.lstrip())
        if m:
            inside = None if inside else m.group(1)[0]
            continue
        if inside:
            continue
        h = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if h:
            text = re.sub(r"`([^`]*)`", r"\1", h.group(1))
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
            text = re.sub(r"[*_]", "", text) if not re.search(r"\w_\w", text) else text.replace("*", "")
            github_slug(text, seen)
        for a in re.findall(r'<a (?:id|name)="([^"]+)"', line):
            seen.add(a)
    return seen


LEFTOVER = [(re.compile(r"\]\{\.m\b"), "an unfilled number []{.m ...}"),
            (re.compile(r"^\s*(```+|~~~+)\s*\{"), "a fenced block with {attributes} (an unfilled include?)"),
            (re.compile(r"^:::"), "a ::: div marker"),
            (re.compile(r"<span class=|<div class="), "raw HTML of a span or div")]


def check_mdlinks(root):
    problems, checked = [], 0
    if os.path.isfile(root):        # one page: its links read from its own folder
        root, pages = os.path.dirname(root) or ".", [os.path.basename(root)]
    else:
        pages = sorted(p for p in os.listdir(root) if p.endswith(".md"))
    if not pages:
        return [f"{root}: no Markdown pages"], "0 links"
    anchors = {}
    for page in pages:
        path = os.path.join(root, page)
        text = open(path, encoding="utf-8").read()
        inside = None
        for k, line in enumerate(text.splitlines(), 1):
            m = FENCE.match(line.lstrip())
            if m and not line.lstrip().startswith(m.group(1) + "{"):
                inside = None if inside else m.group(1)[0]
            for pat, what in LEFTOVER:
                if not inside and pat.search(line):
                    problems.append(f"{page}:{k}: {what}")
            if inside:
                continue
            for ref in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", ref, re.I):
                    continue
                checked += 1
                target, _, frag = ref.partition("#")
                file = os.path.normpath(os.path.join(root, urllib.parse.unquote(target))) if target else path
                if target and not os.path.exists(file):
                    problems.append(f"{page}:{k}: ({ref}): no file {os.path.relpath(file)}")
                    continue
                if frag and file.endswith(".md"):
                    if file not in anchors:
                        anchors[file] = md_anchors(file)
                    if urllib.parse.unquote(frag) not in anchors[file]:
                        problems.append(f"{page}:{k}: ({ref}): no heading with anchor #{frag} in {os.path.relpath(file)}")
        # An empty code block is an include that was not filled.
        for m in re.finditer(r"^```[^\n]*\n```\s*$", text, re.M):
            problems.append(f"{page}:{text[:m.start()].count(chr(10)) + 1}: an empty code block")
    return problems, f"{checked} links in {len(pages)} Markdown pages"


# ---- numbers ------------------------------------------------------------------
# A number followed by a unit of time (µs or "microseconds", ms, ns, s, and
# their words), of bandwidth, a percentage, a ratio, ulps or cycles: a
# measurement. A size (bytes, KB, MiB, GB ...) is one too, unless it is a
# power of two: 4 bytes a float, 16 KB a chunk, 2^28 floats are 1 GiB, which
# is arithmetic; 44 KB of machine code, 50 MiB of L2 are not. A number at
# the end of a line is read with the first word of the next.
TIME_WORDS = r"(?:micro|milli|nano)?seconds?|minutes?|hours?"
MEASURED = re.compile(r"\d[\d,.]*(?:\s*(?:µs|us|ms|ns|" + TIME_WORDS + r"|GB/s|TB/s|MB/s|GiB/s|%|×|x faster"
                      r"|times faster|per ?cent|ulps?|cycles?)|\s+s)(?![A-Za-z0-9/])")
SIZE = re.compile(r"(\d[\d,.]*)\s*(?:bytes?|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)(?![A-Za-z0-9/])")
# Allowed on purpose: [text]{.example} marks a worked example, [text]{.claim}
# a number that another text measured, quoted as it gave it; code spans and
# math hold formulas, not measurements.
EXEMPT = [re.compile(r"\[[^\]]*\]\{\.(?:example|claim)\}"), re.compile(r"`[^`]*`"),
          re.compile(r"\$[^$]+\$")]


def power_of_two(text):
    v = float(text.replace(",", ""))
    return v >= 1 and v == int(v) and int(v) & (int(v) - 1) == 0


def measured_numbers(line, after=""):
    """The measured numbers that start in line (after: the next line's start)."""
    for e in EXEMPT:
        line = e.sub("", line)
    text = line + " " + after
    found = [m for m in MEASURED.finditer(text) if m.start() < len(line)]
    found += [m for m in SIZE.finditer(text) if m.start() < len(line) and not power_of_two(m.group(1))]
    return [m.group(0) for m in sorted(found, key=lambda m: m.start())]


def check_numbers(files):
    problems, lines = [], 0
    for md in files:
        prose = list(prose_lines(md))
        for i, (k, line) in enumerate(prose):
            lines += 1
            after = " ".join(prose[i + 1][1].split()[:2]) if i + 1 < len(prose) and prose[i + 1][0] == k + 1 else ""
            found = measured_numbers(line, after)
            if found:
                kind = "table row" if line.lstrip().startswith("|") else "text"
                problems.append(f"{md}:{k}: {kind} with a number typed by hand ({', '.join(found)}): "
                                "use a results block or []{.m ...}, or mark a worked example [...]{.example}")
    return problems, f"{lines} lines of prose"


# ---- peaks --------------------------------------------------------------------
PEAK = re.compile(r"nominal(?: peak)? ([\d.,]+) ?GB/s")


def check_peaks(files):
    """Every "nominal peak N GB/s" in FILES names, for each GPU, one N. The
    GPU is the last name of one (from every results/<gpu>/compare.csv, and
    the G80 of lab/harris/harris_g80.csv) in the 200 characters before it."""
    import csv
    import glob
    names = set()
    for path in glob.glob("results/*/compare.csv") + glob.glob("results/*/harris.csv") + ["lab/harris/harris_g80.csv"]:
        if os.path.isfile(path):
            with open(path, newline="", encoding="utf-8") as f:
                names |= {r["device"] for r in csv.DictReader(f) if r.get("device")}
    names = sorted(names, key=len, reverse=True)
    seen, problems, count = {}, [], 0
    for path in files:
        text = re.sub(r"\s+", " ", open(path, encoding="utf-8").read())
        for m in PEAK.finditer(text):
            before = text[max(0, m.start() - 200):m.start()]
            at = [(before.rfind(n), n) for n in names if before.rfind(n) >= 0]
            if not at:
                continue
            device = max(at)[1]
            value = m.group(1).replace(",", "")
            count += 1
            seen.setdefault(device, {}).setdefault(value, []).append(path)
    for device, values in sorted(seen.items()):
        if len(values) > 1:
            where = "; ".join(f"{v} GB/s in {', '.join(sorted(set(p)))}" for v, p in sorted(values.items()))
            problems.append(f"{device}: more than one nominal peak: {where}")
    return problems, f"{count} nominal peaks of {len(seen)} GPUs"


# ---- notation -------------------------------------------------------------------
# The chapters write 2^28 as a power, microseconds as µs and ratios with ×; a
# table made by a script must read the same, and no ratio says × and "times"
# both (anywhere on a page). On the HTML pages: every table
# (cells and caption) and everything a script generated (.results blocks),
# results/NOTES.md included (it is written as a chapter is); in course/*.md,
# the table rows, outside code (notes.md left out), where a power is
# 2<sup>28</sup> as GitHub shows it, never a raw 2^28.
RAW_POWER = (re.compile(r"\b\d+\^\d+"), "2^N where the pages write a power")
RAW_US = (re.compile(r"\d ?us\b"), "'us' where the pages write µs")
RAW_X = (re.compile(r"\b\d+(?:\.\d+)?x\b|\b\d+ x (?=[A-Z])"), "'x' where the pages write ×")
TIMES_TWICE = (re.compile(r"\d(?:×|x) times\b"), "× and 'times' both (1.11× times faster)")
NOT_TEXT = {"code", "pre", "math", "script", "style", "svg"}
EMPTY_TAGS = {"br", "img", "meta", "link", "hr", "input", "col", "source", "wbr"}


class NotationScan(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.hits, self.tail = [], [], ""

    def handle_starttag(self, tag, attrs):
        if tag not in EMPTY_TAGS:
            self.stack.append((tag, (dict(attrs).get("class") or "").split()))

    def handle_endtag(self, tag):
        if any(t == tag for t, _ in self.stack):      # an end tag never opened closes nothing
            while self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data):
        tags = [t for t, _ in self.stack]
        if any(t in NOT_TEXT for t in tags):
            return      # code and math
        # "1.11×" in a span, " times faster" after it: look across the tags.
        seen = self.tail + data
        for m in TIMES_TWICE[0].finditer(seen):
            if m.end() > len(self.tail):
                self.hits.append((self.getpos()[0], TIMES_TWICE[1], m.group(0)))
        self.tail = seen[-16:]
        if "table" not in tags and not any("results" in c for _, c in self.stack):
            return
        for rx, what in (RAW_POWER, RAW_US, RAW_X):
            for m in rx.finditer(data):
                self.hits.append((self.getpos()[0], what, m.group(0)))


def check_notation(root):
    problems, pages = [], 0
    if os.path.isfile(root):        # one page
        page, root = os.path.basename(root), os.path.dirname(root) or "."
        walk = [(root, [], [page])]
    else:
        walk = os.walk(root)
    for d, _, files in walk:
        for name in sorted(files):
            path = os.path.join(d, name)
            if name.endswith(".html"):
                pages += 1
                scan = NotationScan()
                scan.feed(open(path, encoding="utf-8").read())
                problems += [f"{os.path.relpath(path, root)}:{k}: {what} ({text})" for k, what, text in scan.hits]
            elif name.endswith(".md"):
                pages += 1
                text = re.sub(r"\s+", " ", " ".join(line for _, line in prose_lines(path)))
                problems += [f"{os.path.relpath(path, root)}: {TIMES_TWICE[1]} ({m.group(0)})"
                             for m in TIMES_TWICE[0].finditer(text)]
                for k, line in prose_lines(path):
                    if line.lstrip().startswith("|"):
                        line = re.sub(r"`[^`]*`", "", line)
                        for rx, what in (RAW_POWER, RAW_US, RAW_X):
                            problems += [f"{os.path.relpath(path, root)}:{k}: {what} ({m.group(0)})"
                                         for m in rx.finditer(line)]
    return problems, f"{pages} pages"


# ---- page-numbers ---------------------------------------------------------------
# On a built page, a measured number comes from a CSV through the filter: it
# sits in a span.measured ([]{.m}) or a generated block (.results, .listing,
# a chart or plot, a note). Anything else that looks measured (a number with
# a unit of time, bandwidth, a share or a ratio, or a decimal with three
# digits or more after the point) was typed by hand. A worked example
# ([...]{.example}) is arithmetic, not a run: one that says what a program
# gave or took is a measurement in disguise. results/NOTES.md, included in
# the notes' page, is held to the same rule.
PAGE_MEASURED = re.compile(r"[−-]?\d[\d,.]*\s*(?:µs|us|ms|ns|" + TIME_WORDS + r"|GB/s|TB/s|MB/s|GiB/s|%|×)(?![A-Za-z])"
                           r"|[−-]?\d+\.\d{3,}")
RUN_VERBS = re.compile(r"\b(?:gave|gives|measured|took|takes|ran|reached)\b")
FROM_FILES = {"measured", "results", "listing", "chart-block", "plot", "note", "claim"}
NOT_PROSE = NOT_TEXT | {"title", "head"}


class NumberScan(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.hits, self.example = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in EMPTY_TAGS:
            return
        classes = (dict(attrs).get("class") or "").split()
        self.stack.append((tag, classes))
        if "example" in classes and self.example is None:
            self.example = (len(self.stack), self.getpos()[0], [])

    def handle_endtag(self, tag):
        if not any(t == tag for t, _ in self.stack):
            return
        while self.stack.pop()[0] != tag:
            pass
        if self.example and len(self.stack) < self.example[0]:
            text = " ".join(self.example[2])
            if RUN_VERBS.search(text) and PAGE_MEASURED.search(text):
                self.hits.append((self.example[1], "a worked example that reports a run",
                                  re.sub(r"\s+", " ", text)[:80]))
            self.example = None

    def handle_data(self, data):
        if any(t in NOT_PROSE for t, _ in self.stack) or any(set(c) & FROM_FILES for _, c in self.stack):
            return
        if self.example:
            self.example[2].append(data)
            return
        for m in PAGE_MEASURED.finditer(data):
            self.hits.append((self.getpos()[0], "a number typed by hand", m.group(0)))


def check_page_numbers(root):
    problems, pages = [], 0
    for d, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".html"):
                pages += 1
                path = os.path.join(d, name)
                scan = NumberScan()
                scan.feed(open(path, encoding="utf-8").read())
                problems += [f"{os.path.relpath(path, root)}:{k}: {what} ({text})" for k, what, text in scan.hits]
    return problems, f"{pages} pages"


# ---- links --------------------------------------------------------------------
class Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.refs.append((tag, key, a[key], self.getpos()[0]))


def parse(path, cache):
    if path not in cache:
        c = Collector()
        with open(path, encoding="utf-8") as f:
            c.feed(f.read())
        cache[path] = c
    return cache[path]


def check_links(root):
    problems, cache, checked = [], {}, 0
    pages = sorted(os.path.relpath(os.path.join(d, p), root)
                   for d, _, files in os.walk(root) for p in files if p.endswith(".html"))
    if not pages:
        return [f"{root}: no HTML pages"], "0 links"
    for page in pages:
        path = os.path.join(root, page)
        c = parse(path, cache)
        for tag, key, ref, line in c.refs:
            if re.match(r"^[a-z][a-z0-9+.-]*:", ref, re.I):     # http:, mailto:, data:
                continue
            checked += 1
            target, _, frag = ref.partition("#")
            target = urllib.parse.unquote(target)
            file = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            if target and not os.path.isfile(file):
                problems.append(f"{page}:{line}: <{tag} {key}=\"{ref}\">: no file {os.path.relpath(file)}")
                continue
            if frag and file.endswith(".html"):
                if urllib.parse.unquote(frag) not in parse(file, cache).ids:
                    problems.append(f"{page}:{line}: <{tag} {key}=\"{ref}\">: no id \"{frag}\" in {os.path.basename(file)}")
            if not target and not frag and ref != "":
                problems.append(f"{page}:{line}: <{tag} {key}=\"{ref}\">: empty link")
    return problems, f"{checked} links in {len(pages)} pages"


# ---- evidence -------------------------------------------------------------------
# A chapter's causes are measurements (make profile): it quotes profile.csv
# through the filter, so that the evidence cannot drop out of it unseen.
EVIDENCE_FILE = "profile.csv"
EVIDENCE_SPAN = re.compile(r'\[[^\]]*\]\{\.m\b[^}]*\bfile="' + re.escape(EVIDENCE_FILE) + '"')


def check_evidence(files):
    problems = []
    for md in files:
        prose = "\n".join(line for _, line in prose_lines(md))
        reads = len(EVIDENCE_SPAN.findall(prose))
        reads += sum(1 for _, a in fence_attrs(md)
                     if re.search(r"(?:^|\s)\.(?:pivot|csv-table)\b", a) and attr(a, "file") == EVIDENCE_FILE)
        if not reads:
            problems.append(f"{md}: reads nothing of {EVIDENCE_FILE}: back its causes with []{{.m file=\"{EVIDENCE_FILE}\" ...}} "
                            "(make profile), a {.pivot} or a {.csv-table} of it")
    return problems, f"{len(files)} chapters read {EVIDENCE_FILE}" if not problems else f"{len(files)} chapters"


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "links":
        problems, summary = check_links(args[0])
    elif cmd == "mdlinks":
        problems, summary = check_mdlinks(args[0])
    elif cmd == "notation":
        problems, summary = check_notation(args[0])
    elif cmd == "page-numbers":
        problems, summary = check_page_numbers(args[0])
    elif cmd == "exercises":
        problems, summary = check_exercises(args)
    elif cmd in ("refs", "answers", "numbers", "peaks", "evidence"):
        problems, summary = {"refs": check_refs, "answers": check_answers, "numbers": check_numbers,
                             "peaks": check_peaks, "evidence": check_evidence}[cmd](args)
    else:
        print(f"docs_check.py: unknown check '{cmd}'", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    print(summary, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
