#!/usr/bin/env bash
# tests/docs.sh: the course text builds and agrees with the code.
# Run by tests/run (the docs tier); prints one line per check:
#     PASS name | FAIL name: detail | SKIP name: reason
#
#   docs/chapters       every step in steps/ has its chapter docs/NN_name.md
#   docs/refs           every include, snippet marker and diff in the chapters resolves
#   docs/answers        every answer file an exercise names exists
#   docs/exercises      every exercise links to its answer, and the target exists
#   docs/terms          no chapter uses a CUDA term (kernel, grid, block, thread,
#                       warp, SM, global and shared memory, stream ...) before the
#                       primer explains it, unless its first use links there; the
#                       primer and the glossary explain each (tests/terms.py)
#   docs/course-fresh   course/ (the chapters as Markdown) was made from the
#                       sources as they are now: no step, chapter or result
#                       changed since (course/sources.sha256)
#   docs/course-links   every link, image and anchor in course/*.md resolves,
#                       and no template syntax is left in it
#   docs/lab-links      the same for the lab's page that make course makes,
#                       lab/exact-tail/rounds.md (docs/lab_exact_rounds.md)
#   docs/notation       tables and generated blocks write 2^28 as a power, µs
#                       and ×, as the chapters do (course/: in tables, a power
#                       as 2<sup>28</sup>, µs and ×);
#                       no ratio is "1.11× times" anything
#   docs/page-numbers   every measured number on a built page comes from a CSV
#                       through the filter (a span.measured or a generated
#                       block), and no worked example reports a run
#   docs/sources        every address to another site (docs/, course/, README.md,
#                       answers/, the lab's READMEs, results/NOTES.md) is well
#                       formed (https, a host, nothing of the sentence in it),
#                       every source docs/sources.tsv lists is linked on each
#                       page that names it, and course/ holds at least 40 such
#                       links (tests/links.py; offline)
#   docs/readme         every link in README.md resolves, and its list of options
#                       is the one ./step03 --help prints
#   docs/lab-links      every link in the lab's READMEs (lab/, lab/<question>/) resolves
#   docs/make-help      every make target the README, a chapter or the lab names,
#                       or the test runner builds, is in make help
#   docs/course-render  where Pandoc is the version that made course/, making
#                       it again gives the committed files exactly (and the
#                       lab's page)
#   docs/numbers        no measured number typed by hand in the chapters or
#                       in results/NOTES.md
#   docs/evidence       every chapter from 01 on quotes the profiler's evidence,
#                       results/<gpu>/profile.csv (make profile), through the
#                       filter at least once
#   docs/peaks          each GPU has one nominal peak on every page and in
#                       every results file
#   docs/build          make docs succeeds with no warning (Pandoc --fail-if-warnings)
#   docs/links          every link and image in the built pages resolves
#   docs/widths         no page wider than 390 px (and 1280 px, TEST_FULL=1): wide tables and
#                       listings scroll in their own box (needs Chromium)
#   docs/step-count     every page's footer and the README's title give the
#                       number of step files, in words
#   docs/fixture        with a fixture of results, every step's table and chart and
#                       the comparison's plots are generated (and its accuracy
#                       section: a table per input, every number), the lab's
#                       page on step 10's rounds shows its tables, the appendix on
#                       Harris's kernels shows its tables, numbers and racecheck,
#                       and the appendix on small sizes its tables and numbers
#   docs/no-results     with no results at all, the pages still build and say so
#   docs/self-test/...  the checks above catch what they should (a missing marker,
#                       a hand-typed number, a broken link), and the filter reads
#                       a CSV's rows by number (where="col>x")
set -u
cd "$(dirname "$0")/.."

LOGS=${TEST_LOGS:-build/logs}     # (tests/bare.sh runs this with its own)
mkdir -p "$LOGS"
CHECK="python3 tests/docs_check.py"
PANDOC=${PANDOC:-pandoc}                 # as in docs/docs.mk
MAKE="make -j$(nproc 2>/dev/null || echo 2) --no-print-directory PANDOC=$PANDOC"
CHAPTERS=$(ls docs/*.md)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# check NAME COMMAND...: PASS if the command succeeds, else FAIL with its first lines.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>"$LOGS/docs_check.err"); then
        pass "$name ($(tail -1 "$LOGS/docs_check.err"))"
    else
        fail "$name" "$(printf '%s' "$out" | head -5 | tr '\n' ';')"
    fi
}

# ---- without Pandoc -------------------------------------------------------------
# Every step has its chapter; only the newest may come before it (a SKIP).
newest=$(ls steps/[0-9][0-9]_*.cu | tail -1)
for f in steps/[0-9][0-9]_*.cu; do
    name=$(basename "$f" .cu)
    if [ -f "docs/$name.md" ]; then
        pass "docs/chapters/$name"
    elif [ "$f" = "$newest" ]; then
        skip "docs/chapters/$name" "the newest step has no chapter docs/$name.md yet"
    else
        fail "docs/chapters/$name" "steps/$name.cu has no chapter docs/$name.md"
    fi
done
check docs/refs $CHECK refs $CHAPTERS
if [ -d answers ]; then
    check docs/answers $CHECK answers $CHAPTERS
else
    skip docs/answers "there is no answers/ directory in this tree yet"
fi
# results/NOTES.md too: the notes page includes it, and its numbers come
# from the same files through the same spans.
check docs/numbers $CHECK numbers $CHAPTERS results/NOTES.md
# The causes are measured: every step's chapter after step 00's reads
# profile.csv (Nsight Compute's counters and the SASS counts), so that the
# evidence cannot silently drop out of a chapter.
check docs/evidence $CHECK evidence $(ls docs/[0-9][0-9]_*.md | grep -v '^docs/00_')
# One nominal peak per GPU, on every page and in every results file (the
# programs' own output, harris_racecheck.txt, included).
check docs/peaks $CHECK peaks course/*.md README.md results/*.md $(ls results/*/*.md results/*/*.txt 2>/dev/null)
check docs/exercises $CHECK exercises $CHAPTERS
# Links to other texts: their form, each named source linked, at least 40 in
# course/ (offline: nothing is fetched).
check docs/sources python3 tests/links.py
# Every CUDA term taught before it is used, in the reading order of docs/docs.mk;
# and the check catches each kind of fault planted in a copy of the chapters.
READING_ORDER=$($MAKE -s print-chapters)
check docs/terms python3 tests/terms.py docs $READING_ORDER
check docs/self-test/terms python3 tests/terms.py --self-test docs $READING_ORDER

# course/: fresh against its sources, and every link in it leads somewhere.
COURSE_INPUTS=$($MAKE -s print-course-inputs)
check docs/course-fresh python3 tests/course_check.py check course $COURSE_INPUTS
# Every number a page asks of the committed results is there: a where= or col=
# that matches nothing (a misspelt label) prints "(not measured yet)", which no
# committed page may hold; and a planted miss is caught.
if grep -n "(not measured yet)" course/*.md lab/exact-tail/rounds.md >"$LOGS/unmeasured.txt"; then
    fail docs/all-measured "$(head -3 "$LOGS/unmeasured.txt" | tr '\n' ' ')"
else
    pass docs/all-measured
fi
if command -v "$PANDOC" >/dev/null 2>&1; then
    printf -- '---\ntitle: x\n---\n\nA []{.m file="compare.csv" where="step=no_such_step" col="median_us"}.\n' >"$tmp/miss.md"
    if "$PANDOC" --from markdown --to gfm --lua-filter docs/filters/course.lua --metadata results-root=results \
           --metadata results-dirs="$(ls -d results/*/ | head -1)" --metadata docs-dir=docs "$tmp/miss.md" 2>&1 |
           grep -q "(not measured yet)"; then
        pass docs/self-test/all-measured
    else
        fail docs/self-test/all-measured "a span naming no row did not print (not measured yet)"
    fi
fi
check docs/course-links $CHECK mdlinks course
check docs/course-notation $CHECK notation course
check docs/lab-links $CHECK mdlinks lab/exact-tail/rounds.md
check docs/lab-notation $CHECK notation lab/exact-tail/rounds.md
check docs/readme-links $CHECK mdlinks .
for d in lab lab/*/; do      # the lab's READMEs (lab/README.md, lab/<question>/README.md)
    ls "${d%/}"/*.md >/dev/null 2>&1 && check "docs/lab-links/${d%/}" $CHECK mdlinks "${d%/}"
done
# Every make target the README or a chapter names is in make help, and so is
# every target the test runner builds (its build tier, tests/host/build.sh:
# "build NAME TARGET").
help=$($MAKE -s help 2>/dev/null)
missing=
for t in $( (grep -ohE '`make [a-z][a-z0-9-]*' README.md docs/*.md $(ls lab/*.md lab/*/*.md 2>/dev/null) | sed 's/`make //'
             sed -n 's/^build [a-z-]* \([a-z][a-z0-9-]*\)$/\1/p' tests/host/build.sh) | sort -u); do
    case "$t" in step*) t=stepNN ;; esac
    printf '%s\n' "$help" | grep -Eq "make $t( |$)" || missing="$missing $t"
done
if [ -z "$missing" ]; then
    pass docs/make-help
else
    fail docs/make-help "make help does not list:$missing"
fi
# README.md's list of options, word for word what ./step03 --help prints
# (which needs no GPU), and a changed list is caught.
if [ -x ./step03 ]; then
    if out=$(python3 bench/readme_table.py --check-options 2>&1); then
        pass "docs/readme-options ($(echo "$out" | tail -1 | sed 's/.*(//; s/)$//'), as ./step03 --help prints them)"
    else
        fail docs/readme-options "$(echo "$out" | grep '^[-+] ' | head -2 | tr '\n' ' ')$(echo "$out" | tail -1)"
    fi
    mkdir -p "$tmp/readme"
    ln -s "$PWD/step03" "$PWD/common" "$tmp/readme/"
    cp -r bench "$tmp/readme/"      # a copy: bench/lib.py finds the tree from where it lies
    sed 's/^    --grid G           launch G blocks/    --grid G           launch G threads/' README.md >"$tmp/readme/README.md"
    if cmp -s README.md "$tmp/readme/README.md" || python3 "$tmp/readme/bench/readme_table.py" --check-options >/dev/null 2>&1; then
        fail docs/self-test/readme-options "a changed line of the README's options was not caught"
    else
        pass docs/self-test/readme-options
    fi
else
    fail docs/readme-options "./step03 is not built (make step03)"
fi

# The checks themselves must catch what they are for.
printf '| step | time |\n|---|---|\n| 03 | 12.5 µs |\n\nIt reaches 2900 GB/s.\n' >"$tmp/typed.md"
if $CHECK numbers "$tmp/typed.md" >"$tmp/out" 2>/dev/null || [ "$(grep -c . "$tmp/out")" != 2 ]; then
    fail docs/self-test/numbers "a table row and a sentence with hand-typed numbers were not both caught"
else
    pass docs/self-test/numbers
fi
printf 'It took 12\nmicroseconds. The kernel is 44 KB of code; a chunk is 16 KB, a float 4 bytes.\n' >"$tmp/units.md"
units=$($CHECK numbers "$tmp/units.md" 2>/dev/null)
if [ "$(echo "$units" | grep -c .)" != 2 ] || ! echo "$units" | grep -q '(12 microseconds)' ||
        ! echo "$units" | grep -q '(44 KB)'; then
    fail docs/self-test/numbers-units "12 microseconds across a line break and 44 KB were not both caught (or 16 KB, 4 bytes were)"
else
    pass docs/self-test/numbers-units
fi
device=$(python3 -c 'import csv, glob; print(next(csv.DictReader(open(sorted(glob.glob("results/*/compare.csv"))[0])))["device"])' 2>/dev/null)
printf '%s, nominal peak 3352 GB/s.\n\n%s: 132 SMs, nominal peak 3353 GB/s.\n' "$device" "$device" >"$tmp/peaks.md"
if [ -z "$device" ] || $CHECK peaks "$tmp/peaks.md" >/dev/null 2>&1; then
    fail docs/self-test/peaks "two nominal peaks for ${device:-(no GPU in results/)} were not caught"
else
    pass docs/self-test/peaks
fi
printf 'It waits on loads (*long_scoreboard*).\n\n```text\n[]{.m file="profile.csv" col="top_stall"}\n```\n' >"$tmp/noevidence.md"
printf 'It waits on\n[]{.m file="profile.csv" gpu="nvidia-h200"\nwhere="program=02,size=2^28" col="top_stall"}.\n' >"$tmp/evidence.md"
printf '```{.csv-table file="profile.csv" where="program=11" cols="size dram_pct"}\n```\n' >"$tmp/evidence_table.md"
if $CHECK evidence "$tmp/noevidence.md" >/dev/null 2>&1; then
    fail docs/self-test/evidence "a chapter that quotes profile.csv only inside a code block passed"
elif ! $CHECK evidence "$tmp/evidence.md" "$tmp/evidence_table.md" >/dev/null 2>&1; then
    fail docs/self-test/evidence "a span across lines and a csv-table of profile.csv were not both counted"
else
    pass docs/self-test/evidence
fi
printf '```{.cpp include="steps/00_naive.cu" snippet="no_such_marker"}\n```\n' >"$tmp/ref.md"
if $CHECK refs "$tmp/ref.md" >/dev/null 2>&1; then
    fail docs/self-test/refs "a missing marker was not caught"
else
    pass docs/self-test/refs
fi
printf '::: exercise\n**1. Try.** Do it.\n\n*Answer:* in the notes.\n:::\n\n::: exercise\n**2. More.** Again.\n\n*Answer:* [here](../answers/no_such_answer.cu)\n:::\n' >"$tmp/ex.md"
if [ "$($CHECK exercises "$tmp/ex.md" 2>/dev/null | grep -c .)" != 2 ]; then
    fail docs/self-test/exercises "an answer without a link and a link to a missing answer were not both caught"
else
    pass docs/self-test/exercises
fi
# The link check catches a malformed address and a named source left
# unlinked, passes the same page written right, and counts course/'s links.
mkdir -p "$tmp/links"
printf 'See [the slides](http://developer.download.nvidia.com/assets/cuda/files/reduction.pdf.) and\nthe PTX ISA, and [a page](https://example.com/x).\n' >"$tmp/links/bad.md"
printf 'See [the slides](https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf) and\nthe [PTX ISA](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#memory-consistency-model).\n' >"$tmp/links/good.md"
bad=$(python3 tests/links.py --course "" "$tmp/links/bad.md" 2>/dev/null)
if ! python3 tests/links.py --course "" "$tmp/links/good.md" >/dev/null 2>&1; then
    fail docs/self-test/sources "a page with well-formed links to the sources it names was refused: $(python3 tests/links.py --course "" "$tmp/links/good.md" 2>/dev/null | head -2 | tr '\n' ' ')"
elif ! echo "$bad" | grep -q 'scheme http, not https' || ! echo "$bad" | grep -q "ends in '.'" ||
        ! echo "$bad" | grep -q 'placeholder host' || ! echo "$bad" | grep -q 'names PTX ISA .* does not link'; then
    fail docs/self-test/sources "http, a trailing dot, example.com and an unlinked PTX ISA were not all caught: $(echo "$bad" | tr '\n' ' ')"
elif python3 tests/links.py --course "$tmp/links" --min 40 "$tmp/links/good.md" >/dev/null 2>&1; then
    fail docs/self-test/sources "a course folder with 3 links passed the 40-link minimum"
else
    pass docs/self-test/sources
fi
mkdir -p "$tmp/course"
printf '# course/ was made from these files by `make course`, with pandoc 0\n%s  steps/00_naive.cu\n' \
    "$(printf 0%.0s $(seq 64))" >"$tmp/course/sources.sha256"
if python3 tests/course_check.py check "$tmp/course" steps/00_naive.cu steps/01_shared_memory.cu >/dev/null 2>&1; then
    fail docs/self-test/course-fresh "a changed source and a new one were not caught"
else
    pass docs/self-test/course-fresh
fi
printf '# T\n\n## Pitfalls\n\n[a](#pitfalls) [b](#nowhere) [c](gone.md) [d]{.m v="x"}\n' >"$tmp/course/a.md"
if [ "$($CHECK mdlinks "$tmp/course" 2>/dev/null | grep -c .)" != 3 ]; then
    fail docs/self-test/course-links "a missing anchor, a missing file and an unfilled number were not all caught"
else
    pass docs/self-test/course-links
fi
mkdir -p "$tmp/notation"
printf '<table><caption>n = 2^22</caption><tr><td>48.88 us</td><td>2.33x</td></tr></table>\n<p>2^10 in prose, 12 us in prose, <span class="measured">1.11×</span> times faster</p>\n' >"$tmp/notation/a.html"
printf '| n | time | vs CUB |\n|---|---|---|\n| 2^10 | 4.80 us | 0.85x |\n\nIt is 1.45× times\nfaster.\n' >"$tmp/notation/b.md"
if [ "$($CHECK notation "$tmp/notation" 2>/dev/null | grep -c .)" != 8 ]; then
    fail docs/self-test/notation "2^22 and 2^10, us and x in tables and × times in prose were not all caught (or prose 2^N and us were)"
else
    pass docs/self-test/notation
fi
mkdir -p "$tmp/numbers"
printf '<p>It took 12.5 µs, <span class="measured">3.52 µs</span>.</p>\n<p><span class="example">On one H100, step 07 gave −1047.14026</span>; <span class="example">read in 250 µs, that is about 4295 GB/s</span></p>\n<div class="results"><table><tr><td>3.52 µs</td></tr></table></div>\n' >"$tmp/numbers/a.html"
if [ "$($CHECK page-numbers "$tmp/numbers" 2>/dev/null | grep -c .)" != 2 ]; then
    fail docs/self-test/page-numbers "a typed time and an example that reports a run were not both caught (or a measured span, a generated table or an arithmetic example was)"
else
    pass docs/self-test/page-numbers
fi
mkdir -p "$tmp/site"
printf '<p id="a"><a href="#a">ok</a> <a href="gone.html">gone</a> <a href="#nowhere">x</a> <img src="f.svg"></p>\n' >"$tmp/site/index.html"
if [ "$($CHECK links "$tmp/site" 2>/dev/null | grep -c .)" != 3 ]; then
    fail docs/self-test/links "a missing page, a missing id and a missing image were not all caught"
else
    pass docs/self-test/links
fi

# ---- with Pandoc ---------------------------------------------------------------
if ! command -v "$PANDOC" >/dev/null 2>&1; then
    skip docs/build "Pandoc is not installed (sudo apt-get install pandoc); the checks of the built pages (links, notation, widths, the fixture) wait for it"
    exit 0
fi

# The filter must stop the build on a missing marker, naming chapter, file and marker.
cat >"$tmp/bad.md" <<'EOF'
```{.cpp include="steps/03_warp_shuffle.cu" snippet="no_such_marker"}
```
EOF
if err=$("$PANDOC" --from markdown --to html5 --lua-filter docs/filters/course.lua \
             --metadata chapter=bad --metadata docs-dir="$tmp" "$tmp/bad.md" -o "$tmp/bad.html" 2>&1); then
    fail docs/self-test/filter-marker "the build went on with a missing marker"
elif ! printf '%s' "$err" | grep -q "bad.md: include: steps/03_warp_shuffle.cu has no marker '// \[begin no_such_marker\]'"; then
    fail docs/self-test/filter-marker "unclear message: $(printf '%s' "$err" | head -3 | tr '\n' ' ')"
else
    pass docs/self-test/filter-marker
fi
printf '```{.diff diff="steps/00_naive.cu steps/no_such_step.cu"}\n```\n' >"$tmp/bad.md"
if "$PANDOC" --from markdown --to html5 --lua-filter docs/filters/course.lua --metadata chapter=bad \
        "$tmp/bad.md" -o "$tmp/bad.html" >/dev/null 2>&1; then
    fail docs/self-test/filter-diff "the build went on with a diff of a missing file"
else
    pass docs/self-test/filter-diff
fi

# where= picks rows by number too, and a count over none that pass is 0;
# a count where no row is there at all is not measured yet.
mkdir -p "$tmp/res/gpu"
printf 'step,n,ulp_error\na,1,0.25\na,2,0.75\na,3,1.5\nb,1,0.25\n' >"$tmp/res/gpu/w.csv"
printf '[]{.m file="w.csv" where="step=a,ulp_error>0.5" col="ulp_error" agg="count"} []{.m file="w.csv" where="step=b,ulp_error>0.5" col="ulp_error" agg="count"} [x]{.m file="w.csv" where="step=c" col="ulp_error" agg="count"} []{.m file="w.csv" where="step=a,ulp_error<1" col="ulp_error" agg="max"}\n' >"$tmp/where.md"
got=$("$PANDOC" --from markdown --to plain --lua-filter docs/filters/course.lua --metadata chapter=where \
          --metadata results-dirs="$tmp/res/gpu" "$tmp/where.md" 2>&1 | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
if [ "$got" = "2 0 (not measured yet) 0.75" ]; then
    pass docs/self-test/filter-where
else
    fail docs/self-test/filter-where "where= with > and < and a count over none gave '$got', not '2 0 (not measured yet) 0.75'"
fi

# The real build: every page, the single-file course, no warnings (course/
# and the lab's page go to build/: a test does not rewrite the committed ones).
if $MAKE docs-clean >/dev/null && $MAKE docs COURSE_DIR=build/course-build LAB_PAGE=build/lab-build/rounds.md \
        >"$LOGS/docs_build.log" 2>&1; then
    if grep -q "WARNING" "$LOGS/docs_build.log"; then
        fail docs/build "$(grep -m3 WARNING "$LOGS/docs_build.log" | tr '\n' ' ')"
    else
        pass "docs/build ($(ls build/docs/*.html | wc -l) pages)"
    fi
    check docs/links $CHECK links build/docs
    check docs/notation $CHECK notation build/docs
    check docs/page-numbers $CHECK page-numbers build/docs
    # No page wider than a phone's screen (390 px) or a laptop's (1280 px):
    # a wide table or listing scrolls in its own box. Needs a headless Chromium.
    if python3 -c 'import shutil, sys; sys.exit(not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")))'; then
        # make test: a phone's width; make test-full (TEST_FULL=1) a desktop's too.
        if [ "${TEST_FULL:-1}" = 1 ]; then check docs/widths python3 tests/widths.py build/docs 390 1280
        else check docs/widths python3 tests/widths.py build/docs 390; fi
        mkdir -p "$tmp/wide"
        printf '<!doctype html><html><body><div style="width:1000px">wide</div></body></html>\n' >"$tmp/wide/page.html"
        if python3 tests/widths.py "$tmp/wide" 390 >/dev/null 2>&1; then
            fail docs/self-test/widths "a page 1000 px wide was not caught at 390 px"
        else
            pass docs/self-test/widths
        fi
        # What a scroll box cuts: a figure, a key column of a table of results.
        mkdir -p "$tmp/cut"
        printf '<!doctype html><html><body><main><figure style="overflow-x:auto"><svg width="700" height="50" aria-label="a figure 700 px wide"></svg></figure><div class="results"><div style="overflow-x:auto"><table><thead><tr><th>n</th><th>program</th><th style="padding-left:600px">vs CUB</th></tr></thead></table></div></div></main></body></html>\n' >"$tmp/cut/page.html"
        cut=$(python3 tests/widths.py "$tmp/cut" 390 2>/dev/null)
        if echo "$cut" | grep -q 'figure a figure 700 px wide cut' && echo "$cut" | grep -q 'column "vs CUB" of the table'; then
            pass docs/self-test/widths-cut
        else
            fail docs/self-test/widths-cut "a figure and a column cut by their scroll boxes at 390 px were not both caught: $cut"
        fi
    else
        skip docs/widths "no headless Chromium to measure the pages with (apt-get install chromium)"
    fi
    # The footer of every page and the README's title count the steps there are
    # (with a chapter: the newest step may come before its own, see docs/chapters).
    count=$(for f in steps/[0-9][0-9]_*.cu; do n=$(basename "$f" .cu); [ -f "docs/$n.md" ] && echo "$n"; done | wc -l)
    word=$(python3 -c 'import sys; w = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(); n = int(sys.argv[1]); print(w[n] if n < len(w) else n)' "$count")
    wrong=$(grep -L "a CUDA course in $word steps" build/docs/*.html build/docs/answers/*.html | tr '\n' ' ')
    if [ -n "$wrong" ]; then
        fail docs/step-count "these pages' footer does not say 'a CUDA course in $word steps': $wrong"
    elif ! head -1 README.md | grep -q "in $word steps"; then
        fail docs/step-count "README.md's title does not say 'in $word steps' ($count step files)"
    else
        pass "docs/step-count (footers and README: $word steps)"
    fi
    if grep -q 'src="data:image/svg' build/docs/course.html && ! grep -q '<link rel="stylesheet"' build/docs/course.html; then
        pass docs/course-single-file
    else
        fail docs/course-single-file "build/docs/course.html still loads a stylesheet or images from outside"
    fi
else
    fail docs/build "$(grep -v '^pandoc\|^cp \|^  *--' "$LOGS/docs_build.log" | head -4 | tr '\n' ' ')"
fi

# course/ made again gives what is committed, where the Pandoc is the same
# (another version may wrap lines differently; docs/course-fresh covers that).
# (The real build above made it again, into build/course-build.)
made_with=$(head -1 course/sources.sha256 2>/dev/null | sed 's/.*, with //')
this=$("$PANDOC" --version | head -1)
if [ "$made_with" != "$this" ]; then
    skip docs/course-render "course/ was made with $made_with, this is $this"
elif [ ! -f build/course-build/sources.sha256 ]; then
    fail docs/course-render "make docs did not make build/course-build/"
elif d=$(diff -r course build/course-build 2>&1 && diff lab/exact-tail/rounds.md build/lab-build/rounds.md 2>&1); then
    pass docs/course-render
else
    fail docs/course-render "course/ is not what make course makes now: $(printf '%s' "$d" | head -3 | tr '\n' ' ') (run make course)"
fi

# A fixture of results: the tables, the inline numbers and the plots appear.
# Only the pages that read results are made again; the answers' pages, which
# do not, are the real build's, and so is the one-file course (the index links
# to it).
out=build/docs-fixture
if $MAKE docs-clean DOCS_OUT=$out >/dev/null && $MAKE docs-pages RESULTS=tests/fixtures/results DOCS_OUT=$out >"$LOGS/docs_fixture.log" 2>&1 &&
   cp -r build/docs/answers build/docs/course.html $out/; then
    missing=
    for page in $out/[0-9][0-9]_*.html $out/comparison.html; do
        grep -q '<table' "$page" || missing="$missing $(basename "$page"):table"
        grep -Eq '<svg class="chart"|class="plot"' "$page" || missing="$missing $(basename "$page"):chart"
        grep -q 'class="note"' "$page" && missing="$missing $(basename "$page"):note"
    done
    grep -q 'src="results/example-gpu/bandwidth.svg"' $out/comparison.html ||
        missing="$missing comparison.html:plot"
    # How accurate each order is: a table for every input, a plot, and every
    # number of the section filled in from accuracy.csv.
    for i in uniform wide cancel ties huge; do
        grep -q "Input $i" $out/comparison.html || missing="$missing comparison.html:accuracy-$i"
    done
    grep -q 'src="results/example-gpu/accuracy-cancel.svg"' $out/comparison.html ||
        missing="$missing comparison.html:accuracy-plot"
    sed -n '/id="accuracy"/,/id="further-reading"/p' $out/comparison.html | grep -q 'not measured yet' &&
        missing="$missing comparison.html:accuracy-numbers"
    h=$out/appendix_harris.html
    grep -q 'seven kernels on Example GPU' $h || missing="$missing appendix_harris.html:harris.md"
    grep -q 'RACECHECK SUMMARY' $h || missing="$missing appendix_harris.html:racecheck"
    grep -Eq 'class="note"|not measured yet' $h && missing="$missing appendix_harris.html:note"
    if $MAKE lab-page RESULTS=tests/fixtures/results COURSE_DIR=$out LAB_PAGE=$out/lab/rounds.md \
            >>"$LOGS/docs_fixture.log" 2>&1; then
        grep -q 'Step 07 and step 10 timed in turn' $out/lab/rounds.md || missing="$missing lab/rounds.md:exact-tail"
        grep -q 'Each round.s variants' $out/lab/rounds.md || missing="$missing lab/rounds.md:exact-rounds"
    else
        missing="$missing lab/rounds.md:build"
    fi
    c=$out/appendix_clusters.html
    grep -q 'Median time, input not in L2, on Example GPU' $c || missing="$missing appendix_clusters.html:clusters-table"
    grep -q 'The pieces of a one-launch sum at' $c || missing="$missing appendix_clusters.html:pieces"
    grep -Eq 'class="note"|not measured yet' $c && missing="$missing appendix_clusters.html:note"
    if [ -z "$missing" ]; then
        pass docs/fixture
    else
        fail docs/fixture "pages without their generated results:$missing"
    fi
    check docs/fixture/links $CHECK links $out
    check docs/fixture/notation $CHECK notation $out
    check docs/fixture/page-numbers $CHECK page-numbers $out
else
    fail docs/fixture "$(grep -v '^pandoc\|^cp ' "$LOGS/docs_fixture.log" | head -4 | tr '\n' ' ')"
fi

# No results at all (a fresh clone before `make compare`): builds, and says so.
out=build/docs-empty
# (The pages that read results are built, every one that this checks: the
# others do not change with the results.)
empty_pages=$(for p in 03_warp_shuffle comparison appendix_harris appendix_clusters; do echo $out/$p.html; done)
empty_pages="$empty_pages $(ls docs/10_*.md | sed "s|docs/\(.*\)\.md|$out/\1.html|")"
if $MAKE docs-clean DOCS_OUT=$out >/dev/null && $MAKE $empty_pages RESULTS=build/no-such-results DOCS_OUT=$out >"$LOGS/docs_empty.log" 2>&1 &&
   $MAKE lab-page RESULTS=build/no-such-results COURSE_DIR=$out LAB_PAGE=$out/lab/rounds.md >>"$LOGS/docs_empty.log" 2>&1; then
    if grep -q 'No measured results' $out/03_*.html && grep -q 'Not measured yet: <code>make harris</code>' $out/appendix_harris.html &&
       grep -q '(not measured yet)' $out/appendix_harris.html &&
       grep -q 'Not measured yet: <code>make clusters</code>' $out/appendix_clusters.html &&
       grep -q '(not measured yet)' $out/appendix_clusters.html &&
       grep -q 'No measured results' $out/10_*.html && grep -q '(not measured yet)' $out/10_*.html &&
       grep -q 'exact_variants.sh results/<gpu>/exact_tail.csv`' $out/lab/rounds.md &&
       grep -q '(not measured yet)' $out/lab/rounds.md; then
        pass docs/no-results
    else
        fail docs/no-results "the pages do not say that no results were measured"
    fi
else
    fail docs/no-results "$(grep -v '^pandoc\|^cp ' "$LOGS/docs_empty.log" | head -4 | tr '\n' ' ')"
fi
