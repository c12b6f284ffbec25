--[[ course.lua: the Pandoc filter behind `make docs`.

The chapters never paste code or measured numbers. They ask for them, and this
filter fills them in from the files themselves when the pages are built.

Code (the block must be empty; a missing file or marker stops the build with a
message that names the chapter, the file and the marker):

  ```{.cpp include="steps/03_warp_shuffle.cu" snippet="warp_sum"}
  ```   the lines between `// [begin warp_sum]` and `// [end warp_sum]`
        (the markers of other snippets inside it left out)
  ```{.cpp include="common/harness.h" start="typedef struct {" end="} step_t;"}
  ```   the shortest run of lines from one containing start= to one containing
        end= (a leading ^ anchors end= at the start of the line)
  ```{.diff diff="steps/02_grid_stride.cu steps/03_warp_shuffle.cu"}
  ```   the unified diff (diff -u) from the first file to the second

Measurements, from results/<gpu>/ (compare.csv, determinism.csv, ceiling.csv):

  ```{.results steps="02 03" sizes="2^20 2^24 2^28"}
  ```   for each size, those steps and CUB: median time, GB/s, % of the
        nominal peak, speed relative to CUB (CUB's time / the step's)
  ```{results="steps" sizes="2^20,2^24,2^28"}
  ```   the same, shorter: results="steps" for every step, or "02 03"
  ```{.results-grid sizes="2^10 2^20 2^28" metric="gbps"}
  ```   every program against the sizes; metric: gbps, median, pct or vs_cub;
        cache="warm" reads compare-warm.csv (input in L2) instead; median and
        gbps end with the floor rows of floor.csv (read-only kernel at n,
        and for median the empty kernel)
  ```{.chart steps="02 03" metric="vs_cub"}
  ```   a line chart (inline SVG) of gbps or vs_cub against n
  ```{.determinism}      distinct results per program (determinism.csv)
  ```{.ceiling}          what the GPU can read, copy and launch (ceiling.csv)
  ```{.report step="03" n="2^28"}
  ```   the line the program prints for that run, rebuilt from its CSV row
  ```{.plot file="bandwidth.svg" caption="..."}
  ```   the figure results/<gpu>/bandwidth.svg, from every GPU that has it
        (make="accuracy": the target a note names where none has it yet)
  ```{.pivot file="claims.csv" where="claim=D" rows="step" cols="param" value="median_us" fmt="time"}
  ```   any CSV of results/<gpu>/ as a table: a row per value of rows=, a
        column per value of cols=, the median of value= in each cell
        (agg= for max, min, mean, count; fmt: time, gbps, pct, ratio, ulp,
        rel, size or a printf format; col-format="size"; col-label, row-label;
        columns="11_rows cub_segmented": only those columns, in that order;
        fit="yes": every column in sight on a phone, as tests/widths.py checks)
  ```{.csv-table file="claims_checks.csv" where="claim=C" cols="check result"}
  ```   the rows of any CSV that match where=, those columns, as they are
        (fit="yes" as for a pivot)
  ```{.accuracy input="cancel" sizes="2^10 2^20 2^24"}
  ```   one input's rows of accuracy.csv (uniform by default): each
        program's median error in ulp of the correctly rounded sum over the
        seeds, the worst seed's at the last size, the median relative error
        (rel="2^24": at which sizes; the last by default) and, with
        depth="yes", the bound's depth at the last size; by="seed" n="2^20":
        what each program returned at n, seed by seed (NaN, +inf, -inf)
  ```{.multi}
  ```   every results/<gpu>-x<G>/multi.md that make compare-multi wrote;
        section="Step 09": only the section of each (of two GPUs or more)
        whose title starts so
  []{.m step="03" n="2^28" v="gbps"}
        one number in a sentence; v: median, min, gbps, pct, pct_ceiling,
        vs_cub, speedup (with than="NN"), grid, block, bound, error, gadds,
        runs, distinct, spread (without n: from determinism.csv), and
        without a step: device, peak, ceiling, launch (ceiling.csv); floor
        and floor_gbps (with n: the read-only kernel at n, floor.csv),
        empty (the empty kernel of floor.csv), below (of="floor" or
        "empty": a clause saying how far any program's median falls below
        it); cache="warm": from compare-warm.csv; gpu="nvidia-h200": from
        that GPU's results (the first GPU's otherwise)
  []{.m file="tuning/round1.csv" where="step=07_cooperative,block=256" col="sum"}
        one column of the first row of results/<gpu>/FILE that matches where=,
        in the first results/<gpu>/ that has FILE (or gpu="nvidia-h200");
        agg="median" (max, min, mean, count, or range: "4 to 16", or "16"
        where every row has the same value) over every row that matches;
        fmt= as for a pivot, or rel (a relative error: 6.1e-8), or kind
        (of a float's bits, sum_hex: finite, NaN, +inf, −inf); where= on
        input matches a file without that column as uniform. where= may
        also ask for a number above or below a value, "step=cub,ulp_error>0.5";
        agg="count" then counts, among the rows the "=" conditions pick,
        those that pass the others (0 if none). over="WHERE": this row's
        value divided by that of the first row matching WHERE (fmt ratio by
        default: 1.08×); per="COL": divided by another column of the
        same row (fmt="pct": in percent); agg="sum" too; unit="GB/s" (or
        "×") after the number; gpu="all": the value on every GPU, each named;
        path="lab/harris/harris_g80.csv": a file of the tree, not of results/;
        fmt="clause": a sentence a script wrote, which may wrap (2^24^ as a power)

If there are no measurements yet, each of these says so in one line and the
build goes on: the course builds on a fresh clone without a GPU. So does a new
step before it is measured: its rows read "not measured", its numbers "(not
measured yet)", and a chart leaves it out and says so in its caption (a name
that is neither a step with a chapter nor a CUB baseline still stops the
build).

Pages:

  ::: chapter-list       (the index) every chapter, linked, with its summary
  ::: {.include-markdown file="results/NOTES.md"}
                         another Markdown file, without its level-1 title,
                         written as a chapter is: its spans and blocks are
                         filled in as the chapters' are
  ::: {.include-markdown .results each="harris.md" sections="1 2" source="yes" make="make harris"}
                         Markdown a script wrote: each= every results/<gpu>/
                         that has the file (gpus="first": the first only),
                         results= results/FILE, or file=; with a class (.results,
                         .listing) the div takes it, the title stays (level 3,
                         sections level 4; sections="1 2": only those), the
                         tables' widths are left to the browser; source="yes":
                         "(From FILE.)" after each; make=: the command a note
                         names where no GPU has the file
  ::: web-only           left out of the one-page course

Metadata, set by docs/docs.mk (the filter adds step-count, the number of
steps in words, for the footer):
  chapter       the page being built: a chapter name, "index" or "course"
  chapters      every chapter name, in reading order
  results-dirs  the results/<gpu> directories that hold a compare.csv
  multi-results the results/<gpu>-x<G>/multi.md files
  results-root  the directory they are in (results)
  docs-dir      where the chapters live (docs)

With chapter = "course" the filter builds the whole course as one page: the
index, then every chapter, with ids and links rewritten to stay unique. With
chapter = "answer" and answer-file = answers/NAME it builds the page of one
exercise answer.

Written as Markdown (pandoc -t gfm, for course/), the same chapters come out
plain: no divs or spans, exercises and asides as quotes, superscripts as
GitHub shows them (2<sup>24</sup>), links to NAME.md with GitHub's anchors, charts as SVG
files in course-dir/charts/,
figures and plots linked where they are committed. Links written as
../answers/FILE (or ../other/FILE) stay as they are there; on the HTML pages
they lead to the answer's page (or through repo-root to the file).
]]


-- The filter's parts, in files by concern beside this one. Each is loaded
-- into one table shared by all of them (reading the globals through it), so
-- that a function in one part calls one in another by its plain name.
local dir = (PANDOC_SCRIPT_FILE or ""):match("^(.-)[^/\\]*$")
local parts = setmetatable({}, { __index = _G })
for _, name in ipairs({ "base.lua", "code.lua", "numbers.lua", "tables.lua", "measure.lua", "chart.lua", "pages.lua", "site.lua" }) do
  assert(loadfile(dir .. name, "t", parts))()
end

function Pandoc(doc) return parts.page(doc) end
