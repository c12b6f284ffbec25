#!/usr/bin/env python3
"""links.py: the links to other texts, for tests/docs.sh. Offline: it reads
the pages, it fetches nothing.

    links.py [--sources FILE] [--course DIR] [--min N] [PAGE...]

Checks, on the pages given (by default docs/*.md, course/*.md, README.md,
answers/*.md, the lab's READMEs and results/NOTES.md):

  form      every http(s) address is well formed: https, a host with a dot,
            no white space, balanced parentheses, no punctuation at its end
            that belongs to the sentence, no placeholder (example.com, TODO)
  sources   every source of the list (docs/sources.tsv: name, URL, and an
            expression by which a page names it) that a page names is linked
            with its URL on that page at least once. A page in PENDING (a
            chapter being rewritten elsewhere) is held to it once it links
            anything at all.
  count     course/*.md holds at least --min links (40) to other sites

Each problem is one line on stdout, and the exit status is 1 if there was
any; a summary goes to stderr.
"""
import argparse
import glob
import os
import re
import sys

# Chapters rewritten on another branch: their sources are checked once they
# hold a link to another site (until then they are counted as pending).
PENDING = {"docs/10_exact.md", "course/10_exact.md"}

DEFAULT_PAGES = ["docs/*.md", "course/*.md", "README.md", "answers/*.md", "lab/README.md",
                 "lab/*/README.md", "results/NOTES.md"]
# Hosts that stand for "fill in later": example.com and its kin, localhost,
# a "your-..." or "todo" name.
PLACEHOLDER = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|localhost)$|(?:^|\.)(?:your[-a-z]*|todo|tbd|fixme)\.", re.I)
FENCE = re.compile(r"^\s*(```+|~~~+)")
URL = re.compile(r"https?://[^\s<>\"'`]*", re.I)


def strip_code(text):
    """The page without its fenced code blocks (their lines left empty)."""
    out, inside = [], None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m and (inside is None or m.group(1)[0] == inside):
            inside = None if inside else m.group(1)[0]
            out.append("")
            continue
        out.append("" if inside else line)
    return "\n".join(out)


def link_targets(text):
    """Every (target, line) of an inline link [text](target), the target
    read to its closing parenthesis, parentheses inside it balanced."""
    found = []
    for m in re.finditer(r"\]\(", text):
        i, depth, start = m.end(), 1, m.end()
        while i < len(text) and depth:
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
            i += 1
        target = text[start:i - 1] if depth == 0 else text[start:]
        target = re.sub(r'\s+"[^"]*"$', "", target)        # a title: [t](url "title")
        found.append((target, text.count("\n", 0, m.start()) + 1))
    return found


def addresses(text):
    """Every (address, line, in_link) of the page: link targets, and any
    other http(s) address in the text (a bare one, or <https://...>)."""
    out = []
    for target, line in link_targets(text):
        if re.match(r"https?:", target, re.I) or "://" in target:
            out.append((target, line, True))
    for m in URL.finditer(text):
        if text[max(0, m.start() - 2):m.start()] == "](":
            continue                                        # a link's target: read above
        autolink = text[m.start() - 1:m.start()] == "<" and text[m.end():m.end() + 1] == ">"
        out.append((m.group(0), text.count("\n", 0, m.start()) + 1, autolink))
    return out


def form_problems(addr, in_link):
    """What is wrong with one address, or an empty list."""
    bad = []
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)$", addr)
    if not m:
        return ["not an address"]
    scheme, host, rest = m.group(1), m.group(2), m.group(3)
    if scheme != "https":
        bad.append(f"scheme {scheme}, not https")
    hostname = host.rsplit("@", 1)[-1].split(":")[0]
    if "." not in hostname or hostname.startswith(".") or hostname.endswith("."):
        bad.append(f"host '{host}' has no dot between names")
    elif PLACEHOLDER.search(hostname):
        bad.append(f"placeholder host '{host}'")
    if re.search(r"\s", addr):
        bad.append("white space inside")
    if addr.count("(") != addr.count(")"):
        bad.append("unbalanced parentheses")
    if re.search(r"[.,;:!?'\"*_]$", addr):
        bad.append(f"ends in '{addr[-1]}', which belongs to the sentence")
    if re.search(r"(?i)(?:^|[/#=])(?:todo|tbd|fixme|xxx+)(?:$|[/#.&])", rest):
        bad.append("a placeholder in the path")
    if not in_link:
        bad.append("a bare address: write it as [text](address)")
    return bad


def read_sources(path):
    sources = []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or not all(p.strip() for p in parts):
                raise SystemExit(f"{path}:{k}: not three fields (name, URL, expression) separated by tabs")
            try:
                expr = re.compile(parts[2])
            except re.error as e:
                raise SystemExit(f"{path}:{k}: the expression does not compile: {e}")
            sources.append((parts[0], parts[1], expr, k))
    return sources


def satisfies(link, urls):
    """Does a link to LINK count as one to the source at URLS (one or more
    addresses, separated by " | ": the same document in another place)?
    A folder's index.html and the folder itself are one address."""
    link = link.replace("/index.html", "/")
    for url in urls.split(" | "):
        url = url.replace("/index.html", "/")
        if link == url or (link.startswith(url) and (url.endswith("/") or link[len(url)] == "#")):
            return True
    return False


def prose(text):
    """The text a source is named in: no code blocks, no table rows, a
    link's text without its target, white space runs made single spaces."""
    lines = [ln for ln in strip_code(text).split("\n") if not ln.lstrip().startswith("|")]
    words = re.sub(r"!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)", r"\1", "\n".join(lines))
    return re.sub(r"\s+", " ", words)


def check(pages, sources, course_dir, minimum):
    problems, pending, links_seen, named = [], [], 0, 0
    for page in pages:
        text = open(page, encoding="utf-8").read()
        body = strip_code(text)
        found = addresses(body)
        for addr, line, in_link in found:
            for why in form_problems(addr, in_link):
                problems.append(f"{page}:{line}: <{addr}>: {why}")
        links = [a for a, _, in_link in found if in_link]
        links_seen += len(links)
        if page in PENDING and not links:
            pending.append(page)
            continue
        words = prose(text)
        for name, url, expr, k in sources:
            m = expr.search(words)
            if not m:
                continue
            named += 1
            if not any(satisfies(link, url) for link in links):
                problems.append(f"{page}: names {name} (\"{m.group(0)}\", sources.tsv line {k}) "
                                f"but does not link {url}")
    count = None
    if course_dir is not None:
        count = 0
        for page in sorted(glob.glob(os.path.join(course_dir, "*.md"))):
            count += sum(1 for a, _, in_link in addresses(strip_code(open(page, encoding="utf-8").read()))
                         if in_link and re.match(r"https?://", a))
        if count < minimum:
            problems.append(f"{course_dir}/*.md: {count} links to other sites, fewer than {minimum}")
    summary = f"{links_seen} links to other sites in {len(pages)} pages; {named} times a page names a source"
    if count is not None:
        summary += f", {count} in {course_dir}/"
    if pending:
        summary += f"; pending, not linked yet: {' '.join(pending)}"
    return problems, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sources", default="docs/sources.tsv")
    ap.add_argument("--course", default="course", help="the folder whose links are counted ('' for none)")
    ap.add_argument("--min", type=int, default=40, help="the fewest links to other sites in the course folder")
    ap.add_argument("pages", nargs="*")
    a = ap.parse_args()
    pages = a.pages or sorted({p for pat in DEFAULT_PAGES for p in glob.glob(pat)})
    if not pages:
        print("links.py: no pages to check", file=sys.stderr)
        return 2
    problems, summary = check(pages, read_sources(a.sources), a.course or None, a.min)
    for p in problems:
        print(p)
    print(summary, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
