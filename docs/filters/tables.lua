-- tables.lua: the tables of measurements: .results, .plot, .pivot, .csv-table.
-- A part of course.lua, loaded by it; see there.

function results_table(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("results") end
  local sizes = words(el.attributes["sizes"] or "2^20 2^24 2^28")
  local blocks = {}
  for _, dir in ipairs(el.attributes["gpu"] and { gpu_dir(el.attributes["gpu"]) } or dirs) do
    local rows = read_csv(dir .. "/compare.csv")
    if not rows or #rows == 0 then
      blocks[#blocks + 1] = note("*`" .. dir .. "/compare.csv` is missing or empty.*")
    else
      local body = {}
      local steps = words(el.attributes["steps"] or fail("results: which steps? steps=\"02 03\""))
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
      append(blocks, pipe_table({ "n", "program", "median time", "vs CUB", "GB/s", "% of peak" },
                           { ":--", ":--", "--:", "--:", "--:", "--:" }, body,
                           gpu_caption(rows, dir, "compare.csv", "Median times, input not in L2,",
                                       "vs CUB: CUB's time ÷ the program's, above 1 is faster than CUB.")))
    end
  end
  return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
end

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
      append(blocks, markdown("![" .. caption .. "](" .. shown .. ")"))
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

-- ```{.pivot}: any CSV of results/<gpu>/ as a table, a row per value of rows=, a
-- column per value of cols= (docs/filters/README.md).
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
      append(blocks, pipe_table(header, align, body, gpu_caption(rows, dir, file, a["caption"] or vcol)))
    end
  end
  if #blocks == 0 then return not_yet(file, a["make"] or "claims") end
  return pandoc.Div(blocks, pandoc.Attr("", fit_classes(a, { "results" })))
end

-- ```{.csv-table}: the rows of any CSV that match where=, those columns, as words.
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
      append(blocks, pipe_table(header, align, body, string.format("Table: %s (`%s/%s`).",
                                                              a["caption"] or file, dir, file)))
    end
  end
  if #blocks == 0 then return not_yet(file, a["make"] or "claims") end
  return pandoc.Div(blocks, pandoc.Attr("", fit_classes(a, { "results", "words" })))
end
