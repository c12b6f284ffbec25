-- lab.lua: the lab's tables: Harris's seven kernels, and the loaders of small_sizes.lua and exact_tail.lua.
-- A part of course.lua, loaded by it; see there.

-- ---- Harris's seven kernels -----------------------------------------------------
-- make harris writes results/<gpu>/harris.csv, harris.md and
-- harris_racecheck.txt; the slides' G80 figures are in lab/harris/harris_g80.csv.
G80_FILE = "lab/harris/harris_g80.csv"

function g80_rows()
  return read_csv(G80_FILE) or fail("harris: cannot read " .. G80_FILE)
end

function harris_missing(what)
  return note("*Not measured yet: `make harris` on a machine with a GPU writes `results/<gpu>/" .. what .. "`.*")
end

-- A results/<gpu>/FILE of make harris, whole, with its headings pushed below
-- the chapter's: its title to level 3, its sections to level 4.
function harris_markdown(dir, file)
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
function harris_results(el)
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

function harris_g80(el)
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
function racecheck_summary(text)
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

function harris_racecheck(el)
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
function harris_label_known(label)
  if label:match("^harris_[1-6]$") or label:match("^harris_7$") or label:match("^harris_7_grid%d+$") then
    return true
  end
  for _, c in ipairs(cfg.chapters) do
    if c == label then return true end
  end
  return false
end

function harris_g80_value(a, v)
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

function harris_row(rows, label, n, l2)
  for _, r in ipairs(rows) do
    if r.label == label and tonumber(r.n) == n and r.l2 == l2 then return r end
  end
  return nil
end

-- Over every row of one label: how many runs were checked, or at which sizes
-- (and L2 states) a run was wrong ("none" if at none).
function harris_checked(rows, label, v)
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
function harris_value(rows, a, v)
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
function harris_measure(el)
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
filter_parts = {
  cfg = cfg, fail = fail, note = note, markdown = markdown, read_csv = read_csv, read_file = read_file,
  parse_size = parse_size, size_md = size_md, time_text = time_text, ratio_text = ratio_text,
  pipe_table = pipe_table, words = words, must_be_empty = must_be_empty, as_chapter = as_chapter,
}
filter_dir = (PANDOC_SCRIPT_FILE or ""):match("^(.-)[^/\\]*$")
small_sizes = dofile(filter_dir .. "small_sizes.lua")(filter_parts)

-- ---- step 10's tail (lab/exact-tail/exact_variants.sh) ------------------------------------
-- In a file of its own too: docs/filters/exact_tail.lua.
exact_tail = dofile(filter_dir .. "exact_tail.lua")(filter_parts)
