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
