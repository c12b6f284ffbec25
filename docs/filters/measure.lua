-- measure.lua: one number in a sentence: []{.m ...}.
-- A part of course.lua, loaded by it; see there.

-- Columns the harness's CSV (and accuracy.csv) gained with the inputs: a file
-- written before them lacks them, and a number from one is "not measured yet"
-- there rather than a misspelt column.
later_columns = { input = true, sum_hex = true, reference_hex = true, overflow = true,
                        abs_sum = true, rel_error = true }

-- gpu="all" with file=: the number on every GPU that has the file, each
-- named: "1.36× on the H100 80GB HBM3 and 1.35× on the H200".
function on_every_gpu(el)
  local out = {}
  local function words_of(text)
    for w in text:gmatch("%S+") do
      if #out > 0 and out[#out].t ~= "Space" then out[#out + 1] = pandoc.Space() end
      out[#out + 1] = pandoc.Str(w)
    end
  end
  local dirs = {}
  for _, dir in ipairs(gpu_dirs()) do
    if read_csv(dir .. "/" .. el.attributes["file"]) then dirs[#dirs + 1] = dir end
  end
  if #dirs == 0 then return pandoc.Emph({ pandoc.Str("(not measured yet)") }) end
  for k, dir in ipairs(dirs) do
    if k > 1 then
      if k == #dirs then words_of("and") else out[#out] = pandoc.Str(out[#out].text .. ",") end
      out[#out + 1] = pandoc.Space()
    end
    local one = el:clone()
    one.attributes["gpu"] = dir:match("([^/]+)$")
    out[#out + 1] = measure(one)
    local rows = read_csv(dir .. "/compare.csv") or {}
    words_of("on the " .. (rows[1] and rows[1].device or dir):gsub("^NVIDIA ", ""))
  end
  return out
end

-- One measured number, in a sentence.
function measure(el)
  local a = el.attributes
  local v = a["v"] or "gbps"
  local dirs = gpu_dirs()
  local missing = pandoc.Emph({ pandoc.Str("(not measured yet)") })
  if #dirs == 0 then return missing end
  local dir = gpu_dir(a["gpu"])
  -- Any column of any CSV in results/<gpu>/: the first row that matches where=,
  -- or with agg= the median (max, min, count) over every row that matches.
  -- path="lab/harris/harris_g80.csv": a file of the tree, not of results/.
  if a["file"] and a["gpu"] == "all" then return on_every_gpu(el) end
  if a["file"] or a["path"] then
    local rows = a["path"] and read_csv(a["path"]) or any_csv(a["file"], a["gpu"])
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
    -- fmt="clause": a sentence a script wrote (Markdown: 2^24^), which may wrap.
    if a["fmt"] == "clause" then
      return pandoc.Span(text:find("^", 1, true) and markdown(text)[1].content or { pandoc.Str(text) },
                         pandoc.Attr("", { "measured", "clause" }))
    end
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
    elseif a["per"] then
      -- This row's value over another column of it (fmt="pct": in percent).
      local x = num(text) / num(matched[1][a["per"]])
      text = format_value(a["fmt"] == "pct" and 100 * x or x, a["fmt"] or "ratio")
    elseif a["fmt"] and num(text) then
      text = format_value(num(text), a["fmt"])
    end
    -- unit="GB/s" after a space, unit="×" without.
    local unit = a["unit"] and ((a["unit"]:match("^%a") and " " or "") .. a["unit"]) or ""
    return pandoc.Span({ pandoc.Str(text .. unit) }, pandoc.Attr("", { "measured" }))
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
  -- With a size, a row of compare.csv (compare-warm.csv with cache="warm");
  -- without, the step's row of determinism.csv.
  local file = (a["n"] or v == "device" or v == "peak") and
               (a["cache"] == "warm" and "compare-warm.csv" or "compare.csv") or "determinism.csv"
  local rows = read_csv(dir .. "/" .. file)
  if not rows or #rows == 0 then return missing end
  if v == "device" then return pandoc.Str(rows[1].device) end
  if v == "peak" then
    local peak = gpu_peak(dir)
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
