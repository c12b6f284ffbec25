-- tables.lua: the tables of measurements: .results, .results-grid, .determinism, .ceiling, .plot, .pivot, .csv-table, .accuracy.
-- A part of course.lua, loaded by it; see there.

function wanted_steps(el, rows)
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

function results_table(el)
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

metrics = {
  gbps = { "GB/s", function(r) return gbps_text(row_gbps(r)) end },
  median = { "median time", function(r) return time_text(tonumber(r.median_us)) end },
  pct = { "% of nominal peak", function(r) return pct_text(tonumber(r.pct_peak)) end },
}

-- The floor at each n from floor.csv: the read-only kernel's median time
-- (kind "floor", or "floor_warm"), and the empty kernel's.
function floor_times(dir, warm)
  local at, empty = {}, nil
  for _, r in ipairs(read_csv(dir .. "/floor.csv") or {}) do
    if r.kind == (warm and "floor_warm" or "floor") then at[tonumber(r.bytes) // 4] = tonumber(r.median_us) end
    if r.kind == "empty" then empty = tonumber(r.median_us) end
  end
  return at, empty
end

function floor_rows(dir, warm, sizes, which, body)
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

function results_grid(el)
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

function determinism_table(el)
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

function ceiling_table(el)
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
function plot(el)
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
function not_yet(file, target)
  return note("*No `results/<gpu>/" .. file .. "` yet: `make " .. target ..
              "` on a machine with a GPU writes it.*")
end

-- The distinct values of one column, in order of first appearance (numbers
-- sorted, if every value is one).
function distinct(rows, col)
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
function fit_classes(a, classes)
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
function pivot(el)
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
function csv_table(el)
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
function float_kind(hex, text)
  local bits = hex and hex ~= "" and tonumber(hex)
  if bits then return bits_kind(bits) end
  text = (text or ""):lower()
  if text:find("nan") then return "NaN" end
  if text == "inf" or text == "+inf" then return "+inf" end
  if text == "-inf" then return "−inf" end
  return "finite"
end

function accuracy_rows(dir, input)
  local out = {}
  for _, r in ipairs(read_csv(dir .. "/accuracy.csv") or {}) do
    if row_input(r) == input then out[#out + 1] = r end
  end
  return out
end

function accuracy_medians(rows, el, input, dir)
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

function accuracy_seeds(rows, el, input, dir)
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

function accuracy_table(el)
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
