-- numbers.lua: reading results/<gpu>/*.csv and writing its numbers (times, GB/s, ratios, sizes).
-- A part of course.lua, loaded by it; see there.

-- ---- measured results ---------------------------------------------------------
-- One CSV record per line (RFC 4180 quoting; no field spans lines here).
function csv_fields(line)
  local fields, i = {}, 1
  while i <= #line + 1 do
    local v
    if line:sub(i, i) == '"' then        -- to the quote that no second quote follows ("" is a quote)
      local q = i
      repeat q = line:find('"', q + (q == i and 1 or 2), true) or #line + 1 until line:sub(q + 1, q + 1) ~= '"'
      v, i = line:sub(i + 1, q - 1):gsub('""', '"'), q + 2
    else
      local c = line:find(",", i, true) or #line + 1
      v, i = line:sub(i, c - 1), c + 1
    end
    fields[#fields + 1] = v
  end
  return fields
end

csv_cache = {}
function read_csv(path)
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
function parse_size(s)
  local b, e = s:match("^(%d+)%^(%d+)$")
  if b then return math.floor(tonumber(b) ^ tonumber(e) + 0.5) end
  local v = tonumber(s)
  if not v then fail("results: cannot read the size '" .. s .. "' (write 2^20 or 1048576)") end
  return v
end

-- 16777216 -> "2^24^" (a superscript: 2<sup>24</sup> on the pages and in course/); other n as digits.
function size_md(n)
  local e = math.log(n, 2)
  if math.abs(e - math.floor(e + 0.5)) < 1e-9 then
    return string.format("2^%d^", math.floor(e + 0.5))
  end
  return tostring(math.floor(n))
end

-- Bytes in binary units: 2^20 floats are 4 MiB.
function bytes_text(b)
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local u = 1
  while b >= 1024 and u < #units do b = b / 1024; u = u + 1 end
  if u == 1 or b == math.floor(b) then return string.format("%d %s", math.floor(b), units[u]) end
  return string.format("%.1f %s", b, units[u])
end

function time_text(us)
  if us < 100 then return string.format("%.2f µs", us) end
  if us < 1000 then return string.format("%.1f µs", us) end
  if us < 1e5 then return string.format("%.2f ms", us / 1000) end
  if us < 1e6 then return string.format("%.1f ms", us / 1000) end
  return string.format("%.2f s", us / 1e6)
end

function gbps_text(g)
  if g < 10 then return string.format("%.2f", g) end
  if g < 100 then return string.format("%.1f", g) end
  return string.format("%.0f", g)
end

function pct_text(p)
  return string.format(p < 1 and "%.2f%%" or "%.1f%%", p)
end

-- Ratios, one form at every size: 1.23×, 0.74×, 0.062×, 0.00074× (two
-- significant digits below 0.1), 12.3×, 1351×.
function ratio_text(r)
  if r < 0.1 then return string.format("%.2g×", r) end
  if r >= 100 then return string.format("%.0f×", r) end
  if r >= 10 then return string.format("%.1f×", r) end
  return string.format("%.2f×", r)
end

function gpu_dirs() return cfg.results end
-- results/<gpu>/ as gpu= names it (else the first); its note on the tree it measured (file TREE).
function gpu_dir(gpu)
  for _, d in ipairs(gpu_dirs()) do if d:match("([^/]+)$") == gpu then return d end end
  return gpu_dirs()[1]
end
function tree_note(dir) local t = read_file(dir .. "/TREE"); return t and (" (" .. t:gsub("%s+$", "") .. ")") or "" end

-- ---- any CSV of results/<gpu>/ --------------------------------------------------
-- The rows of FILE in the first results/<gpu>/ that has it (or in the one
-- named by gpu=), and that directory.
function any_csv(file, gpu)
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
function row_input(r)
  return (r.input == nil or r.input == "") and "uniform" or r.input
end

-- The rows that match where="col=value,col>number,col<number": a column
-- equal to a value (input= matches a file without that column as uniform),
-- or above or below a number. With equal_only, only the "=" conditions
-- count: the rows a count is taken over.
function matching_rows(rows, where, equal_only)
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
function num(text)
  if text == "inf" then return math.huge end
  if text == "-inf" then return -math.huge end
  return tonumber(text)
end

-- What a float's bits (sum_hex, reference_hex) hold: "finite", "NaN",
-- "+inf" or "−inf".
function bits_kind(bits)
  bits = math.floor(bits)
  if bits & 0x7f800000 ~= 0x7f800000 then return "finite" end
  if bits & 0x7fffff ~= 0 then return "NaN" end
  return bits & 0x80000000 ~= 0 and "−inf" or "+inf"
end

-- median, max, min, mean or count of a list of numbers (nils left out).
function aggregate(values, how)
  local v = {}
  for _, x in pairs(values) do if x then v[#v + 1] = x end end
  if how == "count" then return #v end
  if how == "sum" then local t = 0; for _, x in ipairs(v) do t = t + x end; return t end
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
function sci_text(x)
  local m, sign, e = string.format("%.1e", x):match("^(.-)e([+-])0*(%d+)$")
  return m .. "e" .. (sign == "-" and "-" or "") .. e
end

-- An error in ulps: a whole number as it is, else two digits below 10 and
-- one decimal below 100; whole numbers up to a million, then two digits and
-- a power of ten (1.7e7).
function ulp_text(u)
  if u == math.huge then return "inf" end
  if u < 1e6 and u == math.floor(u) then return string.format("%.0f", u) end
  if u < 10 then return string.format("%.2g", u) end
  if u < 100 then return string.format("%.1f", u) end
  if u < 1e6 then return string.format("%.0f", u) end
  return sci_text(u)
end

-- A relative error (|error| / sum of magnitudes): 0, inf, or 6.1e-8.
function rel_text(r)
  if r == math.huge then return "inf" end
  if r == 0 then return "0" end
  return sci_text(r)
end

-- A number as fmt says: time, gbps, pct, ratio, ulp, size, bytes, millions ("3.73 M"), or a printf format.
function format_value(x, fmt)
  if x == nil then return "–" end
  local named = { time = time_text, gbps = gbps_text, pct = pct_text, ratio = ratio_text, ulp = ulp_text,
                  rel = rel_text, kind = bits_kind, size = size_md, bytes = bytes_text,
                  millions = function(v) return string.format("%.2f M", v / 1e6) end }
  if named[fmt] then return named[fmt](x) end
  return string.format(fmt, x)
end

function nothing_measured(what)
  return note("*No measured " .. what .. " in `results/` yet: `make compare` on a machine with a GPU writes them.*")
end

-- Is this row's program the one asked for? "03" names 03_warp_shuffle; "cub"
-- names CUB's default only, not cub_gpu_to_gpu, which is named in full.
function is_program(step, prog)
  step = step or ""
  return step == prog or (prog ~= "cub" and step:sub(1, #prog + 1) == prog .. "_")
end

-- The row of compare.csv for a program ("03", "03_warp_shuffle", "cub") and n.
function find_row(rows, prog, n)
  for _, r in ipairs(rows) do
    if is_program(r.step, prog) and tonumber(r.n) == n then return r end
  end
  return nil
end

-- The programs in compare.csv, in order of first appearance.
function programs(rows)
  local seen, list = {}, {}
  for _, r in ipairs(rows) do
    if not seen[r.step] then seen[r.step] = true; list[#list + 1] = r.step end
  end
  return list
end

-- A program's name in a table: its id in the CSVs, but for CUB's calls,
-- named as the text names them.
display_names = { cub = "CUB", cub_segmented = "CUB offsets", cub_segmented_fixed = "CUB fixed-size" }
function short(step)
  return display_names[step] or step
end

-- A program the course knows, a step with a chapter ("08", "08_fixed_order")
-- or a CUB baseline: without rows it is not measured yet, not misspelt.
function known_program(prog)
  if prog == "cub" or prog:sub(1, 4) == "cub_" then return true end
  for _, c in ipairs(cfg.chapters) do
    if c == prog or c:sub(1, #prog + 1) == prog .. "_" then return true end
  end
  return false
end

-- A program's name where it has no rows yet: the chapter's ("10" -> "10_exact").
function unmeasured_name(prog)
  for _, c in ipairs(cfg.chapters) do
    if c == prog or c:sub(1, #prog + 1) == prog .. "_" then return c end
  end
  return prog
end

-- A row's GB/s: bytes / median time, which has more digits than its gbps
-- column (4096 bytes in 7.392 µs are 0.55 GB/s; the column says 0.6).
function row_gbps(r)
  local b, us = tonumber(r.bytes), tonumber(r.median_us)
  if b and us and b > 0 and us > 0 then return b / us / 1e3 end
  return tonumber(r.gbps)
end

-- One GPU's nominal peak, the same in every table of it: bench/peak.py's, read
-- back from all of compare.csv's rows, which bench/compare_tables.py writes to peak.csv.
function gpu_peak(dir)
  local rows = read_csv(dir .. "/peak.csv")
  return rows and rows[1] and tonumber(rows[1].nominal_peak_gbps)
end

function gpu_caption(rows, dir, file, what, extra)
  local dev = rows[1] and rows[1].device or dir
  local peak = gpu_peak(dir)
  return string.format("Table: %s on %s%s (`%s/%s`)%s.%s", what, dev,
    peak and string.format(", nominal peak %s GB/s", gbps_text(peak)) or "", dir, file, tree_note(dir),
    extra and (" " .. extra) or "")
end

function pipe_table(header, align, rows, caption)
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
