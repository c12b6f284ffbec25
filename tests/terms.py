#!/usr/bin/env python3
"""terms.py: no chapter uses a CUDA term before the course has explained it.

    python3 tests/terms.py DOCS CHAPTER...              check DOCS/CHAPTER.md, in
                                                        that (reading) order
    python3 tests/terms.py --self-test DOCS CHAPTER...  plant a violation of each
                                                        rule in a copy: each is caught

tests/docs.sh runs both, with the reading order of docs/docs.mk
(`make -s print-chapters`). The terms are TERMS below: the words a C
programmer meets in the first pages and does not know yet. The rules:

1. The primer explains every term: primer.md has the section the term's
   links lead to (a heading with {#ID}), and that section uses the term.
2. The glossary has an entry for every term and every word of GLOSSARY: a
   heading with {#ID}, and in its entry at least one link to a page of the
   course.
3. A chapter's first use of a term is its first match in the chapter's
   text: the body (not the front matter), headings, prose, captions and
   inline code, without fenced code blocks, link targets and {attributes}.
   In a chapter that comes before the primer in the reading order, and in
   an ENTRANCE chapter (where a reader lands from the README or a step file
   without having read the primer), that first use must lie in the text of
   a link to the term's section of the primer (primer.html#ID) or to its
   entry in the glossary (glossary.html#ID). Any other chapter comes after
   the primer, which has explained every term.

Prints one line per problem and exits 1 if there is any; a summary goes to
stderr.
"""
import os
import re
import shutil
import sys
import tempfile

# name, pattern, the primer's section, the glossary's entry
TERMS = [
    ("kernel", r"(?i)\bkernels?\b", "kernel", "kernel"),
    ("grid", r"(?i)\bgrids?\b", "grid", "grid"),
    ("block", r"(?i)\bblocks?\b", "grid", "block"),
    ("thread", r"(?i)\bthreads?\b", "grid", "thread"),
    ("threadIdx", r"\bthreadIdx\b", "grid", "thread"),
    ("blockIdx", r"\bblockIdx\b", "grid", "thread"),
    ("blockDim", r"\bblockDim\b", "grid", "thread"),
    ("gridDim", r"\bgridDim\b", "grid", "grid"),
    ("warp", r"(?i)\bwarps?\b", "warp", "warp"),
    ("SM", r"\bSMs?\b", "sm", "sm"),
    ("global memory", r"(?i)\bglobal\s+memory\b", "memory", "global-memory"),
    ("shared memory", r"(?i)\bshared\s+memory\b", "memory", "shared-memory"),
    ("stream", r"(?i)\bstreams?\b", "stream", "stream"),
    ("default stream", r"(?i)\bdefault\s+streams?\b", "stream", "default-stream"),
]
# Besides those, the glossary explains these (its entries' ids).
GLOSSARY = ["launch", "lane", "occupancy", "l2", "register", "local-memory", "barrier", "atomic",
            "fence", "coalescing", "vector-load", "bank-conflict", "cooperative-launch", "binade", "ulp"]
ENTRANCE = ["00_naive", "01_shared_memory"]
PRIMER, GLOSSARY_PAGE = "primer", "glossary"

FENCE = re.compile(r"^\s*(```+|~~~+)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{([^}]*)\})?\s*$")
# A link or image: [text](target), the text holding at most one level of [].
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
ATTRS = re.compile(r"\{[.#][^}]*\}|\{\s*[\w-]+=\"[^}]*\}")


def reader_text(md):
    """The text a reader reads, with every line where it was: the front matter,
    fenced code, ::: markers, comments and {attributes} blanked out."""
    lines = md.split("\n")
    out, inside, k = [], None, 0
    if lines and lines[0].strip() == "---":
        k = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0) + 1
        out = [""] * k
    for line in lines[k:]:
        m = FENCE.match(line)
        if m:
            mark = m.group(1)[0]
            inside = None if inside == mark else (mark if inside is None else inside)
            out.append("")
        elif inside or line.lstrip().startswith(":::"):
            out.append("")
        else:
            out.append(line)
    text = "\n".join(out)
    blank = lambda m: "\n" * m.group(0).count("\n")
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    text = re.sub(r"<https?://[^>]*>", "", text)
    return ATTRS.sub(blank, text)


def first_uses(text):
    """{term: (line, context, link target or None)} for each term's first use."""
    pieces, at = [], 0
    for m in LINK.finditer(text):
        pieces.append((at, text[at:m.start()], None))
        pieces.append((m.start(1), m.group(1), None if m.group(0).startswith("!") else m.group(2)))
        at = m.end()
    pieces.append((at, text[at:], None))
    found = {}
    for name, pat, _, _ in TERMS:
        for start, piece, target in pieces:
            m = re.search(pat, piece)
            if m:
                line = text.count("\n", 0, start + m.start()) + 1
                context = " ".join(piece[max(0, m.start() - 30):m.end() + 30].split())
                found[name] = (line, context, target)
                break
    return found


def sections(md):
    """{id: text of the section} for each heading with an {#id}."""
    out, current = {}, None
    for line in md.split("\n"):
        h = HEADING.match(line)
        if h:
            ident = re.search(r"#([\w-]+)", h.group(3) or "")
            current = ident.group(1) if ident else None
            if current:
                out[current] = ""
            continue
        if current:
            out[current] += line + "\n"
    return out


def read(docs, name):
    path = os.path.join(docs, name + ".md")
    return open(path, encoding="utf-8").read() if os.path.isfile(path) else None


def check(docs, order):
    problems, checked = [], 0
    primer, glossary = read(docs, PRIMER), read(docs, GLOSSARY_PAGE)
    for page, text in ((PRIMER, primer), (GLOSSARY_PAGE, glossary)):
        if page not in order or text is None:
            problems.append(f"{docs}/{page}.md: not in the reading order, or missing")
    if problems:
        return problems, "nothing checked"
    # 1. The primer explains every term in the section its links lead to.
    ps = sections(primer)
    for name, pat, sec, _ in TERMS:
        if sec not in ps:
            problems.append(f"{docs}/{PRIMER}.md: no section {{#{sec}}}, which explains '{name}'")
        elif not re.search(pat, reader_text(ps[sec])):
            problems.append(f"{docs}/{PRIMER}.md: section {{#{sec}}} never uses '{name}'")
    # 2. The glossary has an entry for it, linked to the course.
    gs = sections(glossary)
    for gid in sorted({g for _, _, _, g in TERMS} | set(GLOSSARY)):
        if gid not in gs:
            problems.append(f"{docs}/{GLOSSARY_PAGE}.md: no entry {{#{gid}}}")
        elif not re.search(r"\]\([\w]+\.html(?:#[\w-]+)?\)", gs[gid]):
            problems.append(f"{docs}/{GLOSSARY_PAGE}.md: the entry {{#{gid}}} links to no chapter")
    # 3. Before the primer, and at the entrance, a term's first use is a link to it.
    after_primer = False
    for chapter in order:
        if chapter == PRIMER:
            after_primer = True
            continue
        if chapter == GLOSSARY_PAGE or (after_primer and chapter not in ENTRANCE):
            continue
        md = read(docs, chapter)
        if md is None:
            problems.append(f"{docs}/{chapter}.md: no such chapter")
            continue
        checked += 1
        for name, pat, sec, gid in TERMS:
            use = first_uses(reader_text(md)).get(name)
            if not use:
                continue
            line, context, target = use
            if target not in (f"{PRIMER}.html#{sec}", f"{GLOSSARY_PAGE}.html#{gid}"):
                where = "before the primer" if not after_primer else "at the entrance"
                problems.append(f"{docs}/{chapter}.md:{line}: the first use of '{name}' (\"{context}\"), "
                                f"{where}, is not a link to {PRIMER}.html#{sec} or {GLOSSARY_PAGE}.html#{gid}")
    return problems, (f"{len(TERMS)} terms: explained in the primer, in the glossary with "
                      f"{len(GLOSSARY)} more; first uses linked in {checked} chapters")


def self_test(docs, order):
    """Each rule, broken on purpose in a copy of the chapters, must be caught."""
    problems = []
    real, _ = check(docs, order)
    if real:
        return ["the chapters as they are do not pass, so the planted faults prove nothing"], ""
    first_link = lambda md, page: re.search(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(" + page + r"\.html#([\w-]+)\)", md)

    def unlink(md):             # the first link to the primer, made plain text
        m = first_link(md, PRIMER)
        return md[:m.start()] + m.group(1) + md[m.end():] if m else None

    def misdirect(md):          # the first link to the primer, to a section that explains none of it
        m = first_link(md, PRIMER)
        return md[:m.start(2)] + "errors" + md[m.end(2):] if m else None

    steps = [c for c in order if re.match(r"\d\d_", c)]
    late = next((c for c in steps if c not in ENTRANCE), None)
    moved = [c for c in order if c != late]
    moved.insert(moved.index(PRIMER), late)
    plants = [
        ("a first use left unlinked", ENTRANCE[0], unlink, order, ENTRANCE[0] + ".md"),
        ("a first use linked to the wrong section", ENTRANCE[-1], misdirect, order, ENTRANCE[-1] + ".md"),
        ("a chapter moved before the primer", None, None, moved, f"{late}.md"),
        ("a section missing from the primer", PRIMER, lambda md: md.replace("{#warp}", ""), order, "no section {#warp}"),
        ("an entry missing from the glossary", GLOSSARY_PAGE,
         lambda md: md.replace("{#bank-conflict}", "{#bank-conflicts}"), order, "no entry {#bank-conflict}"),
    ]
    for what, chapter, change, plant_order, expect in plants:
        with tempfile.TemporaryDirectory() as tmp:
            for f in os.listdir(docs):
                if f.endswith(".md"):
                    shutil.copy(os.path.join(docs, f), tmp)
            if chapter:
                md = read(tmp, chapter)
                changed = change(md)
                if changed is None or changed == md:
                    problems.append(f"could not plant {what} in {chapter}.md")
                    continue
                with open(os.path.join(tmp, chapter + ".md"), "w", encoding="utf-8") as f:
                    f.write(changed)
            found, _ = check(tmp, plant_order)
            if not any(expect in p for p in found):
                problems.append(f"{what} ({chapter or late}) was not caught")
    return problems, f"{len(plants)} planted faults caught"


def main():
    args = sys.argv[1:]
    test = args[:1] == ["--self-test"]
    if test:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    problems, summary = (self_test if test else check)(args[0], args[1:])
    for p in problems:
        print(p)
    print(f"terms: {len(problems)} problems; {summary}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
