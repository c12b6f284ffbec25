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
        default: 1.08×)

Harris's seven kernels (make harris, results/<gpu>/harris.*; the G80's
figures from the slides in lab/harris/harris_g80.csv):

  ```{.harris}          every results/<gpu>/harris.md, without its title
                        (sections="1 2": only those of its level-2 sections)
  ```{.harris-g80}      the slides' G80 table
  ```{.harris-racecheck}  every results/<gpu>/harris_racecheck.txt, as printed
                        (summary="yes": each run's command, first warning and
                        summary line; gpus="first": the first GPU's only)
  []{.harris-m label="harris_7_grid64" n="2^22" l2="cold" v="gbps"}
        one number of the first harris.csv; label: harris_1 ... harris_6,
        harris_7 (its own grid), harris_7_grid64, harris_7_grid256, or a step
        (01_shared_memory ...); n defaults to 2^22, l2 to cold; v: median,
        gbps, pct, grid, block, speedup (with than="LABEL"), vs_g80 (the
        G80's time for that kernel / this one); without a label: device,
        sms, cc; without n: runs (checked, over every row of the label) and
        wrong_at (the sizes where a run was wrong, or "none"); warm_speedup
        (the time with the input not in L2 / the time with it in L2);
        gpu="all": the value on every GPU, each named (first GPU's alone
        otherwise)
  []{.harris-m g80="7" v="time"}
        one of the slides' figures: time, gbps, pct, step, cumulative; with
        any g80=, also peak and device

The appendix on small sizes (make clusters, results/<gpu>/clusters.csv,
clusters_floor.csv, latency.csv, clusters.md) has its own elements, in
docs/filters/small_sizes.lua: {.clusters}, {.clusters-pieces},
{.clusters-table} and []{.clusters-m ...}.

Step 10's tail (bash lab/exact-tail/exact_variants.sh writes results/<gpu>/exact_tail.csv;
the predictions are in lab/exact-tail/exact_tail_predictions.csv) has its own too, in
docs/filters/exact_tail.lua: {.exact-tail}, {.exact-tail-pieces} and
[]{.exact-m ...}.

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
  ::: web-only           left out of the one-page course

Metadata, set by docs/docs.mk (the filter adds step-count, the number of
steps in words, for the footer):
  chapter       the page being built: a chapter name, "index" or "course"
  chapters      every chapter name, in reading order
  results-dirs  the results/<gpu> directories that hold a compare.csv
  multi-results the results/<gpu>-x<G>/multi.md files
  harris-results the results/<gpu> directories that hold a harris.csv
  clusters-results the results/<gpu> directories that hold a clusters.csv
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

local stringify = pandoc.utils.stringify

-- ---- configuration, from the metadata --------------------------------------
local cfg = {
  chapter = "?",        -- the chapter being processed (for messages, bold rows)
  page = "?",           -- the page being built
  chapters = {},
  results = {},         -- results/<gpu> directories
  multi = {},           -- results/<gpu>-x<G>/multi.md files
  harris = {},          -- results/<gpu> directories with a harris.csv
  clusters = {},        -- results/<gpu> directories with a clusters.csv
  root = "results",     -- the directory that holds them
  docs = "docs",
  repo = "../..",       -- the repository, seen from the HTML pages
  md = false,           -- writing Markdown for course/ (else HTML for build/docs/)
  out = "course",       -- where course/ is written (charts go to OUT/charts/)
  charts = 0,           -- charts drawn so far on this page
}

local function words(s)
  local out = {}
  for w in (s or ""):gmatch("[^%s,]+") do out[#out + 1] = w end
  return out
end

-- Stops the build, naming the chapter: the input file, or in the one-page
-- course the chapter being assembled.
local function fail(msg)
  local where = cfg.docs .. "/" .. cfg.chapter .. ".md"
  if cfg.page ~= "course" and PANDOC_STATE and PANDOC_STATE.input_files and PANDOC_STATE.input_files[1] then
    where = PANDOC_STATE.input_files[1]
  end
  error(where .. ": " .. msg, 0)
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

local function lines_of(text)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do out[#out + 1] = line end
  if out[#out] == "" then out[#out] = nil end
  return out
end

local function walk(blocks, filter)
  if pandoc.Blocks and pandoc.Blocks(blocks).walk then
    return pandoc.Blocks(blocks):walk(filter)
  end
  return pandoc.walk_block(pandoc.Div(blocks), filter).content
end

local function markdown(text)
  return pandoc.read(text, "markdown").blocks
end

-- A one-line note in place of something that could not be shown.
local function note(text)
  return pandoc.Div(markdown(text), pandoc.Attr("", { "note" }))
end

-- ---- includes ----------------------------------------------------------------
-- A block that quotes a file must be empty: code typed into it would be
-- thrown away without anyone noticing.
local function must_be_empty(el, what)
  if el.text:match("%S") then
    fail(what .. ": the block must be empty; its content comes from the file, not from the chapter")
  end
end

local function include(el)
  local path = el.attributes["include"]
  must_be_empty(el, "include " .. tostring(path))
  local name = el.attributes["snippet"]
  local text = read_file(path)
  if not text then fail("include: cannot read " .. path) end
  local lines = lines_of(text)
  local first, last = 1, #lines
  local from, to = el.attributes["start"], el.attributes["end"]
  if name then
    local open, close = "// [begin " .. name .. "]", "// [end " .. name .. "]"
    first, last = nil, nil
    for i, line in ipairs(lines) do
      local t = line:match("^%s*(.-)%s*$")
      if t == open then
        if first then fail(path .. " has two markers '" .. open .. "'") end
        first = i + 1
      elseif t == close and first and not last then
        last = i - 1
      end
    end
    if not first then fail("include: " .. path .. " has no marker '" .. open .. "'") end
    if not last then fail("include: " .. path .. " has no marker '" .. close .. "' after '" .. open .. "'") end
  elseif from then
    -- The shortest run of lines that starts with a line containing start= and
    -- ends with one containing end= (a leading ^ anchors at the line start).
    if not to then fail("include: start=\"" .. from .. "\" needs end=\"...\" too") end
    local function has(line, pat)
      if pat:sub(1, 1) == "^" then return line:sub(1, #pat - 1) == pat:sub(2) end
      return line:find(pat, 1, true) ~= nil
    end
    local seen
    first, last = nil, nil
    for i, line in ipairs(lines) do
      if has(line, from) then seen = i end
      if seen and has(line, to) then first, last = seen, i; break end
    end
    if not seen then fail("include: " .. path .. " has no line containing '" .. from .. "'") end
    if not last then fail("include: " .. path .. " has no line containing '" .. to .. "' after '" .. from .. "'") end
  end
  while first <= last and lines[first]:match("^%s*$") do first = first + 1 end
  while last >= first and lines[last]:match("^%s*$") do last = last - 1 end
  if first > last then fail("include: snippet '" .. tostring(name) .. "' in " .. path .. " is empty") end
  -- Markers of other snippets inside this one are not part of the code.
  local kept = {}
  for i = first, last do
    if not lines[i]:match("^%s*// %[begin [%w_]+%]%s*$") and not lines[i]:match("^%s*// %[end [%w_]+%]%s*$") then
      kept[#kept + 1] = lines[i]
    end
  end
  local body = table.concat(kept, "\n")
  local classes = el.classes:filter(function(c) return c ~= "include" end)
  if #classes == 0 then classes = { "cpp" } end
  -- "line 58" for one line, "lines 42–57" for more.
  local span = first == last and string.format("line %d", first) or string.format("lines %d–%d", first, last)
  local where = path .. ", " .. span
  local caption = pandoc.Para({ pandoc.Code(path), pandoc.Str(", " .. span) })
  return pandoc.Div({ caption, pandoc.CodeBlock(body, pandoc.Attr(el.identifier, classes)) },
                    pandoc.Attr("", { "listing" }, { { "title", where } }))
end

-- ---- diffs -------------------------------------------------------------------
local function diff(el)
  local files = words(el.attributes["diff"])
  must_be_empty(el, "diff " .. el.attributes["diff"])
  if #files ~= 2 then fail("diff: give two files, diff=\"OLD NEW\", not '" .. el.attributes["diff"] .. "'") end
  for _, f in ipairs(files) do
    if not read_file(f) then fail("diff: cannot read " .. f) end
  end
  -- diff exits 1 when the files differ; only 2 and above are errors.
  local script = 'diff -u "$1" "$2"; s=$?; [ $s -le 1 ] || exit $s'
  local ok, out = pcall(pandoc.pipe, "sh", { "-c", script, "sh", files[1], files[2] }, "")
  if not ok then fail("diff: diff -u " .. files[1] .. " " .. files[2] .. " failed: " .. tostring(out)) end
  local lines = lines_of(out)
  if #lines == 0 then fail("diff: " .. files[1] .. " and " .. files[2] .. " are identical") end
  -- The header lines carry time stamps; keep only the names.
  lines[1] = "--- " .. files[1]
  lines[2] = "+++ " .. files[2]
  local added, removed = 0, 0
  for i = 3, #lines do
    local c = lines[i]:sub(1, 1)
    if c == "+" then added = added + 1 elseif c == "-" then removed = removed + 1 end
  end
  local caption = pandoc.Para({
    pandoc.Code("diff -u " .. files[1] .. " " .. files[2]),
    pandoc.Str(string.format(": %d lines added, %d removed", added, removed)) })
  return pandoc.Div({ caption, pandoc.CodeBlock(table.concat(lines, "\n"), pandoc.Attr(el.identifier, { "diff" })) },
                    pandoc.Attr("", { "listing", "diff-listing" }))
end

-- ---- measured results ---------------------------------------------------------
-- One CSV record per line (RFC 4180 quoting; no field spans lines here).
local function csv_fields(line)
  local fields, i, n = {}, 1, #line
  while i <= n + 1 do
    if line:sub(i, i) == '"' then
      local value, j = {}, i + 1
      while true do
        local q = line:find('"', j, true)
        if not q then value[#value + 1] = line:sub(j); i = n + 2; break end
        value[#value + 1] = line:sub(j, q - 1)
        if line:sub(q + 1, q + 1) == '"' then
          value[#value + 1] = '"'
          j = q + 2
        else
          i = q + 2    -- past the closing quote and the comma
          break
        end
      end
      fields[#fields + 1] = table.concat(value)
    else
      local c = line:find(",", i, true) or (n + 1)
      fields[#fields + 1] = line:sub(i, c - 1)
      i = c + 1
    end
  end
  return fields
end

local csv_cache = {}
local function read_csv(path)
  if csv_cache[path] ~= nil then return csv_cache[path] or nil end
  local text = read_file(path)
  if not text then csv_cache[path] = false; return nil end
  local lines = lines_of(text)
  local header = csv_fields(lines[1] or "")
  local rows = {}
  for k = 2, #lines do
    if lines[k] ~= "" then
      local f, row = csv_fields(lines[k]), {}
      for j, h in ipairs(header) do row[h] = f[j] end
      rows[#rows + 1] = row
    end
  end
  csv_cache[path] = rows
  return rows
end

-- "2^24" -> 16777216; "1000" -> 1000.
local function parse_size(s)
  local b, e = s:match("^(%d+)%^(%d+)$")
  if b then return math.floor(tonumber(b) ^ tonumber(e) + 0.5) end
  local v = tonumber(s)
  if not v then fail("results: cannot read the size '" .. s .. "' (write 2^20 or 1048576)") end
  return v
end

-- 16777216 -> "2^24^" (a superscript: 2<sup>24</sup> on the pages and in course/); other n as digits.
local function size_md(n)
  local e = math.log(n, 2)
  if math.abs(e - math.floor(e + 0.5)) < 1e-9 then
    return string.format("2^%d^", math.floor(e + 0.5))
  end
  return tostring(math.floor(n))
end

-- Bytes in binary units: 2^20 floats are 4 MiB.
local function bytes_text(b)
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local u = 1
  while b >= 1024 and u < #units do b = b / 1024; u = u + 1 end
  if u == 1 or b == math.floor(b) then return string.format("%d %s", math.floor(b), units[u]) end
  return string.format("%.1f %s", b, units[u])
end

local function time_text(us)
  if us < 100 then return string.format("%.2f µs", us) end
  if us < 1000 then return string.format("%.1f µs", us) end
  if us < 1e5 then return string.format("%.2f ms", us / 1000) end
  if us < 1e6 then return string.format("%.1f ms", us / 1000) end
  return string.format("%.2f s", us / 1e6)
end

local function gbps_text(g)
  if g < 10 then return string.format("%.2f", g) end
  if g < 100 then return string.format("%.1f", g) end
  return string.format("%.0f", g)
end

local function pct_text(p)
  return string.format(p < 1 and "%.2f%%" or "%.1f%%", p)
end

-- Ratios, one form at every size: 1.23×, 0.74×, 0.062×, 0.00074× (two
-- significant digits below 0.1), 12.3×, 1351×.
local function ratio_text(r)
  if r < 0.1 then return string.format("%.2g×", r) end
  if r >= 100 then return string.format("%.0f×", r) end
  if r >= 10 then return string.format("%.1f×", r) end
  return string.format("%.2f×", r)
end

local function gpu_dirs() return cfg.results end

-- ---- any CSV of results/<gpu>/ --------------------------------------------------
-- The rows of FILE in the first results/<gpu>/ that has it (or in the one
-- named by gpu=), and that directory.
local function any_csv(file, gpu)
  for _, dir in ipairs(gpu_dirs()) do
    if not gpu or dir:match("([^/]+)$") == gpu then
      local rows = read_csv(dir .. "/" .. file)
      if rows then return rows, dir end
    end
  end
  -- A folder without compare.csv, such as a run on several GPUs (<gpu>-x4).
  if gpu then
    local rows = read_csv(cfg.root .. "/" .. gpu .. "/" .. file)
    if rows then return rows, cfg.root .. "/" .. gpu end
  end
  return nil
end

-- A row's input (--input): files written before the inputs had the column
-- hold the default one, uniform.
local function row_input(r)
  return (r.input == nil or r.input == "") and "uniform" or r.input
end

-- The rows that match where="col=value,col>number,col<number": a column
-- equal to a value (input= matches a file without that column as uniform),
-- or above or below a number. With equal_only, only the "=" conditions
-- count: the rows a count is taken over.
local function matching_rows(rows, where, equal_only)
  local out = {}
  for _, r in ipairs(rows) do
    local match = true
    for cond in (where or ""):gmatch("[^,]+") do
      local k, op, want = cond:match("^%s*([%w_]+)%s*([=<>])%s*(.-)%s*$")
      if not k then fail("where: cannot read the condition '" .. cond .. "' (write col=value, col>1 or col<1)") end
      if op == "=" then
        local have = k == "input" and row_input(r) or r[k]
        if have ~= want then match = false end
      elseif not equal_only then
        local x, y = tonumber(r[k]), tonumber(want) or fail("where: '" .. cond .. "' needs a number")
        if not x or (op == ">" and not (x > y)) or (op == "<" and not (x < y)) then match = false end
      end
    end
    if match then out[#out + 1] = r end
  end
  return out
end

-- A CSV field as a number: "inf" and "-inf" too (an error that is infinite),
-- nil for anything else that is not a number.
local function num(text)
  if text == "inf" then return math.huge end
  if text == "-inf" then return -math.huge end
  return tonumber(text)
end

-- What a float's bits (sum_hex, reference_hex) hold: "finite", "NaN",
-- "+inf" or "−inf".
local function bits_kind(bits)
  bits = math.floor(bits)
  if bits & 0x7f800000 ~= 0x7f800000 then return "finite" end
  if bits & 0x7fffff ~= 0 then return "NaN" end
  return bits & 0x80000000 ~= 0 and "−inf" or "+inf"
end

-- median, max, min, mean or count of a list of numbers (nils left out).
local function aggregate(values, how)
  local v = {}
  for _, x in pairs(values) do if x then v[#v + 1] = x end end
  if how == "count" then return #v end
  if #v == 0 then return nil end
  table.sort(v)
  if how == "max" then return v[#v] end
  if how == "min" then return v[1] end
  if how == "mean" then
    local sum = 0
    for _, x in ipairs(v) do sum = sum + x end
    return sum / #v
  end
  if how ~= "median" then fail("agg must be median, max, min, mean or count, not '" .. how .. "'") end
  local mid = (#v + 1) // 2
  return #v % 2 == 1 and v[mid] or (v[mid] + v[mid + 1]) / 2
end

-- 6.1e-08 -> "6.1e-8": two digits, the exponent without its padding.
local function sci_text(x)
  local m, sign, e = string.format("%.1e", x):match("^(.-)e([+-])0*(%d+)$")
  return m .. "e" .. (sign == "-" and "-" or "") .. e
end

-- An error in ulps: a whole number as it is, else two digits below 10 and
-- one decimal below 100; whole numbers up to a million, then two digits and
-- a power of ten (1.7e7).
local function ulp_text(u)
  if u == math.huge then return "inf" end
  if u < 1e6 and u == math.floor(u) then return string.format("%.0f", u) end
  if u < 10 then return string.format("%.2g", u) end
  if u < 100 then return string.format("%.1f", u) end
  if u < 1e6 then return string.format("%.0f", u) end
  return sci_text(u)
end

-- A relative error (|error| / sum of magnitudes): 0, inf, or 6.1e-8.
local function rel_text(r)
  if r == math.huge then return "inf" end
  if r == 0 then return "0" end
  return sci_text(r)
end

-- A number as fmt says: time, gbps, pct, ratio, ulp, size, bytes, or a printf format.
local function format_value(x, fmt)
  if x == nil then return "–" end
  if fmt == "time" then return time_text(x) end
  if fmt == "gbps" then return gbps_text(x) end
  if fmt == "pct" then return pct_text(x) end
  if fmt == "ratio" then return ratio_text(x) end
  if fmt == "ulp" then return ulp_text(x) end
  if fmt == "rel" then return rel_text(x) end
  if fmt == "kind" then return bits_kind(x) end
  if fmt == "size" then return size_md(x) end
  if fmt == "bytes" then return bytes_text(x) end
  return string.format(fmt, x)
end

local function nothing_measured(what)
  return note("*No measured " .. what .. " in `results/` yet: `make compare` on a machine with a GPU writes them.*")
end

-- Is this row's program the one asked for? "03" names 03_warp_shuffle; "cub"
-- names CUB's default only, not cub_gpu_to_gpu, which is named in full.
local function is_program(step, prog)
  step = step or ""
  return step == prog or (prog ~= "cub" and step:sub(1, #prog + 1) == prog .. "_")
end

-- The row of compare.csv for a program ("03", "03_warp_shuffle", "cub") and n.
local function find_row(rows, prog, n)
  for _, r in ipairs(rows) do
    if is_program(r.step, prog) and tonumber(r.n) == n then return r end
  end
  return nil
end

-- The programs in compare.csv, in order of first appearance.
local function programs(rows)
  local seen, list = {}, {}
  for _, r in ipairs(rows) do
    if not seen[r.step] then seen[r.step] = true; list[#list + 1] = r.step end
  end
  return list
end

-- A program's name in a table: its id in the CSVs, but for CUB's calls,
-- named as the text names them.
local display_names = { cub = "CUB", cub_segmented = "CUB offsets", cub_segmented_fixed = "CUB fixed-size" }
local function short(step)
  return display_names[step] or step
end

-- A program the course knows, a step with a chapter ("08", "08_fixed_order")
-- or a CUB baseline: without rows it is not measured yet, not misspelt.
local function known_program(prog)
  if prog == "cub" or prog:sub(1, 4) == "cub_" then return true end
  for _, c in ipairs(cfg.chapters) do
    if c == prog or c:sub(1, #prog + 1) == prog .. "_" then return true end
  end
  return false
end

-- A program's name where it has no rows yet: the chapter's ("10" -> "10_exact").
local function unmeasured_name(prog)
  for _, c in ipairs(cfg.chapters) do
    if c == prog or c:sub(1, #prog + 1) == prog .. "_" then return c end
  end
  return prog
end

-- A row's GB/s: bytes / median time, which has more digits than its gbps
-- column (4096 bytes in 7.392 µs are 0.55 GB/s; the column says 0.6).
local function row_gbps(r)
  local b, us = tonumber(r.bytes), tonumber(r.median_us)
  if b and us and b > 0 and us > 0 then return b / us / 1e3 end
  return tonumber(r.gbps)
end

-- The nominal peak, as bench/peak.py reads it back from the rows: each row
-- bounds it (its gbps, bytes / median_us and pct_peak each within their
-- rounding), and the middle of the range that every row allows is the peak.
-- Should no range fit them all, the row with the largest % of peak decides.
local function nominal_peak(rows)
  local low, high, best, fallback = 0, math.huge, 0, nil
  for _, r in ipairs(rows) do
    -- (torch.sum's and cupy.sum's rows are the harness's only by imitation)
    if r.step == "torch.sum" or r.step == "cupy.sum" then goto next end
    local g, p = tonumber(r.gbps), tonumber(r.pct_peak)
    local b, us, gpus = tonumber(r.bytes), tonumber(r.median_us), tonumber(r.gpus) or 1
    if g and p and b and us and p > 0.005 and g > 0 and us > 0.0005 and b > 0 then
      local g_low = math.max(g - 0.05, b / (us + 0.0005) / 1e3)
      local g_high = math.min(g + 0.05, b / (us - 0.0005) / 1e3)
      low = math.max(low, 100 * g_low / (p + 0.005) / gpus)
      high = math.min(high, 100 * g_high / (p - 0.005) / gpus)
    end
    if g and p and p > best then best, fallback = p, 100 * g / p / gpus end
    ::next::
  end
  if high < math.huge and low <= high then return (low + high) / 2 end
  return fallback
end

-- One GPU's nominal peak, the same in every table of it: from its
-- compare.csv (the most rows), or from the rows at hand where it has none.
local function gpu_peak(dir, rows)
  local all = read_csv(dir .. "/compare.csv")
  return nominal_peak((all and #all > 0) and all or rows or {})
end

local function gpu_caption(rows, dir, file, what, extra)
  local dev = rows[1] and rows[1].device or dir
  local peak = gpu_peak(dir, rows)
  return string.format("Table: %s on %s%s (`%s/%s`).%s", what, dev,
    peak and string.format(", nominal peak %s GB/s", gbps_text(peak)) or "", dir, file,
    extra and (" " .. extra) or "")
end

local function pipe_table(header, align, rows, caption)
  local out = { "| " .. table.concat(header, " | ") .. " |", "|" .. table.concat(align, "|") .. "|" }
  for _, r in ipairs(rows) do out[#out + 1] = "| " .. table.concat(r, " | ") .. " |" end
  out[#out + 1] = ""
  out[#out + 1] = caption
  local blocks = markdown(table.concat(out, "\n"))
  -- Long lines would give the columns fixed widths; let the browser choose.
  for _, b in ipairs(blocks) do
    if b.t == "Table" and b.colspecs then
      for i, c in ipairs(b.colspecs) do b.colspecs[i] = { c[1], pandoc.ColWidthDefault } end
    end
  end
  return blocks
end

local function wanted_steps(el, rows)
  local spec = el.attributes["steps"] or "all"
  local list = {}
  if spec == "all" then
    for _, p in ipairs(programs(rows)) do
      if p ~= "cub" then list[#list + 1] = p end
    end
  else
    list = words(spec)
  end
  return list
end

local function results_table(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("results") end
  local sizes = words(el.attributes["sizes"] or "2^20 2^24 2^28")
  local blocks = {}
  for _, dir in ipairs(dirs) do
    local rows = read_csv(dir .. "/compare.csv")
    if not rows or #rows == 0 then
      blocks[#blocks + 1] = note("*`" .. dir .. "/compare.csv` is missing or empty.*")
    else
      local body = {}
      local steps = wanted_steps(el, rows)
      if el.attributes["cub"] ~= "no" then steps[#steps + 1] = "cub" end
      for _, s in ipairs(sizes) do
        local n = parse_size(s)
        local cub = find_row(rows, "cub", n)
        for k, prog in ipairs(steps) do
          local r = find_row(rows, prog, n)
          local name = r and short(r.step) or unmeasured_name(prog)
          if (r and r.step or name) == cfg.chapter then name = "**" .. name .. "**" end
          local label = k == 1 and (size_md(n) .. " (" .. bytes_text(4 * n) .. ")") or ""
          if r then
            local ratio = "—"
            if cub and r.step ~= "cub" then ratio = ratio_text(tonumber(cub.median_us) / tonumber(r.median_us)) end
            body[#body + 1] = { label, name, time_text(tonumber(r.median_us)), ratio, gbps_text(row_gbps(r)),
                                pct_text(tonumber(r.pct_peak)) }
          else
            body[#body + 1] = { label, name, "not measured", "", "", "" }
          end
        end
      end
      -- The columns a reader needs first come first: on a phone they are the
      -- ones in sight (tests/widths.py), and the others scroll.
      local t = pipe_table({ "n", "program", "median time", "vs CUB", "GB/s", "% of peak" },
                           { ":--", ":--", "--:", "--:", "--:", "--:" }, body,
                           gpu_caption(rows, dir, "compare.csv", "Median times, input not in L2,",
                                       "vs CUB: CUB's time ÷ the program's, above 1 is faster than CUB."))
      for _, b in ipairs(t) do blocks[#blocks + 1] = b end
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

local metrics = {
  gbps = { "GB/s", function(r) return gbps_text(row_gbps(r)) end },
  median = { "median time", function(r) return time_text(tonumber(r.median_us)) end },
  pct = { "% of nominal peak", function(r) return pct_text(tonumber(r.pct_peak)) end },
}

-- The floor at each n from floor.csv: the read-only kernel's median time
-- (kind "floor", or "floor_warm"), and the empty kernel's.
local function floor_times(dir, warm)
  local at, empty = {}, nil
  for _, r in ipairs(read_csv(dir .. "/floor.csv") or {}) do
    if r.kind == (warm and "floor_warm" or "floor") then at[tonumber(r.bytes) // 4] = tonumber(r.median_us) end
    if r.kind == "empty" then empty = tonumber(r.median_us) end
  end
  return at, empty
end

local function floor_rows(dir, warm, sizes, which, body)
  local at, empty = floor_times(dir, warm)
  if which ~= "median" and which ~= "gbps" or next(at) == nil then return end
  local line = { "*floor: read-only kernel*" }
  for _, s in ipairs(sizes) do
    local n, us = parse_size(s), at[parse_size(s)]
    line[#line + 1] = not us and "–" or which == "median" and time_text(us) or gbps_text(4 * n / us / 1e3)
  end
  body[#body + 1] = line
  if which == "median" and empty then
    line = { "*floor: empty kernel*" }
    for _ = 1, #sizes do line[#line + 1] = time_text(empty) end
    body[#body + 1] = line
  end
end

local function results_grid(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("results") end
  local sizes = words(el.attributes["sizes"] or "2^10 2^16 2^20 2^24 2^28")
  local which = el.attributes["metric"] or "gbps"
  local warm = el.attributes["cache"] == "warm"
  local file = warm and "compare-warm.csv" or "compare.csv"
  local blocks = {}
  for _, dir in ipairs(dirs) do
    local rows = read_csv(dir .. "/" .. file)
    if not rows or #rows == 0 then
      blocks[#blocks + 1] = note("*Not measured yet: `" .. dir .. "/" .. file .. "` (`make compare` writes it).*")
    else
      local header, align, body = { "program" }, { ":--" }, {}
      for _, s in ipairs(sizes) do
        local n = parse_size(s)
        header[#header + 1] = size_md(n)
        align[#align + 1] = "--:"
      end
      for _, prog in ipairs(programs(rows)) do
        local line = { short(prog) }
        for _, s in ipairs(sizes) do
          local n = parse_size(s)
          local r = find_row(rows, prog, n)
          local cub = find_row(rows, "cub", n)
          local cell = "–"
          if r and which == "vs_cub" then
            cell = cub and ratio_text(tonumber(cub.median_us) / tonumber(r.median_us)) or "–"
          elseif r then
            local m = metrics[which]
            if not m then fail("results-grid: metric must be gbps, median, pct or vs_cub, not '" .. which .. "'") end
            cell = m[2](r)
          end
          line[#line + 1] = cell
        end
        body[#body + 1] = line
      end
      floor_rows(dir, warm, sizes, which, body)
      local label = which == "vs_cub" and "Speed relative to CUB (CUB's median time ÷ the program's)" or
                    ((metrics[which] or { which })[1] .. " by program and n")
      label = label:sub(1, 1):upper() .. label:sub(2) .. (warm and ", input in L2 (warm)" or "")
      local t = pipe_table(header, align, body, gpu_caption(rows, dir, file, label))
      for _, b in ipairs(t) do blocks[#blocks + 1] = b end
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

local function determinism_table(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("determinism runs") end
  local blocks = {}
  for _, dir in ipairs(dirs) do
    local rows = read_csv(dir .. "/determinism.csv")
    if not rows or #rows == 0 then
      blocks[#blocks + 1] = note("*No `" .. dir .. "/determinism.csv` yet: `make compare` writes it.*")
    else
      local body = {}
      for _, r in ipairs(rows) do
        local name = short(r.step)
        if r.step == cfg.chapter then name = "**" .. name .. "**" end
        local spread = tonumber(r.spread_ulp) or 0
        body[#body + 1] = { name, r.deterministic, size_md(tonumber(r.n)), r.runs, r.distinct,
                            spread > 0 and string.format("%.0f", spread) or "0" }
      end
      local dev = rows[1].device or dir
      local t = pipe_table({ "program", "declared deterministic", "n", "runs", "distinct results", "spread (ulp)" },
                           { ":--", ":--", "--:", "--:", "--:", "--:" }, body,
                           string.format("Table: The same input summed again and again on %s (`%s/determinism.csv`): how many different float results came out, and how far apart the extremes are in units in the last place.", dev, dir))
      for _, b in ipairs(t) do blocks[#blocks + 1] = b end
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

local function ceiling_table(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("ceilings") end
  local blocks = {}
  local what = { read = "read only (the ceiling for a sum)", copy = "copy (bytes read + written)",
                 empty = "empty kernel (one launch)" }
  for _, dir in ipairs(dirs) do
    local rows = read_csv(dir .. "/ceiling.csv")
    if not rows or #rows == 0 then
      blocks[#blocks + 1] = note("*No `" .. dir .. "/ceiling.csv` yet: `make compare` writes it.*")
    else
      local body = {}
      for _, r in ipairs(rows) do
        local b, g = tonumber(r.bytes) or 0, tonumber(r.gbps) or 0
        body[#body + 1] = { what[r.kind] or r.kind, b > 0 and bytes_text(b) or "–",
                            time_text(tonumber(r.median_us)), g > 0 and gbps_text(g) or "–" }
      end
      local t = pipe_table({ "kernel", "bytes", "median time", "GB/s" }, { ":--", "--:", "--:", "--:" }, body,
                           string.format("Table: What %s can do at all (`%s/ceiling.csv`).", rows[1].device or dir, dir))
      for _, b in ipairs(t) do blocks[#blocks + 1] = b end
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

-- Every results/<gpu>/FILE there is; where no GPU's is there yet, one note
-- that names the make target that draws it (make=, compare by default).
local function plot(el)
  local file = el.attributes["file"]
  if not file then fail("plot: say which file, file=\"bandwidth.svg\"") end
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("plots") end
  local blocks = {}
  for _, dir in ipairs(dirs) do
    if read_file(dir .. "/" .. file) then
      local rows = read_csv(dir .. "/compare.csv") or {}
      local dev = rows[1] and rows[1].device or dir
      local caption = (el.attributes["caption"] or file) .. " Measured on " .. dev .. "."
      -- docs.mk copies the plot to results/<gpu>/ beside the pages.
      -- course/ links to the plot where it is committed.
      local shown = "results/" .. dir:sub(#cfg.root + 2) .. "/" .. file
      if cfg.md then shown = "../" .. dir .. "/" .. file end
      local fig = markdown("![" .. caption .. "](" .. shown .. ")")
      for _, b in ipairs(fig) do blocks[#blocks + 1] = b end
    end
  end
  if #blocks == 0 then
    return note("*No `results/<gpu>/" .. file .. "` yet: `make " .. (el.attributes["make"] or "compare") ..
                "` on a machine with a GPU draws it.*")
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "plot" }))
end

-- ---- tables from any CSV ------------------------------------------------------------
-- A note where no results/<gpu>/ has the file yet: which make target writes it.
local function not_yet(file, target)
  return note("*No `results/<gpu>/" .. file .. "` yet: `make " .. target ..
              "` on a machine with a GPU writes it.*")
end

-- The distinct values of one column, in order of first appearance (numbers
-- sorted, if every value is one).
local function distinct(rows, col)
  local seen, list, numeric = {}, {}, true
  for _, r in ipairs(rows) do
    local v = r[col] or fail("table: no column '" .. col .. "'")
    if not seen[v] then seen[v] = true; list[#list + 1] = v end
    numeric = numeric and tonumber(v) ~= nil
  end
  if numeric then table.sort(list, function(x, y) return tonumber(x) < tonumber(y) end) end
  return list
end

-- fit="yes" on a table from a CSV: every column of it in sight on a phone,
-- none a scroll away (class "fit": tests/widths.py checks it at 390 px).
local function fit_classes(a, classes)
  if a["fit"] == "yes" then classes[#classes + 1] = "fit" end
  return classes
end

-- ```{.pivot file="claims.csv" where="claim=D,n=16777216" rows="step" cols="param"
--     value="median_us" fmt="time" col-label="tile" caption="..." make="claims"}
-- One table per results/<gpu>/ with the file: a row per value of rows= (one
-- column or several, "step param"), a column per value of cols=
-- (col-format="size" writes 1024 as 2^10; row-format="size" the rows' labels from
-- 4096 up), each cell the value= of the rows
-- that match (their median, or agg=).
local function pivot(el)
  must_be_empty(el, "pivot")
  local a = el.attributes
  local file = a["file"] or fail("pivot: say which file, file=\"claims.csv\"")
  local rcols, ccol, vcol = words(a["rows"] or "step"), a["cols"] or "n", a["value"] or fail("pivot: value=\"COLUMN\"")
  local blocks = {}
  for _, dir in ipairs(gpu_dirs()) do
    local rows = read_csv(dir .. "/" .. file)
    if rows then
      rows = matching_rows(rows, a["where"])
      for _, r in ipairs(rows) do            -- the row's label: its rows= columns, joined
        local parts = {}
        for _, c in ipairs(rcols) do
          local v = r[c] or fail("pivot: " .. file .. " has no column '" .. c .. "'")
          if v ~= "" then parts[#parts + 1] = short(v) end
        end
        r.pivot_row = table.concat(parts, ", ")
        if a["row-format"] == "size" and tonumber(r.pivot_row) and tonumber(r.pivot_row) >= 4096 then
          r.pivot_row = size_md(tonumber(r.pivot_row))
        end
      end
      local header, align, body = { a["row-label"] or "program" }, { ":--" }, {}
      local cols = distinct(rows, ccol)
      if a["columns"] then      -- only these values of cols=, in this order
        local have = {}
        for _, c in ipairs(cols) do have[c] = true end
        cols = {}
        for _, c in ipairs(words(a["columns"])) do
          if have[c] then cols[#cols + 1] = c end
        end
      end
      for _, c in ipairs(cols) do
        local label = a["col-format"] == "size" and size_md(tonumber(c)) or short(c)
        header[#header + 1] = (a["col-label"] and (a["col-label"] .. " ") or "") .. label
        align[#align + 1] = "--:"
      end
      for _, rv in ipairs(distinct(rows, "pivot_row")) do
        local line = { rv }
        for _, c in ipairs(cols) do
          local values = {}
          for _, r in ipairs(rows) do
            if r.pivot_row == rv and r[ccol] == c then values[#values + 1] = tonumber(r[vcol]) end
          end
          line[#line + 1] = #values > 0 and format_value(aggregate(values, a["agg"] or "median"), a["fmt"] or "%.3g") or "–"
        end
        body[#body + 1] = line
      end
      local t = pipe_table(header, align, body, gpu_caption(rows, dir, file, a["caption"] or vcol))
      for _, b in ipairs(t) do blocks[#blocks + 1] = b end
    end
  end
  if #blocks == 0 then return not_yet(file, a["make"] or "claims") end
  return pandoc.Div(blocks, pandoc.Attr("", fit_classes(a, { "results" })))
end


-- ```{.csv-table file="claims_checks.csv" where="claim=C" cols="check result detail"
--     labels="what|result|detail" caption="..." make="claims"}
-- The rows of any CSV that match where=, those columns, as they are (words,
-- not numbers: the cells may wrap, class "words").
local function csv_table(el)
  must_be_empty(el, "csv-table")
  local a = el.attributes
  local file = a["file"] or fail("csv-table: say which file, file=\"claims_checks.csv\"")
  local cols = words(a["cols"] or fail("csv-table: say which columns, cols=\"a b c\""))
  local labels = {}
  for l in (a["labels"] or ""):gmatch("[^|]+") do labels[#labels + 1] = l end
  local blocks = {}
  for _, dir in ipairs(gpu_dirs()) do
    local rows = read_csv(dir .. "/" .. file)
    if rows then
      local header, align, body = {}, {}, {}
      for i, c in ipairs(cols) do header[i] = labels[i] or c; align[i] = ":--" end
      for _, r in ipairs(matching_rows(rows, a["where"])) do
        local line = {}
        for i, c in ipairs(cols) do
          local v = r[c] or fail("csv-table: " .. file .. " has no column '" .. c .. "'")
          line[i] = v == "" and "–" or ("`" .. v:gsub("`", "'") .. "`")
        end
        body[#body + 1] = line
      end
      local t = pipe_table(header, align, body, string.format("Table: %s (`%s/%s`).",
                                                              a["caption"] or file, dir, file))
      for _, b in ipairs(t) do blocks[#blocks + 1] = b end
    end
  end
  if #blocks == 0 then return not_yet(file, a["make"] or "claims") end
  return pandoc.Div(blocks, pandoc.Attr("", fit_classes(a, { "results", "words" })))
end

-- ```{.accuracy input="cancel" sizes="2^10 2^18 2^24" rel="2^24" depth="yes"}
-- One input's rows of accuracy.csv (make accuracy; uniform by default, and
-- a file without an input column holds uniform only), a row per program:
-- its median ulp_error over the seeds at each of sizes=, the worst seed's at
-- the last of them, the median rel_error at each of rel= (the last size by
-- default; rel="" for none) and, with depth="yes", the depth the harness's
-- bound counted at the last size.
-- ```{.accuracy input="huge" n="2^20" by="seed"}
-- The same input at one size, a column per seed: what each program returned
-- (its ulp_error, or NaN, +inf, -inf), under a first row that says what the
-- correctly rounded sum is (finite, or an infinity).
local function float_kind(hex, text)
  local bits = hex and hex ~= "" and tonumber(hex)
  if bits then return bits_kind(bits) end
  text = (text or ""):lower()
  if text:find("nan") then return "NaN" end
  if text == "inf" or text == "+inf" then return "+inf" end
  if text == "-inf" then return "−inf" end
  return "finite"
end

local function accuracy_rows(dir, input)
  local out = {}
  for _, r in ipairs(read_csv(dir .. "/accuracy.csv") or {}) do
    if row_input(r) == input then out[#out + 1] = r end
  end
  return out
end

local function accuracy_medians(rows, el, input, dir)
  local sizes = words(el.attributes["sizes"] or "2^10 2^16 2^20 2^24 2^28")
  local last = parse_size(sizes[#sizes])
  local rel = words(el.attributes["rel"] or sizes[#sizes])
  local depth = el.attributes["depth"] == "yes"
  local header, align, body = { "program" }, { ":--" }, {}
  for _, s in ipairs(sizes) do header[#header + 1] = size_md(parse_size(s)); align[#align + 1] = "--:" end
  header[#header + 1] = "worst seed, " .. size_md(last)
  align[#align + 1] = "--:"
  for _, s in ipairs(rel) do
    header[#header + 1] = "relative, " .. size_md(parse_size(s)); align[#align + 1] = "--:"
  end
  if depth then header[#header + 1] = "depth, " .. size_md(last); align[#align + 1] = "--:" end
  local function values(prog, n, col)
    local v = {}
    for _, r in ipairs(rows) do
      if r.step == prog and tonumber(r.n) == n then v[#v + 1] = num(r[col]) end
    end
    return v
  end
  for _, prog in ipairs(programs(rows)) do
    local line = { short(prog) }
    for _, s in ipairs(sizes) do
      line[#line + 1] = format_value(aggregate(values(prog, parse_size(s), "ulp_error"), "median"), "ulp")
    end
    line[#line + 1] = format_value(aggregate(values(prog, last, "ulp_error"), "max"), "ulp")
    for _, s in ipairs(rel) do
      line[#line + 1] = format_value(aggregate(values(prog, parse_size(s), "rel_error"), "median"), "rel")
    end
    if depth then
      local r = find_row(rows, prog, last)
      local d = r and tonumber(r.depth)
      line[#line + 1] = prog:sub(1, 3) == "cub" and "not known" or (d and string.format("%.0f", d) or "–")
    end
    body[#body + 1] = line
  end
  return pipe_table(header, align, body, string.format(
    "Table: Input %s: each program's error in ulp of the correctly rounded sum (0: the same bits), " ..
    "the median of %d seeds, and its relative error |error| / Σ|x| (median), on %s (`%s/accuracy.csv`)." ..
    " inf: a sum that overflowed, or NaN, where the correctly rounded sum is not that.%s",
    input, #distinct(rows, "seed"), rows[1].device or dir, dir,
    (rows[1].reference_hex == nil and " (A file from before the inputs: its ulp are those of the exact sum, " ..
     "and it has no relative errors.)" or "") ..
    (depth and " Depth: the most additions an element goes through, as the harness's error bound counts " ..
              "them; CUB's order is not known to the harness." or "")))
end

local function accuracy_seeds(rows, el, input, dir)
  local n = parse_size(el.attributes["n"] or fail("accuracy: by=\"seed\" needs n=\"2^20\""))
  local at = {}
  for _, r in ipairs(rows) do if tonumber(r.n) == n then at[#at + 1] = r end end
  if #at == 0 then return nil end
  local seeds = distinct(at, "seed")
  local header, align = { "program" }, { ":--" }
  for _, sd in ipairs(seeds) do header[#header + 1] = "seed " .. sd; align[#align + 1] = "--:" end
  local first = { "*correctly rounded sum*" }
  for _, sd in ipairs(seeds) do
    for _, r in ipairs(at) do
      if r.seed == sd then first[#first + 1] = "*" .. float_kind(r.reference_hex, nil) .. "*"; break end
    end
  end
  local body = { first }
  for _, prog in ipairs(programs(at)) do
    local line = { short(prog) }
    for _, sd in ipairs(seeds) do
      local cell = "–"
      for _, r in ipairs(at) do
        if r.step == prog and r.seed == sd then
          local kind = float_kind(r.sum_hex, r.sum)
          cell = kind == "finite" and (num(r.ulp_error) == math.huge and "finite" or format_value(num(r.ulp_error), "ulp"))
                 or kind
        end
      end
      line[#line + 1] = cell
    end
    body[#body + 1] = line
  end
  return pipe_table(header, align, body, string.format(
    "Table: Input %s at n = %s: what each program returned, seed by seed: its error in ulp of the correctly " ..
    "rounded sum where it is finite (0: the same bits), or NaN, +inf or −inf, on %s (`%s/accuracy.csv`).",
    input, size_md(n), rows[1].device or dir, dir))
end

local function accuracy_table(el)
  must_be_empty(el, "accuracy")
  local input = el.attributes["input"] or "uniform"
  local blocks = {}
  for _, dir in ipairs(gpu_dirs()) do
    local rows = accuracy_rows(dir, input)
    if #rows > 0 then
      local t
      if el.attributes["by"] == "seed" then t = accuracy_seeds(rows, el, input, dir)
      elseif el.attributes["by"] then fail("accuracy: by= can only be \"seed\"")
      else t = accuracy_medians(rows, el, input, dir) end
      for _, b in ipairs(t or {}) do blocks[#blocks + 1] = b end
    end
  end
  if #blocks == 0 then
    return note("*No `results/<gpu>/accuracy.csv` with the input " .. input ..
                " yet: `make accuracy` on a machine with a GPU writes it.*")
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

-- How far the programs' medians fall below the floor (of="floor": the
-- read-only kernel at the same n; of="empty": the empty kernel), as a clause:
-- "the median of 06_last_block at 2^28 is 1.04 µs (0.30%) below the read-only
-- kernel's, the most of any program" or "no program's median is below the
-- read-only kernel's". The floor is one more measurement, so a sum can land
-- under it; this says by how much, from the files, whatever they hold.
local function below_floor(dir, of, warm)
  if of ~= "floor" and of ~= "empty" then fail("m: below needs of=\"floor\" or of=\"empty\"") end
  local rows = read_csv(dir .. "/" .. (warm and "compare-warm.csv" or "compare.csv"))
  local at, empty = floor_times(dir, warm)
  if not rows or (of == "floor" and next(at) == nil) or (of == "empty" and not empty) then return nil end
  local what = of == "floor" and "the read-only kernel’s" or "the empty kernel’s"
  local worst, gap, n_at, base = nil, 0, nil, nil
  for _, r in ipairs(rows) do
    local n, us = tonumber(r.n), tonumber(r.median_us)
    local f = of == "floor" and at[n] or empty
    if r.status == "OK" and f and us and f - us > gap then worst, gap, n_at, base = r.step, f - us, n, f end
  end
  if not worst then return pandoc.Span(markdown("no program’s median is below " .. what)[1].content,
                                       pandoc.Attr("", { "measured", "clause" })) end
  local text = string.format("the median of %s at %s is %s (%s) below %s, the most of any program", short(worst),
                             size_md(n_at), time_text(gap), pct_text(100 * gap / base), what)
  return pandoc.Span(markdown(text)[1].content, pandoc.Attr("", { "measured", "clause" }))
end

-- Columns the harness's CSV (and accuracy.csv) gained with the inputs: a file
-- written before them lacks them, and a number from one is "not measured yet"
-- there rather than a misspelt column.
local later_columns = { input = true, sum_hex = true, reference_hex = true, overflow = true,
                        abs_sum = true, rel_error = true }

-- One measured number, in a sentence.
local function measure(el)
  local a = el.attributes
  local v = a["v"] or "gbps"
  local dirs = gpu_dirs()
  local missing = pandoc.Emph({ pandoc.Str("(not measured yet)") })
  if #dirs == 0 then return missing end
  local dir = dirs[1]
  -- Any column of any CSV in results/<gpu>/: the first row that matches where=,
  -- or with agg= the median (max, min, count) over every row that matches.
  if a["file"] then
    local rows = any_csv(a["file"], a["gpu"])
    if not rows then return missing end
    local col = a["col"] or fail("m: file= needs col=\"NAME\"")
    local matched = matching_rows(rows, a["where"])
    -- A count is over the rows the "=" conditions pick: none of those is
    -- "not measured yet", none of them passing the rest is 0.
    if a["agg"] == "count" and #matching_rows(rows, a["where"], true) > 0 then
      return pandoc.Span({ pandoc.Str(tostring(#matched)) }, pandoc.Attr("", { "measured" }))
    end
    if #matched == 0 then return missing end
    if matched[1][col] == nil then
      if later_columns[col] then return missing end       -- a file from before the column
      fail("m: " .. a["file"] .. " has no column '" .. col .. "'")
    end
    local text = matched[1][col]
    if a["agg"] == "range" then
      -- "4 to 16", or "16" where every row has the same value.
      local values = {}
      for _, r in ipairs(matched) do values[#values + 1] = num(r[col]) end
      local lo, hi = aggregate(values, "min"), aggregate(values, "max")
      if lo == nil then return missing end
      text = format_value(lo, a["fmt"] or "%.3g")
      if hi ~= lo then text = text .. " to " .. format_value(hi, a["fmt"] or "%.3g") end
    elseif a["agg"] then
      local values = {}
      for _, r in ipairs(matched) do values[#values + 1] = num(r[col]) end
      text = format_value(aggregate(values, a["agg"]), a["fmt"] or "%.3g")
    elseif a["over"] then
      -- This row's value over another row's, of the same file and column.
      local other = matching_rows(rows, a["over"])
      if #other == 0 or not num(text) or not num(other[1][col]) then return missing end
      text = format_value(num(text) / num(other[1][col]), a["fmt"] or "ratio")
    elseif a["fmt"] and num(text) then
      text = format_value(num(text), a["fmt"])
    end
    return pandoc.Span({ pandoc.Str(text) }, pandoc.Attr("", { "measured" }))
  end
  -- gpu="nvidia-h200": that GPU's results, not the first GPU's.
  if a["gpu"] then
    dir = nil
    for _, d in ipairs(dirs) do
      if d:match("([^/]+)$") == a["gpu"] then dir = d end
    end
    if not dir then return missing end
  end
  local function shown(text) return pandoc.Span({ pandoc.Str(text) }, pandoc.Attr("", { "measured" })) end
  if v == "ceiling" or v == "launch" then
    local rows = read_csv(dir .. "/ceiling.csv")
    if not rows then return missing end
    for _, r in ipairs(rows) do
      if v == "ceiling" and r.kind == "read" then return shown(gbps_text(tonumber(r.gbps)) .. " GB/s") end
      if v == "launch" and r.kind == "empty" then return shown(time_text(tonumber(r.median_us))) end
    end
    return missing
  end
  -- The floor's run (floor.csv): the read-only kernel at n, as a time or in
  -- GB/s, and the empty kernel timed beside it.
  if v == "floor" or v == "floor_gbps" then
    local at = floor_times(dir, a["cache"] == "warm")
    local n = parse_size(a["n"] or fail("m: " .. v .. " needs n=\"2^20\""))
    local us = at[n]
    if not us then return missing end
    return shown(v == "floor" and time_text(us) or (gbps_text(4 * n / us / 1e3) .. " GB/s"))
  end
  if v == "empty" then
    local _, empty = floor_times(dir, false)
    return empty and shown(time_text(empty)) or missing
  end
  if v == "below" then return below_floor(dir, a["of"], a["cache"] == "warm") or missing end
  -- With a size, a row of compare.csv (compare-warm.csv with cache="warm");
  -- without, the step's row of determinism.csv.
  local file = (a["n"] or v == "device" or v == "peak") and
               (a["cache"] == "warm" and "compare-warm.csv" or "compare.csv") or "determinism.csv"
  local rows = read_csv(dir .. "/" .. file)
  if not rows or #rows == 0 then return missing end
  if v == "device" then return pandoc.Str(rows[1].device) end
  if v == "peak" then
    local peak = gpu_peak(dir, rows)
    return peak and pandoc.Span({ pandoc.Str(gbps_text(peak) .. " GB/s") }, pandoc.Attr("", { "measured" })) or missing
  end
  local step = a["step"] or fail("m: which step? step=\"03\"")
  local r
  if file == "determinism.csv" then
    for _, x in ipairs(rows) do
      if is_program(x.step, step) then r = x end
    end
  else
    r = find_row(rows, step, parse_size(a["n"] or fail("m: which size? n=\"2^28\"")))
  end
  if not r then return missing end
  local text
  if v == "median" then text = time_text(tonumber(r.median_us))
  elseif v == "min" then text = time_text(tonumber(r.min_us))
  elseif v == "gbps" then text = gbps_text(row_gbps(r)) .. " GB/s"
  elseif v == "pct" then text = pct_text(tonumber(r.pct_peak))
  elseif v == "grid" then text = r.grid
  elseif v == "block" then text = r.block
  elseif v == "speedup" then
    -- How many times faster than another step (than="00") at the same n.
    local other = find_row(rows, a["than"] or fail("m: speedup needs than=\"NN\""), tonumber(r.n))
    if not other then return missing end
    text = ratio_text(tonumber(other.median_us) / tonumber(r.median_us))
  elseif v == "runs" then text = r.runs
  elseif v == "bound" then text = string.format("%.2g", tonumber(r.bound))
  elseif v == "error" then text = string.format("%.2g", tonumber(r.error))
  elseif v == "gadds" then
    -- A rate, to about three significant digits: 0.57 billion, 620 billion.
    text = gbps_text(tonumber(r.n) / (tonumber(r.median_us) * 1e-6) / 1e9) .. " billion"
  elseif v == "pct_ceiling" then
    local c = read_csv(dir .. "/ceiling.csv")
    local read
    for _, x in ipairs(c or {}) do if x.kind == "read" then read = tonumber(x.gbps) end end
    if not read then return missing end
    text = pct_text(100 * row_gbps(r) / read)
  elseif v == "distinct" then text = r.distinct
  elseif v == "spread" then text = string.format("%.0f", tonumber(r.spread_ulp) or 0)
  elseif v == "vs_cub" then
    local cub = find_row(rows, "cub", tonumber(r.n))
    if not cub then return missing end
    text = ratio_text(tonumber(cub.median_us) / tonumber(r.median_us))
  else
    fail("m: unknown value v=\"" .. v .. "\"")
  end
  return pandoc.Span({ pandoc.Str(text) }, pandoc.Attr("", { "measured" }))
end

-- A small line chart, drawn here as inline SVG so that it follows the page's
-- colours: GB/s (or time relative to CUB) against n, for a few programs.
local function esc(t)
  return (tostring(t):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- course/ cannot hold inline SVG: the chart becomes a file of its own,
-- OUT/charts/CHAPTER-K.svg, with its colours and fonts inside it.
local chart_style = [[
<style>
text { font-family: DejaVu Sans, Verdana, sans-serif; }
.frame { fill: none; stroke: #c8ccd0; }
.grid { stroke: #c8ccd0; stroke-width: 1; stroke-dasharray: 2 3; }
.tick, .legend, .axis { fill: #1d2125; font-size: 17px; }
.tick { fill: #59636e; font-size: 16px; }
.line { fill: none; stroke-width: 2.2; }
.ceiling { stroke: #59636e; stroke-width: 1.5; stroke-dasharray: 6 4; fill: none; }
.s0 { stroke: #1f77b4; fill: #1f77b4; } .s1 { stroke: #d62728; fill: #d62728; }
.s2 { stroke: #2ca02c; fill: #2ca02c; } .s3 { stroke: #9467bd; fill: #9467bd; }
.s4 { stroke: #8c564b; fill: #8c564b; } .s5 { stroke: #e377c2; fill: #e377c2; }
.s6 { stroke: #17becf; fill: #17becf; } .s7 { stroke: #bcbd22; fill: #bcbd22; }
.cub { stroke: #1d2125; fill: #1d2125; stroke-dasharray: 7 3; }
polyline.line { fill: none; } circle.dot { stroke: none; }
</style>]]

local function chart_file(parts, title, height)
  cfg.charts = cfg.charts + 1
  local name = string.format("charts/%s-%d.svg", cfg.chapter, cfg.charts)
  local svg = { (parts[1]:gsub('^<svg ', '<svg xmlns="http://www.w3.org/2000/svg" ')), chart_style,
                string.format('<rect x="0" y="0" width="100%%" height="%.0f" fill="#ffffff"/>', height) }
  for i = 2, #parts do svg[#svg + 1] = parts[i] end
  local path = cfg.out .. "/" .. name
  local f = io.open(path, "wb")
  if not f then fail("chart: cannot write " .. path .. " (does " .. cfg.out .. "/charts/ exist?)") end
  f:write(table.concat(svg, "\n"), "\n")
  f:close()
  local caption = markdown(title)[1].content
  return { pandoc.Para({ pandoc.Image({ pandoc.Str(stringify(caption)) }, name, "") }),
           pandoc.Para({ pandoc.Emph(caption) }) }
end

local function chart(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("results") end
  local dir = dirs[1]
  local rows = read_csv(dir .. "/compare.csv")
  if not rows or #rows == 0 then return note("*`" .. dir .. "/compare.csv` is missing or empty.*") end
  local metric = el.attributes["metric"] or "gbps"
  if metric ~= "gbps" and metric ~= "vs_cub" then fail("chart: metric must be gbps or vs_cub, not '" .. metric .. "'") end
  local progs = words(el.attributes["steps"] or "all")
  if progs[1] == "all" then progs = programs(rows) end
  if metric == "gbps" and el.attributes["cub"] ~= "no" then
    local has = false
    for _, p in ipairs(progs) do if p == "cub" then has = true end end
    if not has then progs[#progs + 1] = "cub" end
  end
  -- The series: points (log2 n, value) for each program.
  local series, xmin, xmax, ymin, ymax = {}, 1e9, -1e9, 1e300, -1e300
  local unmeasured = {}
  for k, prog in ipairs(progs) do
    local pts, name = {}, prog
    for _, r in ipairs(rows) do
      local step = r.step or ""
      if is_program(step, prog) then
        name = step
        local n, y = tonumber(r.n), row_gbps(r)
        if metric == "vs_cub" then
          local cub = find_row(rows, "cub", n)
          y = cub and tonumber(cub.median_us) / tonumber(r.median_us) or nil
        end
        if y and y > 0 then
          local x = math.log(n, 2)
          pts[#pts + 1] = { x, y }
          xmin, xmax = math.min(xmin, x), math.max(xmax, x)
          ymin, ymax = math.min(ymin, y), math.max(ymax, y)
        end
      end
    end
    if #pts > 0 then
      series[#series + 1] = { name = short(name), pts = pts, cls = name == "cub" and "cub" or ("s" .. (#series)) }
    elseif known_program(prog) then
      unmeasured[#unmeasured + 1] = unmeasured_name(prog)
    else
      fail("chart: no rows for '" .. prog .. "' in " .. dir .. "/compare.csv")
    end
  end
  if #series == 0 then
    return note("*Not measured yet: " .. table.concat(unmeasured, ", ") .. " (`" .. dir .. "/compare.csv`).*")
  end
  local ceiling
  if metric == "gbps" then
    for _, r in ipairs(read_csv(dir .. "/ceiling.csv") or {}) do
      if r.kind == "read" then ceiling = tonumber(r.gbps) end
    end
    if ceiling then ymax = math.max(ymax, ceiling) end
  else
    ymin, ymax = math.min(ymin, 1), math.max(ymax, 1)
  end
  -- Log axes: y from a power of 10 (or 2 for ratios) below to one above.
  local base = metric == "gbps" and 10 or 2
  local function lg(v) return math.log(v, base) end
  local y0, y1 = math.floor(lg(ymin) + 1e-9), math.ceil(lg(ymax) - 1e-9)
  if y1 <= y0 then y1 = y0 + 1 end
  local W, H, L, R, T, B = 640, 380, 64, 16, 16, 52
  local function px(x) return L + (x - xmin) / (xmax - xmin) * (W - L - R) end
  local function py(y) return H - B - (lg(y) - y0) / (y1 - y0) * (H - T - B) end
  local out = {}
  local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  local label = metric == "gbps" and "GB/s (higher is better)" or "speed relative to CUB (higher is better)"
  local title = (el.attributes["caption"] or label) .. " Measured on " .. (rows[1].device or dir) .. "."
  if #unmeasured > 0 then title = title .. " Not measured yet: " .. table.concat(unmeasured, ", ") .. "." end
  add('<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">', W, H, esc(title))
  add('<rect class="frame" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>', L, T, W - L - R, H - T - B)
  for e = y0, y1 do
    local v = base ^ e
    local y = py(v)
    add('<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>', L, y, W - R, y)
    local text = metric == "gbps" and string.format("%g", v) or (v >= 1 and string.format("%g", v) or string.format("1/%g", 1 / v))
    add('<text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>', L - 8, y + 5, text)
  end
  for x = math.ceil(xmin), math.floor(xmax) do
    if (x - math.ceil(xmin)) % 2 == 0 then
      add('<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>', px(x), T, px(x), H - B)
      add('<text class="tick" x="%.1f" y="%d" text-anchor="middle">2<tspan dy="-8" font-size="12">%d</tspan></text>', px(x), H - B + 24, x)
    end
  end
  add('<text class="axis" x="%.1f" y="%d" text-anchor="middle">n (elements)</text>', L + (W - L - R) / 2, H - 8)
  if ceiling then
    add('<line class="ceiling" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>', L, py(ceiling), W - R, py(ceiling))
  end
  if metric == "vs_cub" then
    add('<line class="ceiling" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>', L, py(1), W - R, py(1))
  end
  for _, sr in ipairs(series) do
    local p = {}
    for _, pt in ipairs(sr.pts) do p[#p + 1] = string.format("%.1f,%.1f", px(pt[1]), py(pt[2])) end
    add('<polyline class="line %s" points="%s" fill="none" stroke="#777"/>', sr.cls, table.concat(p, " "))
    for _, pt in ipairs(sr.pts) do add('<circle class="dot %s" cx="%.1f" cy="%.1f" r="3"/>', sr.cls, px(pt[1]), py(pt[2])) end
  end
  -- The legend, in rows under the axis label.
  local entries = {}
  for _, sr in ipairs(series) do entries[#entries + 1] = { sr.cls, sr.name } end
  if ceiling then entries[#entries + 1] = { "ceiling", "read ceiling" } end
  if metric == "vs_cub" then entries[#entries + 1] = { "ceiling", "as fast as CUB" } end
  local lx, ly = L, H + 10
  for _, e in ipairs(entries) do
    local w = 44 + 9.8 * #e[2]
    if lx + w > W and lx > L then lx, ly = L, ly + 26 end
    add('<line class="line %s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#777"/>', e[1], lx, ly - 5, lx + 26, ly - 5)
    add('<text class="legend" x="%.1f" y="%.1f">%s</text>', lx + 32, ly, esc(e[2]))
    lx = lx + w
  end
  out[1] = string.format('<svg class="chart" viewBox="0 0 %d %.0f" role="img" aria-label="%s">', W, ly + 12, esc(title))
  add('<text class="axis" x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>',
      16, T + (H - T - B) / 2, 16, T + (H - T - B) / 2, metric == "gbps" and "GB/s" or "speed vs CUB")
  add('</svg>')
  if cfg.md then return chart_file(out, title, ly + 12) end
  local cap = pandoc.Plain(markdown(title)[1].content)
  return pandoc.Div({ pandoc.RawBlock("html", "<figure class=\"chart\">" .. table.concat(out, "\n")),
                      pandoc.RawBlock("html", "<figcaption>"), cap, pandoc.RawBlock("html", "</figcaption></figure>") },
                    pandoc.Attr("", { "chart-block" }))
end

-- What ./stepNN prints for one run, rebuilt from its CSV row (report.c's format).
local function human_bytes(b)
  local unit = { "B", "KB", "MB", "GB", "TB" }
  local u = 1
  while b >= 1000 and u < 5 do b = b / 1000; u = u + 1 end
  if u == 1 then return string.format("%.0f B", b) end
  return string.format("%.2f %s", b, unit[u])
end

local function human_time(us)
  if us < 10000 then return string.format("%.2f us", us) end
  return string.format("%.2f ms", us / 1000)
end

local function report(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("results") end
  local rows = read_csv(dirs[1] .. "/compare.csv")
  local step = el.attributes["step"] or fail("report: which step? step=\"03\"")
  local n = parse_size(el.attributes["n"] or "2^28")
  local r = rows and find_row(rows, step, n)
  if not r then return note("*No measured run of " .. step .. " at n = " .. size_md(n) .. " yet.*") end
  local runs, distinct = tonumber(r.runs), tonumber(r.distinct)
  local det
  if r.replica == "equal" or r.replica == "differs" then
    det = string.format("same bits on any GPU, grid and block: %s (%d runs, %s the CPU replica of the order)",
                        r.replica == "equal" and "yes" or "NO", runs,
                        r.replica == "equal" and "equal to" or "not all equal to")
  elseif distinct == 1 then det = string.format("deterministic: %s (%d runs, all identical)", r.deterministic, runs)
  else det = string.format("deterministic: %s (%d runs, %d distinct, spread %.0f ulp)", r.deterministic, runs,
                           distinct, tonumber(r.spread_ulp)) end
  local line = string.format("%s | %s | n %s (%s) | median %s, min %s | %.0f GB/s, %.1f%% of peak | " ..
                             "sum %.9g (exact %.9g) err %.1e, bound %.1e | %s | %s",
    r.step, r.technique, r.n, human_bytes(tonumber(r.bytes)), human_time(tonumber(r.median_us)),
    human_time(tonumber(r.min_us)), tonumber(r.gbps), tonumber(r.pct_peak), tonumber(r.sum),
    tonumber(r.reference), tonumber(r.error), tonumber(r.bound), r.status, det)
  local prog = r.step == "cub" and "./build/bench/cub_sum" or ("./step" .. r.step:sub(1, 2))
  local cmd = string.format("$ %s --n %s", prog, el.attributes["n"] or "2^28")
  if r.reps ~= "20" then cmd = cmd .. " --reps " .. r.reps end
  local caption = pandoc.Para({ pandoc.Str("One line of "), pandoc.Code(dirs[1] .. "/compare.csv"),
                                pandoc.Str(", as the program prints it on " .. r.device .. ":") })
  return pandoc.Div({ caption, pandoc.CodeBlock(cmd .. "\n" .. line, pandoc.Attr("", { "console" })) },
                    pandoc.Attr("", { "listing", "report" }))
end

-- A Markdown file from elsewhere in the tree (results/NOTES.md), without its
-- level-1 title; a missing file gives a one-line note. The file is written
-- as a chapter is, so its numbers, tables and code come through this filter
-- too ([]{.m ...} and the rest; the handlers are defined below).
local handlers
local function include_markdown(el)
  -- The file is read where it is in the tree (results/NOTES.md is text, not a
  -- measurement); the numbers in it come from RESULTS, as the chapters' do.
  local path = el.attributes["file"]
  local text = path and read_file(path)
  if not text then return note("*`" .. tostring(path) .. "` is not there yet.*") end
  local blocks = {}
  for _, b in ipairs(pandoc.read(text, "markdown").blocks) do
    if not (b.t == "Header" and b.level == 1) then blocks[#blocks + 1] = b end
  end
  return pandoc.Div(walk(blocks, handlers), pandoc.Attr("", { "included" }))
end

-- Markdown that a script generated (harris.md, multi.md) as the chapters
-- show it: 2^28 (as the scripts write it) as a power, on the pages and in
-- course/ alike, and its tables with the widths left to the browser, as
-- pipe_table leaves them.
local function as_chapter(blocks)
  return walk(blocks, {
    Str = function(el)
      -- Every power in the word: "(2^14..2^22)" has two.
      local out, rest = {}, el.text
      while true do
        local pre, base, exp, post = rest:match("^(.-)(%d+)%^(%d+)(.*)$")
        if not pre then break end
        out[#out + 1] = pandoc.Str(pre .. base)
        out[#out + 1] = pandoc.Superscript({ pandoc.Str(exp) })
        rest = post
      end
      if #out == 0 then return nil end
      if rest ~= "" then out[#out + 1] = pandoc.Str(rest) end
      return out
    end,
    Table = function(el)
      if el.colspecs then
        for i, c in ipairs(el.colspecs) do el.colspecs[i] = { c[1], pandoc.ColWidthDefault } end
      end
      -- A column of words (Harris's techniques) may wrap; the numbers keep
      -- to one line (style.css, table.words-2).
      local head = el.head and el.head.rows and el.head.rows[1]
      if head and head.cells[2] and stringify(head.cells[2].contents) == "technique" then
        el.classes:insert("words-2")
      end
      return el
    end,
  })
end

-- One section of every results/<gpu>-x<G>/multi.md of two GPUs or more: the
-- blocks from the first level-2 header that starts with `section` to the next one,
-- under the file's title (which names the GPUs).
local function multi_section(section)
  local blocks = {}
  for _, path in ipairs(cfg.multi) do
    local g = tonumber(path:match("%-x(%d+)/multi%.md$") or "1")
    local text = g > 1 and read_file(path)
    if text then
      local title, inside, done, found = nil, false, false, {}
      for _, b in ipairs(pandoc.read(text, "markdown").blocks) do
        if b.t == "Header" and b.level == 1 then title = stringify(b.content)
        elseif b.t == "Header" and b.level == 2 then
          done = done or inside                       -- the first matching section only
          inside = not done and stringify(b.content):sub(1, #section) == section
        elseif inside then found[#found + 1] = b end
      end
      if #found > 0 then
        blocks[#blocks + 1] = pandoc.Para({ pandoc.Emph({ pandoc.Str(title .. ", "), pandoc.Code("make compare-multi"),
                                                          pandoc.Str(" (" .. path .. ")") }) })
        for _, b in ipairs(found) do blocks[#blocks + 1] = b end
      end
    end
  end
  if #blocks == 0 then
    return note("*No runs on two GPUs or more in `results/` yet: `make compare-multi` on such a machine " ..
                "writes `results/<gpu>-x<G>/multi.md`, and this shows its section \"" .. section .. "\".*")
  end
  return pandoc.Div(as_chapter(blocks), pandoc.Attr("", { "results" }))
end

-- Every results/<gpu>-x<G>/multi.md (make compare-multi), without its title,
-- one after another; where there are none yet, a note that says what to run.
-- With section="NAME": only that section of the runs on several GPUs.
local function multi_results(el)
  must_be_empty(el, "multi")
  if el.attributes["section"] then return multi_section(el.attributes["section"]) end
  if #cfg.multi == 0 then
    return note("*No runs on several GPUs in `results/` yet: `make compare-multi` on a machine " ..
                "with two GPUs or more writes `results/<gpu>-x<G>/`; with `MULTI_GPUS=1`, the one-GPU baseline.*")
  end
  local blocks, several = {}, false
  for _, path in ipairs(cfg.multi) do
    if path:match("%-x(%d+)/multi%.md$") and tonumber(path:match("%-x(%d+)/multi%.md$")) > 1 then several = true end
    local text = read_file(path) or fail("multi: cannot read " .. path)
    for _, b in ipairs(pandoc.read(text, "markdown").blocks) do
      if b.t == "Header" and b.level == 1 then
        b.level = 3
        blocks[#blocks + 1] = b
      elseif b.t == "Header" then
        b.level = 4
        b.identifier = ""
        blocks[#blocks + 1] = b
      else
        blocks[#blocks + 1] = b
      end
    end
  end
  if not several then
    blocks[#blocks + 1] = note("*Runs on two GPUs or more are still to come: `make compare-multi` on such a " ..
                               "machine writes `results/<gpu>-x<G>/`, and this section shows it.*")
  end
  return pandoc.Div(as_chapter(blocks), pandoc.Attr("", { "results" }))
end

-- ---- Harris's seven kernels -----------------------------------------------------
-- make harris writes results/<gpu>/harris.csv, harris.md and
-- harris_racecheck.txt; the slides' G80 figures are in lab/harris/harris_g80.csv.
local G80_FILE = "lab/harris/harris_g80.csv"

local function g80_rows()
  return read_csv(G80_FILE) or fail("harris: cannot read " .. G80_FILE)
end

local function harris_missing(what)
  return note("*Not measured yet: `make harris` on a machine with a GPU writes `results/<gpu>/" .. what .. "`.*")
end

-- A results/<gpu>/FILE of make harris, whole, with its headings pushed below
-- the chapter's: its title to level 3, its sections to level 4.
local function harris_markdown(dir, file)
  local text = read_file(dir .. "/" .. file) or fail("harris: cannot read " .. dir .. "/" .. file)
  local blocks = {}
  for _, b in ipairs(pandoc.read(text, "markdown").blocks) do
    if b.t == "Header" then
      b.level = b.level == 1 and 3 or 4
      b.identifier = ""
    end
    blocks[#blocks + 1] = b
  end
  return as_chapter(blocks)
end

-- sections="1 2": only those level-2 sections of each harris.md (by their
-- order), with what comes before the first; the rest stays in the file.
local function harris_results(el)
  must_be_empty(el, "harris")
  if #cfg.harris == 0 then return harris_missing("harris.md") end
  local keep
  if el.attributes["sections"] then
    keep = {}
    for _, k in ipairs(words(el.attributes["sections"])) do keep[tonumber(k) or fail("harris: sections=\"1 2\"")] = true end
  end
  local blocks = {}
  for _, dir in ipairs(cfg.harris) do
    if read_file(dir .. "/harris.md") then
      local section = 0
      for _, b in ipairs(harris_markdown(dir, "harris.md")) do
        if b.t == "Header" and b.level == 4 then section = section + 1 end
        if not keep or section == 0 or keep[section] then blocks[#blocks + 1] = b end
      end
      blocks[#blocks + 1] = pandoc.Para({ pandoc.Str("(From "), pandoc.Code(dir .. "/harris.md"), pandoc.Str(".)") })
    else
      blocks[#blocks + 1] = note("*`" .. dir .. "/harris.md` is missing: `python3 lab/harris/harris.py --from " ..
                                 dir .. "` writes it from `harris.csv`.*")
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

local function harris_g80(el)
  must_be_empty(el, "harris-g80")
  local rows = g80_rows()
  local body = {}
  for _, g in ipairs(rows) do
    local function x(v) return v ~= "" and (v .. "×") or "" end
    body[#body + 1] = { g.kernel, g.technique, g.time_ms, g.gbps,
                        pct_text(100 * tonumber(g.gbps) / tonumber(g.peak_gbps)), x(g.step), x(g.cumulative) }
  end
  local g = rows[1]
  return pandoc.Div(pipe_table({ "kernel", "technique", "time (ms)", "GB/s", "% of peak", "step", "cumulative" },
                               { "--:", ":--", "--:", "--:", "--:", "--:", "--:" }, body,
                               string.format("Table: The slides' figures: %s (nominal peak %s GB/s), n = %s " ..
                                             "32-bit integers (`%s`).", g.device, g.peak_gbps,
                                             size_md(tonumber(g.n)), G80_FILE)),
                    pandoc.Attr("", { "results" }))
end

-- summary="yes": of each run, the command, its first warning and its summary
-- line (the whole report stays in the file); gpus="first": the first GPU's.
local function racecheck_summary(text)
  local out, first = {}, false
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  for i, line in ipairs(lines) do
    if line:match("^%$ ") then out[#out + 1] = line; first = true
    elseif first and line:match("Warning: Race reported") then
      out[#out + 1] = line
      if lines[i + 1] and lines[i + 1]:match("^=========%s+and ") then out[#out + 1] = lines[i + 1] end
      out[#out + 1] = "========= ..."
      first = false
    elseif line:match("RACECHECK SUMMARY") then out[#out + 1] = line; out[#out + 1] = "" end
  end
  return table.concat(out, "\n")
end

local function harris_racecheck(el)
  must_be_empty(el, "harris-racecheck")
  local blocks = {}
  for _, dir in ipairs(cfg.harris) do
    local text = read_file(dir .. "/harris_racecheck.txt")
    if text and el.attributes["gpus"] == "first" and #blocks > 0 then text = nil end
    if text and el.attributes["summary"] == "yes" then text = racecheck_summary(text) end
    if text then
      local rows = read_csv(dir .. "/harris.csv") or {}
      local dev = rows[1] and rows[1].device or dir
      blocks[#blocks + 1] = pandoc.Para({ pandoc.Str("On " .. dev .. " ("), pandoc.Code(dir .. "/harris_racecheck.txt"),
                                          pandoc.Str("):") })
      blocks[#blocks + 1] = pandoc.CodeBlock(text:gsub("%s+$", ""), pandoc.Attr("", { "console" }))
    end
  end
  if #blocks == 0 then return harris_missing("harris_racecheck.txt") end
  return pandoc.Div(blocks, pandoc.Attr("", { "listing" }))
end

-- The labels harris.csv uses: the kernels, and the steps that have a chapter.
local function harris_label_known(label)
  if label:match("^harris_[1-6]$") or label:match("^harris_7$") or label:match("^harris_7_grid%d+$") then
    return true
  end
  for _, c in ipairs(cfg.chapters) do
    if c == label then return true end
  end
  return false
end

local function harris_g80_value(a, v)
  local g = g80_rows()[tonumber(a["g80"])] or fail("harris-m: no kernel " .. a["g80"] .. " in " .. G80_FILE)
  if v == "time" then return g.time_ms .. " ms" end
  if v == "gbps" then return g.gbps .. " GB/s" end
  if v == "pct" then return pct_text(100 * tonumber(g.gbps) / tonumber(g.peak_gbps)) end
  if v == "step" or v == "cumulative" then
    if g[v] == "" then fail("harris-m: kernel " .. g.kernel .. " has no " .. v .. " speed-up") end
    return g[v] .. "×"
  end
  if v == "peak" then return g.peak_gbps .. " GB/s" end
  if v == "device" then return g.device end
  fail("harris-m: unknown G80 value v=\"" .. v .. "\"")
end

local function harris_row(rows, label, n, l2)
  for _, r in ipairs(rows) do
    if r.label == label and tonumber(r.n) == n and r.l2 == l2 then return r end
  end
  return nil
end

-- Over every row of one label: how many runs were checked, or at which sizes
-- (and L2 states) a run was wrong ("none" if at none).
local function harris_checked(rows, label, v)
  local runs, wrong = 0, {}
  for _, r in ipairs(rows) do
    if r.label == label then
      runs = runs + tonumber(r.runs)
      if r.status ~= "OK" then
        wrong[#wrong + 1] = size_md(tonumber(r.n)) .. " " .. r.l2
      end
    end
  end
  if runs == 0 then return nil end
  if v == "runs" then return pandoc.Span({ pandoc.Str(tostring(runs)) }, pandoc.Attr("", { "measured" })) end
  local text = #wrong == 0 and "none" or table.concat(wrong, ", ")
  return pandoc.Span(markdown(text)[1].content, pandoc.Attr("", { "measured" }))
end

-- One number about Harris's kernels, from the rows of one GPU's harris.csv.
local function harris_value(rows, a, v)
  local missing = pandoc.Emph({ pandoc.Str("(not measured yet)") })
  if not rows or #rows == 0 then return missing end
  if v == "device" or v == "sms" or v == "cc" then return pandoc.Str(rows[1][v]) end
  local label = a["label"] or fail("harris-m: which program? label=\"harris_3\"")
  if v == "runs" or v == "wrong_at" then return harris_checked(rows, label, v) or missing end
  local n, l2 = parse_size(a["n"] or "2^22"), a["l2"] or "cold"
  if v == "warm_speedup" then l2 = "warm" end
  local r = harris_row(rows, label, n, l2)
  if not r then return missing end
  if r.status ~= "OK" and v ~= "grid" and v ~= "block" then return pandoc.Strong({ pandoc.Str("WRONG") }) end
  local us = tonumber(r.median_us)
  local text
  if v == "median" then text = time_text(us)
  elseif v == "gbps" then text = gbps_text(row_gbps(r)) .. " GB/s"
  elseif v == "pct" then text = pct_text(tonumber(r.pct_peak))
  elseif v == "grid" then text = r.grid
  elseif v == "block" then text = r.block
  elseif v == "speedup" or v == "warm_speedup" then
    local than = v == "warm_speedup" and label or a["than"] or fail("harris-m: speedup needs than=\"LABEL\"")
    if not harris_label_known(than) then fail("harris-m: unknown label '" .. than .. "'") end
    local other = harris_row(rows, than, n, v == "warm_speedup" and "cold" or l2)
    if not other or other.status ~= "OK" then return missing end
    text = ratio_text(tonumber(other.median_us) / us)
  elseif v == "vs_g80" then
    local k = label:match("^harris_(%d)") or fail("harris-m: vs_g80 is for a kernel, not '" .. label .. "'")
    text = ratio_text(1000 * tonumber(g80_rows()[tonumber(k)].time_ms) / us)
  else
    fail("harris-m: unknown value v=\"" .. v .. "\"")
  end
  return pandoc.Span({ pandoc.Str(text) }, pandoc.Attr("", { "measured" }))
end

-- One number about Harris's kernels, in a sentence: the first GPU's, or with
-- gpu="all" each GPU's, named ("1.36× on the H100 80GB HBM3 and 1.35× on the H200").
local function harris_measure(el)
  local a = el.attributes
  local v = a["v"] or fail("harris-m: which value? v=\"median\"")
  if a["g80"] then return pandoc.Span({ pandoc.Str(harris_g80_value(a, v)) }, pandoc.Attr("", { "measured" })) end
  if a["label"] and not harris_label_known(a["label"]) then fail("harris-m: unknown label '" .. a["label"] .. "'") end
  if a["gpu"] == nil then
    return harris_value(cfg.harris[1] and read_csv(cfg.harris[1] .. "/harris.csv"), a, v)
  end
  if a["gpu"] ~= "all" then fail("harris-m: gpu= is \"all\" or nothing, not '" .. a["gpu"] .. "'") end
  if #cfg.harris == 0 then return harris_value(nil, a, v) end
  local out = {}
  local function words_of(text)
    for w in text:gmatch("%S+") do
      if #out > 0 and out[#out].t ~= "Space" then out[#out + 1] = pandoc.Space() end
      out[#out + 1] = pandoc.Str(w)
    end
  end
  for k, dir in ipairs(cfg.harris) do
    local rows = read_csv(dir .. "/harris.csv")
    if k > 1 then
      if k == #cfg.harris then words_of("and") else out[#out] = pandoc.Str(out[#out].text .. ",") end
      out[#out + 1] = pandoc.Space()
    end
    out[#out + 1] = harris_value(rows, a, v)
    local dev = rows and rows[1] and rows[1].device or dir
    words_of("on the " .. dev:gsub("^NVIDIA ", ""))
  end
  return out
end

-- ---- the small sizes (make clusters) ---------------------------------------------
-- In a file of its own beside this one, handed the helpers it shares.
local filter_parts = {
  cfg = cfg, fail = fail, note = note, markdown = markdown, read_csv = read_csv, read_file = read_file,
  parse_size = parse_size, size_md = size_md, time_text = time_text, ratio_text = ratio_text,
  pipe_table = pipe_table, words = words, must_be_empty = must_be_empty, as_chapter = as_chapter,
}
local filter_dir = (PANDOC_SCRIPT_FILE or ""):match("^(.-)[^/\\]*$")
local small_sizes = dofile(filter_dir .. "small_sizes.lua")(filter_parts)

-- ---- step 10's tail (lab/exact-tail/exact_variants.sh) ------------------------------------
-- In a file of its own too: docs/filters/exact_tail.lua.
local exact_tail = dofile(filter_dir .. "exact_tail.lua")(filter_parts)

-- ---- chapters, index, neighbours ----------------------------------------------
local meta_cache = {}
local function chapter_meta(name)
  if meta_cache[name] then return meta_cache[name] end
  local path = cfg.docs .. "/" .. name .. ".md"
  local text = read_file(path)
  if not text then error("docs: the chapter list names " .. name .. ", but there is no " .. path, 0) end
  local doc = pandoc.read(text, "markdown")
  local summary = doc.meta.summary
  meta_cache[name] = { doc = doc, title = stringify(doc.meta.title or name),
                       summary = summary and stringify(summary) or "",
                       summary_inlines = summary and pandoc.utils.type and pandoc.utils.type(summary) == "Inlines"
                                         and summary or (summary and { pandoc.Str(stringify(summary)) }) }
  return meta_cache[name]
end

local function href(name)
  if cfg.page == "course" then return "#" .. name end
  if cfg.md then return name == "index" and "README.md" or (name .. ".md") end
  return name .. ".html"
end

-- How many steps the course has, in words ("ten"), for the pages' footer:
-- the chapters named NN_name, which are the step files (docs.mk).
local number_words = { "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                       "eighteen", "nineteen", "twenty" }
local function step_count()
  local count = 0
  for _, name in ipairs(cfg.chapters) do
    if name:match("^%d%d_") then count = count + 1 end
  end
  return number_words[count] or tostring(count)
end

local function chapter_list()
  local items = {}
  for _, name in ipairs(cfg.chapters) do
    local m = chapter_meta(name)
    local item = { pandoc.Plain({ pandoc.Link({ pandoc.Str(m.title) }, href(name)) }) }
    if m.summary_inlines and cfg.md then
      -- A paragraph of its own, so that Markdown does not run it into the link.
      item = { pandoc.Para(item[1].content), pandoc.Para(m.summary_inlines) }
    elseif m.summary_inlines then
      item[#item + 1] = pandoc.Div({ pandoc.Plain(m.summary_inlines) }, pandoc.Attr("", { "summary" }))
    end
    items[#items + 1] = item
  end
  return pandoc.Div({ pandoc.BulletList(items) }, pandoc.Attr("", { "chapter-list" }))
end

-- ---- the element handlers -------------------------------------------------------
handlers = {
  CodeBlock = function(el)
    if el.attributes["include"] then return include(el) end
    if el.attributes["diff"] then return diff(el) end
    if el.classes:includes("results") then return results_table(el) end
    if el.classes:includes("multi") then return multi_results(el) end
    if el.classes:includes("harris") then return harris_results(el) end
    if el.classes:includes("harris-g80") then return harris_g80(el) end
    if el.classes:includes("harris-racecheck") then return harris_racecheck(el) end
    for _, part in ipairs({ small_sizes, exact_tail }) do
      for name, build in pairs(part.blocks) do
        if el.classes:includes(name) then return build(el) end
      end
    end
    if el.attributes["results"] then
      -- results="steps" (every step) or results="02 03", as a shorter form.
      local v = el.attributes["results"]
      el.attributes["steps"] = (v == "steps" or v == "all") and "all" or v
      return results_table(el)
    end
    if el.classes:includes("results-grid") then return results_grid(el) end
    if el.classes:includes("determinism") then return determinism_table(el) end
    if el.classes:includes("ceiling") then return ceiling_table(el) end
    if el.classes:includes("plot") then return plot(el) end
    if el.classes:includes("pivot") then return pivot(el) end
    if el.classes:includes("csv-table") then return csv_table(el) end
    if el.classes:includes("accuracy") then return accuracy_table(el) end
    if el.classes:includes("report") then return report(el) end
    if el.classes:includes("chart") then return chart(el) end
    if el.attributes["snippet"] then fail("a snippet=\"" .. el.attributes["snippet"] .. "\" block needs include=\"FILE\"") end
  end,
  Span = function(el)
    if el.classes:includes("m") then return measure(el) end
    if el.classes:includes("harris-m") then return harris_measure(el) end
    if el.classes:includes("clusters-m") then return small_sizes.span(el) end
    if el.classes:includes("exact-m") then return exact_tail.span(el) end
  end,
  Div = function(el)
    if el.classes:includes("chapter-list") then return chapter_list() end
    if el.classes:includes("include-markdown") then return include_markdown(el) end
  end,
}

-- ---- links to the answers -------------------------------------------------------
-- A chapter links to an answer as ../answers/FILE, which is right from docs/
-- and from course/. The HTML pages have a page per answer beside them:
-- answers/NAME.cu.html for a program, answers/NAME.html for a Markdown answer.
local function answer_href(target)
  local file, frag = target:match("^%.%./answers/([^#]+)(.*)$")
  if not file or cfg.md then return nil end
  local page = file:match("^(.*)%.md$")
  return "answers/" .. (page or file) .. ".html" .. frag
end

-- ---- course/: the chapters as Markdown ---------------------------------------------
-- A heading's anchor as GitHub makes it: lower case, punctuation dropped,
-- spaces to hyphens, a repeated anchor numbered -1, -2, ...
local function github_slug(text, seen)
  -- Typographic punctuation is dropped too (Pandoc makes ' into ’).
  for _, p in ipairs({ "’", "‘", "“", "”", "–", "—", "…", "×", "·" }) do text = text:gsub(p, "") end
  local slug = text:lower():gsub("[^%w%s%-_\128-\255]", ""):gsub("%s", "-")
  local base, k = slug, 0
  while seen[slug] do k = k + 1; slug = base .. "-" .. k end
  seen[slug] = true
  return slug
end

-- Pandoc's identifier of each heading of a chapter -> GitHub's anchor for it.
local anchor_cache = {}
local function anchors(name)
  if anchor_cache[name] then return anchor_cache[name] end
  local map, seen = {}, {}
  local function headers(blocks)
    for _, b in ipairs(blocks) do
      if b.t == "Header" then map[b.identifier] = github_slug(stringify(b.content), seen)
      elseif b.t == "Div" and b.classes:includes("include-markdown") then
        local text = read_file(b.attributes["file"] or "")
        if text then
          local inc = {}
          for _, x in ipairs(pandoc.read(text, "markdown").blocks) do
            if not (x.t == "Header" and x.level == 1) then inc[#inc + 1] = x end
          end
          headers(inc)
        end
      elseif b.t == "Div" then headers(b.content) end
    end
  end
  headers(chapter_meta(name).doc.blocks)
  anchor_cache[name] = map
  return map
end

local function md_link(target)
  local page, frag = target:match("^([%w_]+)%.html#(.+)$")
  if not page then page = target:match("^([%w_]+)%.html$") end
  if not page then frag = target:match("^#(.+)$") end
  if page == "index" then return "README.md" end
  if page then
    local file = cfg.docs .. "/" .. page .. ".md"
    if not read_file(file) then return target end
    if not frag then return page .. ".md" end
    return page .. ".md#" .. (anchors(page)[frag] or frag)
  end
  if frag then return "#" .. (anchors(cfg.chapter)[frag] or frag) end
  -- Figures live in docs/figures/, beside the chapters' sources.
  if target:match("^figures/") then return "../" .. cfg.docs .. "/" .. target end
  return target
end

-- What Markdown cannot say, said plainly: no divs or spans, exercises as
-- quotes, a superscript as GitHub shows one (2<sup>24</sup>, raw HTML that
-- GitHub keeps), links and images that work from course/.
local md_final = {
  Div = function(el)
    if el.classes:includes("web-only") then return {} end
    if el.classes:includes("exercise") or el.classes:includes("aside") then return pandoc.BlockQuote(el.content) end
    return el.content
  end,
  Span = function(el) return el.content end,
  -- A table's caption above it, as a listing's is and as the HTML pages
  -- show it (GitHub's Markdown has no captions: Pandoc would write it below).
  Table = function(el)
    local cap = el.caption and el.caption.long or {}
    if #cap == 0 then return el end
    local out = {}
    for _, b in ipairs(cap) do
      out[#out + 1] = b.t == "Plain" and pandoc.Para(b.content) or b
    end
    el.caption = { long = {}, short = nil }
    out[#out + 1] = el
    return out
  end,
  Superscript = function(el)
    return pandoc.RawInline("html", "<sup>" .. stringify(el.content) .. "</sup>")
  end,
  Link = function(el) el.target = md_link(el.target); return el end,
  -- A class on a figure's image (.narrow) is for the HTML pages' style; in
  -- GitHub's Markdown it would turn the figure into raw HTML.
  Image = function(el) el.src = md_link(el.src); el.classes = {}; return el end,
}

-- Other files of the repository (../lab/tuning/tune.cu, ../results/...) are
-- reached from the pages through repo-root, the way back from DOCS_OUT.
local html_final = {
  -- Every table in a box of its own that scrolls sideways when the table is
  -- wider than the page, so that the page itself never is.
  Table = function(el)
    return pandoc.Div({ el }, pandoc.Attr("", { "table-scroll" }))
  end,
  Link = function(el)
    local a = answer_href(el.target)
    if a then el.target = a
    elseif el.target:match("^%.%./") then el.target = cfg.repo .. "/" .. el.target:sub(4) end
    return el
  end,
}

-- ---- one page for the whole course ----------------------------------------------
-- Ids get the chapter's name in front ("pitfalls" -> "03_warp_shuffle--pitfalls"),
-- and links between chapter pages become links inside the page.
local function book_links(name)
  local known = {}
  for _, c in ipairs(cfg.chapters) do known[c] = true end
  local function rename(id) return id ~= "" and (name .. "--" .. id) or id end
  local function fix_attr(el)
    if el.identifier and el.identifier ~= "" then el.identifier = rename(el.identifier) end
    return el
  end
  return {
    Header = fix_attr, Div = fix_attr, Span = fix_attr, CodeBlock = fix_attr,
    Link = function(el)
      local t = el.target
      local page, frag = t:match("^([%w_]+)%.html#(.+)$")
      if page and known[page] then el.target = "#" .. page .. "--" .. frag; return el end
      page = t:match("^([%w_]+)%.html$")
      if page and known[page] then el.target = "#" .. page; return el end
      if page == "index" then el.target = "#top"; return el end
      frag = t:match("^#(.+)$")
      if frag then el.target = "#" .. name .. "--" .. frag; return el end
      return el
    end,
  }
end

local function build_course(doc)
  -- What only makes sense on the web pages (a link to this very file) goes.
  doc.blocks = walk(doc.blocks, { Div = function(el)
    if el.classes:includes("web-only") then return {} end
  end })
  local blocks = {}
  for _, b in ipairs(walk(doc.blocks, handlers)) do blocks[#blocks + 1] = b end
  for _, name in ipairs(cfg.chapters) do
    cfg.chapter = name
    local m = chapter_meta(name)
    local body = walk(m.doc.blocks, handlers)
    body = walk(body, book_links(name))
    blocks[#blocks + 1] = pandoc.Header(1, { pandoc.Str(m.title) }, pandoc.Attr(name, { "chapter" }))
    if m.summary_inlines then
      blocks[#blocks + 1] = pandoc.Div({ pandoc.Para(m.summary_inlines) }, pandoc.Attr("", { "chapter-summary" }))
    end
    for _, b in ipairs(body) do blocks[#blocks + 1] = b end
  end
  doc.blocks = blocks
  return doc
end

-- ---- a page for one answer -----------------------------------------------------
-- With chapter = "answer" and answer-file = answers/NAME: the program, whole,
-- or a Markdown answer rendered. The page sits in answers/ beside the chapters.
local function answer_page(doc)
  local path = stringify(doc.meta["answer-file"] or "")
  local text = read_file(path)
  if not text then error("answer: cannot read '" .. path .. "'", 0) end
  local blocks = {}
  if path:match("%.md$") then
    local adoc = pandoc.read(text, "markdown")
    for _, b in ipairs(adoc.blocks) do
      if b.t == "Header" and b.level == 1 and not doc.meta.title then
        doc.meta.title = b.content
      elseif not (b.t == "Header" and b.level == 1) then
        blocks[#blocks + 1] = b
      end
    end
  else
    local lang = path:match("%.sh$") and "bash" or "cpp"
    blocks[1] = pandoc.Para({ pandoc.Str("The answer as a program: "), pandoc.Code(path),
      pandoc.Str(", built by "), pandoc.Code("make answers"), pandoc.Str(" into "),
      pandoc.Code("build/answers/"), pandoc.Str(".") })
    blocks[2] = pandoc.CodeBlock(text:gsub("%s+$", ""), pandoc.Attr("", { lang }))
  end
  if not doc.meta.title then doc.meta.title = pandoc.MetaInlines({ pandoc.Str(path) }) end
  doc.meta.pagetitle = stringify(doc.meta.title)
  doc.meta["home-href"] = "../index.html"
  -- A Markdown answer links to its neighbours in answers/ by name: on the
  -- HTML pages, those are the neighbours' pages.
  doc.blocks = walk(blocks, { Link = function(el)
    local t = el.target
    if not t:match("[/:#]") and read_file("answers/" .. t) then
      el.target = answer_href("../answers/" .. t):gsub("^answers/", "")
    end
    return el
  end })
  return doc
end

-- ---- the filter -------------------------------------------------------------------
function Pandoc(doc)
  local m = doc.meta
  cfg.page = m.chapter and stringify(m.chapter) or "?"
  cfg.chapter = cfg.page
  cfg.chapters = words(m.chapters and stringify(m.chapters) or "")
  cfg.results = words(m["results-dirs"] and stringify(m["results-dirs"]) or "")
  cfg.docs = m["docs-dir"] and stringify(m["docs-dir"]) or "docs"
  cfg.root = m["results-root"] and stringify(m["results-root"]) or "results"
  cfg.multi = words(m["multi-results"] and stringify(m["multi-results"]) or "")
  cfg.harris = words(m["harris-results"] and stringify(m["harris-results"]) or "")
  cfg.clusters = words(m["clusters-results"] and stringify(m["clusters-results"]) or "")
  cfg.md = FORMAT:match("markdown") ~= nil or FORMAT:match("gfm") ~= nil or FORMAT:match("commonmark") ~= nil
  cfg.out = m["course-dir"] and stringify(m["course-dir"]) or "course"
  cfg.repo = m["repo-root"] and stringify(m["repo-root"]) or "../.."

  -- Where this page sits in the course, for the links at its top and bottom.
  local function link(name, title)
    return pandoc.MetaMap({ href = href(name), title = title })
  end
  for i, name in ipairs(cfg.chapters) do
    if name == cfg.page then
      -- (Before the first chapter, the contents: course/'s pages link them
      -- anyway, once is enough.)
      if i > 1 then m.prev = link(cfg.chapters[i - 1], chapter_meta(cfg.chapters[i - 1]).title)
      elseif not cfg.md then m.prev = link("index", "Contents") end
      if i < #cfg.chapters then m.next = link(cfg.chapters[i + 1], chapter_meta(cfg.chapters[i + 1]).title) end
      m.position = string.format("%d of %d", i, #cfg.chapters)
    end
  end
  if cfg.page == "index" and #cfg.chapters > 0 then
    m.next = link(cfg.chapters[1], chapter_meta(cfg.chapters[1]).title)
  end
  m["home-href"] = cfg.page == "course" and "#top" or "index.html"
  m["step-count"] = step_count()
  if m.summary then m["summary-text"] = stringify(m.summary) end
  doc.meta = m

  if cfg.page == "answer" then return answer_page(doc) end
  if cfg.page == "course" then
    doc = build_course(doc)
    doc.blocks = walk(doc.blocks, html_final)
    return doc
  end
  doc.blocks = walk(doc.blocks, handlers)
  doc.blocks = walk(doc.blocks, cfg.md and md_final or html_final)
  return doc
end
