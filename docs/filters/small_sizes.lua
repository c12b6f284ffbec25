--[[ small_sizes.lua: the part of course.lua for the appendix on small sizes.

`make clusters` writes results/<gpu>/clusters.csv (a label, then the
harness's columns), clusters_floor.csv (the read-only kernel at each size,
the empty kernel), latency.csv (the probes) and clusters.md (its tables); the
predictions for the probes, written before they were measured, are in
lab/small-sizes/latency_predictions.csv. course.lua loads this file and hands it its
helpers; it returns the handlers for these elements:

  ```{.clusters}            every results/<gpu>/clusters.md, without its title
  ```{.clusters-pieces n="2^14"}
        each piece of a one-launch sum: what it adds, its predicted cost and
        its measured one (the probe's median minus the one before it), per GPU
  ```{.clusters-table labels="flag_sum|07_cooperative|cub" sizes="2^14 2^16" metric="median"}
        clusters.csv as a table, a row per label, a column per size; metric:
        median (then the floor's row), over_floor (the time / the floor's),
        vs_cub (CUB's time / the label's) or grid
  gpus="first" on any of these blocks: the first GPU's table only.
  []{.clusters-m label="flag_sum" n="2^18" v="median"}
        one number of the first clusters.csv: median, grid, block, floor (the
        read-only kernel's time at n), budget (the most time over the floor
        the targets allow at n), over_floor, vs_cub, speedup (with
        than="LABEL"); without n: worst_floor and worst_cub (the worst over
        the targets' sizes), verdict (in words: both targets met, or where
        not), empty (the empty kernel's time)
  []{.clusters-m probe="c_sync" n="2^14" block="any" v="median"}
        one probe of latency.csv: median (block= and cluster= pick its rows;
        "any", the default for cluster probes, takes the least of them; plain
        probes default to blocks of 512), delta (minus base="PROBE", picked
        by base-block=), grid, block, cluster
  gpu="all" on either span: the value on every GPU, each named.

The targets: within 1.35× the floor's time at every power of two from 2^14
to 2^22, and CUB's time at least 1.3× the program's from 2^14 to 2^20.
]]
return function(h)
  local cfg, fail, note, markdown, read_csv, read_file = h.cfg, h.fail, h.note, h.markdown, h.read_csv, h.read_file
  local parse_size, size_md, time_text, ratio_text = h.parse_size, h.size_md, h.time_text, h.ratio_text
  local TARGET_FLOOR = { lo = 2 ^ 14, hi = 2 ^ 22, most = 1.35 }
  local TARGET_CUB = { lo = 2 ^ 14, hi = 2 ^ 20, least = 1.3 }
  local PREDICTIONS = "lab/small-sizes/latency_predictions.csv"

  local function missing(what)
    return note("*Not measured yet: `make clusters` on a machine with a GPU writes `results/<gpu>/" .. what .. "`.*")
  end
  local function unmeasured() return pandoc.Emph({ pandoc.Str("(not measured yet)") }) end
  -- A value as a span; sizes in it (2^14^) become superscripts.
  -- A clause (the verdict, a sentence made from the files) may wrap; a number not.
  local function measured(text, clause)
    local inlines = text:find("^", 1, true) and markdown(text)[1].content or { pandoc.Str(text) }
    return pandoc.Span(inlines, pandoc.Attr("", clause and { "measured", "clause" } or { "measured" }))
  end

  -- One GPU's files, read once.
  local cache = {}
  local function data(dir)
    if cache[dir] then return cache[dir] end
    local d = { rows = read_csv(dir .. "/clusters.csv") or {}, probes = read_csv(dir .. "/latency.csv") or {},
                floor = {}, by = {} }
    for _, r in ipairs(read_csv(dir .. "/clusters_floor.csv") or {}) do
      if r.kind == "floor" then d.floor[tonumber(r.bytes) // 4] = tonumber(r.median_us) end
      if r.kind == "empty" then d.empty = tonumber(r.median_us) end
    end
    for _, r in ipairs(d.rows) do d.by[r.label .. "@" .. r.n] = r end
    d.device = (d.rows[1] and d.rows[1].device or dir):gsub("^NVIDIA ", "")
    cache[dir] = d
    return d
  end

  -- A label clusters.py writes: a typo stops the build, a label not measured yet does not.
  local function known(label)
    return label:match("^flag_sum") or label:match("^clusters") or label == "07_cooperative" or label == "cub"
           or label == "torch.sum" or label == "cupy.sum"
  end
  local function time_of(d, label, n)
    local r = d.by[label .. "@" .. string.format("%d", n)]
    return r and r.status == "OK" and tonumber(r.median_us) or nil
  end

  -- time / the floor's, CUB's time / time, and the targets missed ("F", "C") at n.
  local function judged(d, label, n)
    local t, cub, floor = time_of(d, label, n), time_of(d, "cub", n), d.floor[n]
    if not t then return nil end
    local over, speed = floor and t / floor, cub and cub / t
    local miss = ""
    if n >= TARGET_FLOOR.lo and n <= TARGET_FLOOR.hi and over and over > TARGET_FLOOR.most then miss = "F" end
    if n >= TARGET_CUB.lo and n <= TARGET_CUB.hi and speed and speed < TARGET_CUB.least then miss = miss .. "C" end
    return over, speed, miss
  end

  local function target_sizes()
    local out, n = {}, TARGET_FLOOR.lo
    while n <= TARGET_FLOOR.hi do out[#out + 1] = n; n = n * 2 end
    return out
  end

  -- The worst ratio over the targets' sizes, or the targets in words.
  local function over_sizes(d, label, v)
    local worst, misses, seen = nil, {}, 0
    for _, n in ipairs(target_sizes()) do
      local over, speed, miss = judged(d, label, n)
      if over or speed then seen = seen + 1 end
      if v == "worst_floor" and over then worst = math.max(worst or 0, over) end
      if v == "worst_cub" and speed and n <= TARGET_CUB.hi then worst = math.min(worst or 1e9, speed) end
      if v == "verdict" then
        local why = {}
        if not over then why[#why + 1] = "not measured" end
        if miss and miss:find("F") then why[#why + 1] = ratio_text(over) .. " the floor's time" end
        if miss and miss:find("C") then why[#why + 1] = ratio_text(speed) .. " CUB's speed" end
        if #why > 0 then misses[#misses + 1] = size_md(n) .. " (" .. table.concat(why, ", ") .. ")" end
      end
    end
    if seen == 0 then return nil end
    if v ~= "verdict" then return worst and ratio_text(worst) end
    if #misses == 0 then return "both targets met at every size from " .. size_md(TARGET_FLOOR.lo) .. " to " ..
                                size_md(TARGET_FLOOR.hi) end
    return "missed at " .. table.concat(misses, ", ")
  end

  -- The probe's rows at n that block= and cluster= pick (a number, or "any").
  local function probe_rows(d, probe, n, block, cluster)
    local out = {}
    for _, r in ipairs(d.probes) do
      if r.probe == probe and tonumber(r.n) == n and (r.check == "ok" or r.check == "-") and
         (block == "any" or r.block == block) and (cluster == "any" or r.cluster == cluster) then
        out[#out + 1] = r
      end
    end
    table.sort(out, function(a, b) return tonumber(a.median_us) < tonumber(b.median_us) end)
    return out[1]
  end
  local function default_block(probe) return (probe:match("^c_") or probe == "empty") and "any" or "512" end

  -- One value for one GPU, as text (nil: not measured).
  local function value(dir, a, v)
    local d = data(dir)
    if a.probe then
      local n = parse_size(a.n or "2^14")
      local r = probe_rows(d, a.probe, n, a.block or default_block(a.probe), a.cluster or "any")
      if not r then return nil end
      if v == "median" then return time_text(tonumber(r.median_us)) end
      if v == "grid" or v == "block" or v == "cluster" then return r[v] end
      if v == "delta" then
        local base = a.base or fail("clusters-m: delta needs base=\"PROBE\"")
        local b = probe_rows(d, base, n, a["base-block"] or default_block(base), a["base-cluster"] or "any")
        if not b then return nil end
        local diff = tonumber(r.median_us) - tonumber(b.median_us)
        return (diff >= 0 and "+" or "−") .. time_text(math.abs(diff))
      end
      fail("clusters-m: unknown probe value v=\"" .. v .. "\"")
    end
    if v == "empty" then return d.empty and time_text(d.empty) end
    local label = a.label or fail("clusters-m: which program? label=\"flag_sum\"")
    if not known(label) then fail("clusters-m: unknown label '" .. label .. "'") end
    if v == "worst_floor" or v == "worst_cub" or v == "verdict" then return over_sizes(d, label, v) end
    local n = parse_size(a.n or "2^20")
    if v == "floor" then return d.floor[n] and time_text(d.floor[n]) end
    if v == "budget" then
      local floor, cub = d.floor[n], time_of(d, "cub", n)
      if not floor then return nil end
      local most = TARGET_FLOOR.most * floor
      if cub and n <= TARGET_CUB.hi then most = math.min(most, cub / TARGET_CUB.least) end
      return time_text(most - floor)
    end
    local r = d.by[label .. "@" .. string.format("%d", n)]
    if not r then return nil end
    if v == "grid" or v == "block" then return r[v] end
    if r.status ~= "OK" then return "WRONG" end
    local t = tonumber(r.median_us)
    if v == "median" then return time_text(t) end
    local over, speed = judged(d, label, n)
    if v == "over_floor" then return over and ratio_text(over) end
    if v == "vs_cub" then return speed and ratio_text(speed) end
    if v == "speedup" then
      local than = a.than or fail("clusters-m: speedup needs than=\"LABEL\"")
      if not known(than) then fail("clusters-m: unknown label '" .. than .. "'") end
      local other = time_of(d, than, n)
      return other and ratio_text(other / t)
    end
    fail("clusters-m: unknown value v=\"" .. v .. "\"")
  end

  local function span(el)
    local a, v = el.attributes, el.attributes.v or "median"
    local dirs = cfg.clusters
    if #dirs == 0 then return unmeasured() end
    local clause = v == "verdict"
    if a.gpu ~= "all" then
      local text = value(dirs[1], a, v)
      return text and measured(text, clause) or unmeasured()
    end
    local out = {}
    for k, dir in ipairs(dirs) do
      if k > 1 then out[#out + 1] = pandoc.Str(k == #dirs and " and " or ", ") end
      local text = value(dir, a, v)
      out[#out + 1] = text and measured(text, clause) or unmeasured()
      out[#out + 1] = pandoc.Str(" on the " .. data(dir).device)
    end
    return out
  end

  -- ---- blocks ---------------------------------------------------------------------
  -- gpus="first": only the first GPU that has the file (the others' are in
  -- their own results/<gpu>/), where a table per GPU would say the same twice.
  local function each_gpu(el, file, build)
    h.must_be_empty(el, el.classes[1])
    local blocks = {}
    for _, dir in ipairs(cfg.clusters) do
      if read_file(dir .. "/" .. file) and not (el.attributes.gpus == "first" and #blocks > 0) then
        for _, b in ipairs(build(dir, data(dir))) do blocks[#blocks + 1] = b end
      end
    end
    if #blocks == 0 then return missing(file) end
    return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
  end

  local function clusters_md(el)
    return each_gpu(el, "clusters.md", function(dir)
      local out = {}
      for _, b in ipairs(pandoc.read(read_file(dir .. "/clusters.md"), "markdown").blocks) do
        if b.t == "Header" then b.level = b.level == 1 and 3 or 4; b.identifier = "" end
        out[#out + 1] = b
      end
      out = h.as_chapter(out)      -- 2^14 as a power, as the chapters write it
      out[#out + 1] = pandoc.Para({ pandoc.Str("(From "), pandoc.Code(dir .. "/clusters.md"), pandoc.Str(".)") })
      return out
    end)
  end

  local function pieces(el)
    local n = parse_size(el.attributes.n or "2^14")
    local predicted = read_csv(PREDICTIONS) or fail("clusters-pieces: cannot read " .. PREDICTIONS)
    return each_gpu(el, "latency.csv", function(dir, d)
      local body = {}
      for _, p in ipairs(predicted) do
        local a = { probe = p.probe, n = tostring(n), block = p.block, base = p.base, ["base-block"] = p.base_block }
        local shape = probe_rows(d, p.probe, n, p.block, "any")
        body[#body + 1] = { "`" .. p.probe .. "`", p.adds, "`" .. p.base .. "`",
                            (string.format("%+.1f to %+.1f µs", tonumber(p.lo), tonumber(p.hi)):gsub("%-", "−")),
                            value(dir, a, "delta") or "–",
                            shape and (shape.cluster ~= "1" and shape.cluster .. " × " or "") .. shape.block or "–" }
      end
      return h.pipe_table({ "probe", "what it adds", "over", "predicted", "measured", "blocks" },
                          { ":--", ":--", ":--", "--:", "--:", "--:" }, body,
                          string.format("Table: The pieces of a one-launch sum at n = %s on %s: each probe's median " ..
                                        "time minus the one before it (`%s/latency.csv`), and what we predicted " ..
                                        "before measuring (`%s`). Blocks: threads per block (and blocks per " ..
                                        "cluster) of the probe's row.", size_md(n), d.device, dir, PREDICTIONS))
    end)
  end

  local function clusters_table(el)
    local labels = {}
    for l in (el.attributes.labels or "flag_sum|07_cooperative|cub"):gmatch("[^|]+") do
      l = l:match("^%s*(.-)%s*$")
      if not known(l) then fail("clusters-table: unknown label '" .. l .. "'") end
      labels[#labels + 1] = l
    end
    local metric = el.attributes.metric or "median"
    local sizes = h.words(el.attributes.sizes or "2^10 2^12 2^14 2^16 2^18 2^20 2^22 2^24")
    local what = { median = "Median time", over_floor = "Time over the floor's (the read-only kernel's)",
                   vs_cub = "CUB's time over the program's (above 1: faster than CUB)",
                   grid = "Blocks launched" }
    if not what[metric] then fail("clusters-table: metric must be median, over_floor, vs_cub or grid") end
    return each_gpu(el, "clusters.csv", function(dir, d)
      local header, align, body = { "program" }, { ":--" }, {}
      for _, s in ipairs(sizes) do header[#header + 1] = size_md(parse_size(s)); align[#align + 1] = "--:" end
      for _, l in ipairs(labels) do
        local line = { "`" .. l .. "`" }
        for _, s in ipairs(sizes) do
          line[#line + 1] = value(dir, { label = l, n = s }, metric) or "–"
        end
        body[#body + 1] = line
      end
      if metric == "median" then
        local line = { "*floor: read-only kernel*" }
        for _, s in ipairs(sizes) do line[#line + 1] = value(dir, { label = "cub", n = s }, "floor") or "–" end
        body[#body + 1] = line
      end
      return h.pipe_table(header, align, body, string.format("Table: %s, input not in L2, on %s (`%s/clusters.csv`).",
                                                               what[metric], d.device, dir))
    end)
  end

  return {
    span = span,
    blocks = { clusters = clusters_md, ["clusters-pieces"] = pieces, ["clusters-table"] = clusters_table },
  }
end
