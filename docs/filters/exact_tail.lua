--[[ exact_tail.lua: the part of course.lua for the end of step 10's kernel.

`bash lab/exact-tail/exact_variants.sh results/<gpu>/exact_tail.csv` writes that file: a label,
then the harness's columns. Two rounds of each variant of step 10 (a copy of
the step with one piece of its tail changed; "base" is the copy unchanged) at
2^20 to 2^26 (the streaming's at 2^25 too), then two rounds of step 07 beside step 10 (labels step07,
step10, step10_no_fp64 and step10_block1024; step07_wide and step10_wide on
--input wide) at 2^14 to 2^28. A label's time
at n is the median, over its rounds, of each round's median time. The
predictions written before any of it ran are in
lab/exact-tail/exact_tail_predictions.csv. course.lua loads this file and hands it its
helpers; it returns the handlers for these elements:

  ```{.exact-tail sizes="2^14 2^16 2^18 2^20 2^22 2^24 2^26 2^28"}
        step 07 and step 10's labels, a row each, their times at those sizes,
        then each step 10 label's time over step 07's (on the same input)
  ```{.exact-tail-pieces sizes="2^20 2^22 2^24 2^26"}
        each variant: its piece, the prediction that names it, and at each
        size what the piece adds to the time: the base's time minus the
        variant's where the variant leaves the piece out, the variant's minus
        the base's where it adds it (ADDS below); labels="A B ...": those
        labels instead of the tail's (the streaming's, STREAM below)
  ```{.exact-rounds}
        every variant in one table, round by round (ROUNDS below): the change
        it measures, what that change was predicted to save, and what it
        saved on each GPU, from the least to the most over the sizes measured
  []{.exact-m label="step10" n="2^24"}
        one number of the first exact_tail.csv; v: median (the default),
        against (with prediction="ID": a variant's cost at each size below,
        within or above the prediction's range, in words),
        ratio (the label's time over than="LABEL"'s), saves (than's time
        minus the label's), cost (a variant's piece: what it adds to the
        time, as in the pieces' table), rounds; saves and cost with n="all":
        the least to the most over the sizes measured; without a label:
        verdict (step 10 against the targets, in words), spread (with n:
        the widest two rounds of any one label at n), device; with
        prediction="ID" (a row of the predictions): range (its low to its
        high)
  gpu="all" on the span: the value on every GPU, each named.

The targets: step 10's time at most 1.03 times step 07's at every power of
two from 2^24 to 2^28, and at most 1.15 times at 2^20.
]]
return function(h)
  local cfg, fail, note, markdown, read_csv = h.cfg, h.fail, h.note, h.markdown, h.read_csv
  local parse_size, size_md, time_text, ratio_text = h.parse_size, h.size_md, h.time_text, h.ratio_text
  local FILE, PREDICTIONS = "exact_tail.csv", "lab/exact-tail/exact_tail_predictions.csv"
  local TARGETS = { { lo = 2 ^ 24, hi = 2 ^ 28, most = 1.03 }, { lo = 2 ^ 20, hi = 2 ^ 20, most = 1.15 } }
  local STEPS = { "step07", "step10", "step10_no_fp64", "step10_block1024", "step07_wide", "step10_wide" }
  local VARIANTS = { "base", "ticket", "before", "thread0", "fences", "no_round", "carry_always", "no_flags", "no_fetch",
                     "carveout_max", "shuffle_sum", "copies2",
                     "window_round", "group16", "group16_1024", "prefetch" }
  -- The streaming's probes and reorganisations (a pieces table with labels="...").
  local STREAM = { "loads_only", "skip_last", "no_convert", "float_hi", "split", "spread", "chunks", "pipe", "async",
                   "bits1", "bits2", "bits4", "dynamic1", "dynamic4", "tree", "adds3", "window",
                   "compact", "bulk", "ahead1", "ahead2", "warm", "fit", "roll" }
  -- What each variant's piece is, and which variants add it rather than leave it out.
  local WHAT = {
    before = "the tail before the first round of changes (its time over `ticket`'s)",
    thread0 = "thread 0 doing warp 0's work, with a fence on each side of the ticket, as before (its time over `ticket`'s)",
    ticket = "the blocks meeting by a ticket, as before: an acquire-release add after the word adds, then an exchange of each word (its time over the base's)",
    fences = "in `ticket`: a fence on each side of a plain ticket instead of the acquire-release ticket (added, against `ticket`)",
    no_round = "the rounding (left out: the last block stores digit 0's bits)",
    carry_always = "a carry by every thread before the block sums its digits (added)",
    no_flags = "the flags' reduction (left out: warp 0 sets the flag words the input needs)",
    no_fetch = "in `ticket`: the last block taking the grid's words back (left out: it rounds its own; against `ticket`)",
    carveout_max = "asking for the largest shared-memory carveout (added)",
    shuffle_sum = "the block's digit sums by 64-bit shuffles (cg::reduce) instead of three 32-bit REDUX adds (added)",
    window_round = "the rounding bit by bit (the window's top bit, 24 kept, the rest against half) instead of by the conversion (added)",
    group16 = "groups of 16 at 40 registers, blocks of 512: 1536 threads a multiprocessor instead of 1024 (its time over the base's)",
    group16_1024 = "groups of 16 at the step's occupancy (its time over the base's)",
    prefetch = "an L2 prefetch of each thread's next group before it adds the one it has (added)",
    copies2 = "in `ticket`: the grid's words in two copies, odd blocks adding to the second (added, against `ticket`)",
    loads_only = "the group's arithmetic (left out: its bits added as integers; the loads and the launch alone)",
    skip_last = "each thread's last group's arithmetic (left out, as in `loads_only`)",
    no_convert = "the conversions to double (left out: the group summed in a float)",
    float_hi = "the largest magnitude by `fmaxf` and a test of the sum, as before (its time over the base's)",
    split = "the sum in two float halves, no conversion, four adds an element (its time over the base's)",
    spread = "the warps' ranks spread over the blocks, the last round on every multiprocessor (its time over the base's)",
    chunks = "4 KB a warp, loads at constant offsets from one address (its time over the base's)",
    pipe = "the next group's loads issued before the add into the digits (its time over the base's)",
    async = "the next group copied into shared memory (`cp.async`) during the add (its time over the base's)",
    bits1 = "one element a vector made a double from its bits by integer instructions, not converted (its time over the base's)",
    bits2 = "two elements a vector so (its time over the base's)",
    bits4 = "every element so: no conversions at all (its time over the base's)",
    dynamic1 = "4 KB chunks taken one at a time from a counter (its time over the base's)",
    dynamic4 = "4 KB chunks taken four at a time from a counter (its time over the base's)",
    tree = "the group's two ends and its sum as trees over the vectors instead of chains (its time over the base's)",
    adds3 = "the add into the digits as three `+=`, as before: each read waits for the write before it (its time over the base's)",
    window = "three digits held in registers, written to shared memory when a group needs others (its time over the base's)",
    compact = "the slow paths as one loop, not unrolled: 19 KB of code instead of 44 KB (its time over the base's)",
    bulk = "each warp's next 4 KB copied into its shared-memory buffer by the copy engine (`cp.async.bulk`) during the add (its time over the base's)",
    ahead1 = "4 KB chunks, each warp's next one asked of L2 by one bulk prefetch (its time over the base's)",
    ahead2 = "the same, two chunks ahead (its time over the base's)",
    warm = "the ending run once on zero digits at the start, its instructions cached (its time over the base's)",
    fit = "every block that fits, as before, instead of whole rounds: a last, partial round (its time over the base's)",
    roll = "each vector of the next group loaded as soon as this group's vector is added: the next group in flight during the add (its time over the base's)",
  }
  local ADDS = { ticket = true, roll = true, before = true, thread0 = true, fences = true, carry_always = true, carveout_max = true,
                 shuffle_sum = true, window_round = true, copies2 = true,
                 group16 = true, group16_1024 = true, prefetch = true,
                 float_hi = true, split = true, spread = true, chunks = true, pipe = true, async = true,
                 bits1 = true, bits2 = true, bits4 = true, dynamic1 = true, dynamic4 = true, tree = true,
                 adds3 = true, window = true, compact = true, bulk = true, ahead1 = true, ahead2 = true,
                 warm = true, fit = true }

  -- The rounds, in order: each variant, its round, the change it measures, and
  -- how that change's saving follows from the variant's cost (cost above): +1
  -- where the variant leaves a piece out (a probe) or puts back the way the
  -- step had before the change (the change saves what the variant costs), -1
  -- where the variant is the change tried (it saves minus what it costs).
  local ROUNDS = {
    { "before", 1, 1, "rounds 1 and 2 together (against `ticket`)" },
    { "carry_always", 1, 1, "no carry by every thread where no block sum can overflow" },
    { "no_round", 1, 1, "without the rounding (a probe)" },
    { "no_flags", 1, 1, "without the flags' reduction (a probe)" },
    { "no_fetch", 1, 1, "without taking the grid's words back (a probe, against `ticket`)" },
    { "carveout_max", 1, -1, "the largest shared-memory carveout" },
    { "thread0", 2, 1, "warp 0 for the tail instead of thread 0 (against `ticket`)" },
    { "fences", 2, 1, "an acquire-release ticket instead of two fences (against `ticket`)" },
    { "shuffle_sum", 2, 1, "the block's digit sums by REDUX, not `cg::reduce`" },
    { "window_round", 2, 1, "the rounding by one conversion, not bit by bit" },
    { "copies2", 2, -1, "two copies of the grid's words (against `ticket`)" },
    { "group16", 2, -1, "groups of 16, 1536 threads a multiprocessor" },
    { "group16_1024", 2, -1, "groups of 16 at the step's occupancy" },
    { "prefetch", 2, -1, "an L2 prefetch of each thread's next group" },
    { "loads_only", 3, 1, "without the groups' arithmetic (a probe)" },
    { "skip_last", 3, 1, "without each thread's last group (a probe)" },
    { "no_convert", 3, 1, "without the conversions to double (a probe)" },
    { "float_hi", 3, 1, "the exponent test from the bits, not `fmaxf`" },
    { "split", 3, -1, "the sum in two float halves, no conversion" },
    { "spread", 3, -1, "the last round spread over every multiprocessor" },
    { "chunks", 3, -1, "4 KB a warp, loads at constant offsets" },
    { "pipe", 3, -1, "the next group's loads before the add into the digits" },
    { "async", 3, -1, "the next group copied by `cp.async` during the add" },
    { "bits1", 4, -1, "a quarter of the conversions by integer instructions" },
    { "bits2", 4, -1, "half of the conversions so" },
    { "bits4", 4, -1, "all of the conversions so" },
    { "dynamic1", 4, -1, "4 KB chunks taken from a counter, one at a time" },
    { "dynamic4", 4, -1, "the same, four at a time" },
    { "tree", 4, -1, "the group's ends and sum as trees, not chains" },
    { "adds3", 4, 1, "`acc_add` reading its three digits before writing any" },
    { "window", 4, -1, "three digits held in registers" },
    { "bulk", 5, -1, "each warp's next 4 KB copied by `cp.async.bulk`" },
    { "ahead1", 5, -1, "an L2 bulk prefetch of the warp's next 4 KB" },
    { "ahead2", 5, -1, "the same, two chunks ahead" },
    { "warm", 5, -1, "the ending run once at the start, its code cached" },
    { "compact", 5, -1, "the slow paths as one loop: 19 KB of code, not 44 KB" },
    { "fit", 5, 1, "whole rounds in the grid, not every block that fits" },
    { "roll", 6, -1, "the next group's loads rolled into this one's adds" },
    { "ticket", 6, 1, "grid words that count their blocks instead of a ticket" },
  }

  local function missing()
    return note("*Not measured yet: `bash lab/exact-tail/exact_variants.sh results/<gpu>/" .. FILE ..
                "` on a machine with a GPU writes it.*")
  end
  local function unmeasured() return pandoc.Emph({ pandoc.Str("(not measured yet)") }) end
  -- A value as a span; sizes in it (2^14^) become superscripts. A clause (a
  -- sentence made from the files, or a range) may wrap; a single number not.
  local function measured(text, clause)
    local inlines = text:find("^", 1, true) and markdown(text)[1].content or { pandoc.Str(text) }
    return pandoc.Span(inlines, pandoc.Attr("", clause and { "measured", "clause" } or { "measured" }))
  end
  local CLAUSES = { verdict = true, against = true }
  local function known(label)
    for _, l in ipairs(STEPS) do if l == label then return true end end
    for _, l in ipairs(VARIANTS) do if l == label then return true end end
    for _, l in ipairs(STREAM) do if l == label then return true end end
    return false
  end

  -- One GPU's file, read once: each label's time at each n (the median of
  -- its rounds' medians) and how many rounds it had. A variant that leaves a
  -- piece out may give a wrong sum, so only its time counts; the steps' rows
  -- count only where they were right.
  local cache = {}
  local function data(dir)
    if cache[dir] ~= nil then return cache[dir] end
    local rows = read_csv(dir .. "/" .. FILE)
    if not rows or #rows == 0 then cache[dir] = false; return false end
    local times, d = {}, { time = {}, rounds = {}, spread = {}, sizes = {},
                           device = (rows[1].device or dir):gsub("^NVIDIA ", "") }
    for _, r in ipairs(rows) do
      if r.status == "OK" or not r.label:match("^step") then
        local key = r.label .. "@" .. r.n
        if not times[key] then
          times[key] = {}
          d.sizes[r.label] = d.sizes[r.label] or {}
          table.insert(d.sizes[r.label], tonumber(r.n))
        end
        table.insert(times[key], tonumber(r.median_us))
      end
    end
    for key, v in pairs(times) do
      table.sort(v)
      local mid = (#v + 1) // 2
      d.time[key] = #v % 2 == 1 and v[mid] or (v[mid] + v[mid + 1]) / 2
      d.rounds[key] = #v
      local n = tonumber(key:match("@(%d+)$"))
      d.spread[n] = math.max(d.spread[n] or 0, v[#v] - v[1])     -- the widest two rounds of a label at n
    end
    cache[dir] = d
    return d
  end
  local function time_of(d, label, n) return d.time[label .. "@" .. string.format("%d", n)] end

  local function signed_time(us)
    return (us < 0 and "−" or "") .. time_text(math.abs(us))
  end

  -- Step 10 against the targets, in words: where it is within them and where not.
  local function verdict(d)
    local met, missed = {}, {}
    for _, t in ipairs(TARGETS) do
      local n = t.lo
      while n <= t.hi do
        local a, b = time_of(d, "step10", n), time_of(d, "step07", n)
        if a and b then
          local text = size_md(n) .. " (" .. ratio_text(a / b) .. ")"
          if a / b <= t.most then met[#met + 1] = text else missed[#missed + 1] = text end
        end
        n = n * 2
      end
    end
    if #met + #missed == 0 then return nil end
    local function list(l)
      if #l == 1 then return l[1] end
      return table.concat(l, ", ", 1, #l - 1) .. " and " .. l[#l]
    end
    if #missed == 0 then return "within the targets at every size they name: " .. list(met) end
    if #met == 0 then return "outside the targets at every size they name: " .. list(missed) end
    return "within the targets at " .. list(met) .. "; outside them at " .. list(missed)
  end

  -- The predictions, each id once: a chapter names a prediction by its id,
  -- and a second row with the same id would be shown in its place.
  local function predictions(who)
    local rows = read_csv(PREDICTIONS) or fail(who .. ": cannot read " .. PREDICTIONS)
    local seen = {}
    for _, p in ipairs(rows) do
      if seen[p.id] then fail(who .. ": " .. PREDICTIONS .. " has the id '" .. p.id .. "' twice") end
      seen[p.id] = true
    end
    return rows
  end
  local function prediction(id)
    for _, p in ipairs(predictions("exact-m")) do
      if p.id == id then return p end
    end
    fail("exact-m: " .. PREDICTIONS .. " has no prediction '" .. id .. "'")
  end
  local function range_text(p)
    return string.format("%s to %s µs", p.low_us, p.high_us)
  end

  -- What a variant's piece costs at n: the time it adds. A variant that
  -- leaves a piece out costs the base's time minus its own; one that adds
  -- something (or is the old tail), its own time minus the base's.
  -- Pieces of the ticket are timed against the copy that has it.
  local BASE = { fences = "ticket", no_fetch = "ticket", copies2 = "ticket", before = "ticket", thread0 = "ticket" }
  local function cost(d, label, n)
    local t, b = time_of(d, label, n), time_of(d, BASE[label] or "base", n)
    if not (t and b) then return nil end
    return ADDS[label] and t - b or b - t
  end

  -- One value for one GPU, as text (nil: not measured).
  local function value(dir, a, v)
    local d = data(dir)
    if not d then return nil end
    if v == "verdict" then return verdict(d) end
    if v == "device" then return d.device end
    if v == "spread" then
      local n = parse_size(a.n or fail("exact-m: spread needs n=\"2^20\""))
      return d.spread[n] and time_text(d.spread[n])
    end
    local label = a.label or fail("exact-m: which program? label=\"step10\"")
    if not known(label) then fail("exact-m: unknown label '" .. label .. "'") end
    local than = a.than
    if than and not known(than) then fail("exact-m: unknown label '" .. than .. "'") end
    if v == "against" then
      local p = prediction(a.prediction or fail("exact-m: against needs prediction=\"ID\""))
      local lo, hi, by = tonumber(p.low_us), tonumber(p.high_us), { below = {}, within = {}, above = {} }
      local order, seen = {}, 0
      for _, n in ipairs(d.sizes[label] or {}) do
        local c = cost(d, label, n)
        if c then
          local where = c < lo and "below" or c > hi and "above" or "within"
          if #by[where] == 0 then order[#order + 1] = where end
          table.insert(by[where], size_md(n))
          seen = seen + 1
        end
      end
      if seen == 0 then return nil end
      if #order == 1 then return order[1] .. " the prediction at every size measured" end
      local parts = {}
      for _, where in ipairs(order) do parts[#parts + 1] = where .. " it at " .. table.concat(by[where], ", ") end
      return table.concat(parts, "; ")
    end
    if (v == "saves" or v == "cost") and a.n == "all" then
      if v == "saves" and not than then fail("exact-m: saves needs than=\"LABEL\"") end
      local lo, hi
      for _, n in ipairs(d.sizes[label] or {}) do
        local x
        if v == "cost" then x = cost(d, label, n)
        else
          local t, o = time_of(d, label, n), time_of(d, than, n)
          x = t and o and o - t
        end
        if x then lo, hi = math.min(lo or 1e300, x), math.max(hi or -1e300, x) end
      end
      if not lo then return nil end
      return signed_time(lo) .. " to " .. signed_time(hi)
    end
    local n = parse_size(a.n or fail("exact-m: which size? n=\"2^24\""))
    local t = time_of(d, label, n)
    if not t then return nil end
    if v == "median" then return time_text(t) end
    if v == "rounds" then return tostring(d.rounds[label .. "@" .. string.format("%d", n)]) end
    if v == "cost" then return signed_time(cost(d, label, n)) end
    local o = time_of(d, than or fail("exact-m: " .. v .. " needs than=\"LABEL\""), n)
    if not o then return nil end
    if v == "ratio" then return ratio_text(t / o) end
    if v == "saves" then return signed_time(o - t) end
    fail("exact-m: unknown value v=\"" .. v .. "\"")
  end

  local function span(el)
    local a, v = el.attributes, el.attributes.v or "median"
    if a.prediction and not a.label then
      if v ~= "range" then fail("exact-m: a prediction alone has v=\"range\", not '" .. v .. "'") end
      return measured(range_text(prediction(a.prediction)))
    end
    local dirs = {}
    for _, dir in ipairs(cfg.results) do if data(dir) then dirs[#dirs + 1] = dir end end
    if #dirs == 0 then return unmeasured() end
    local clause = CLAUSES[v] or a.n == "all"
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
  local function each_gpu(el, build)
    h.must_be_empty(el, el.classes[1])
    local blocks = {}
    for _, dir in ipairs(cfg.results) do
      local d = data(dir)
      if d then
        for _, b in ipairs(build(dir, d)) do blocks[#blocks + 1] = b end
      end
    end
    if #blocks == 0 then return missing() end
    return pandoc.Div(blocks, pandoc.Attr("", { "results" }))
  end

  local function sizes_of(el, default)
    local out = {}
    for _, s in ipairs(h.words(el.attributes.sizes or default)) do out[#out + 1] = parse_size(s) end
    return out
  end

  local function steps_table(el)
    local sizes = sizes_of(el, "2^14 2^16 2^18 2^20 2^22 2^24 2^26 2^28")
    return each_gpu(el, function(dir, d)
      local header, align, body = { "program" }, { ":--" }, {}
      for _, n in ipairs(sizes) do header[#header + 1] = size_md(n); align[#align + 1] = "--:" end
      local names = { step07 = "step 07", step10 = "step 10", step10_no_fp64 = "step 10 without FP64",
                      step10_block1024 = "step 10, blocks of 1024", step07_wide = "step 07, `wide` input",
                      step10_wide = "step 10, `wide` input" }
      for _, label in ipairs(STEPS) do
        local line = { names[label] }
        for _, n in ipairs(sizes) do
          local t = time_of(d, label, n)
          line[#line + 1] = t and time_text(t) or "–"
        end
        body[#body + 1] = line
      end
      for _, label in ipairs({ "step10", "step10_no_fp64", "step10_block1024", "step10_wide" }) do
        local base = label == "step10_wide" and "step07_wide" or "step07"
        local line = { "*" .. names[label] .. " ÷ " .. names[base] .. "*" }
        for _, n in ipairs(sizes) do
          local t, o = time_of(d, label, n), time_of(d, base, n)
          line[#line + 1] = (t and o) and ratio_text(t / o) or "–"
        end
        body[#body + 1] = line
      end
      return h.pipe_table(header, align, body, string.format(
        "Table: Step 07 and step 10 timed in turn, input not in L2, on %s: each time the median of its " ..
        "rounds' medians, and step 10's over step 07's (`%s/%s`).", d.device, dir, FILE))
    end)
  end

  local function pieces(el)
    local sizes = sizes_of(el, "2^20 2^22 2^24 2^26")
    local labels, stream = VARIANTS, el.attributes.labels ~= nil
    if stream then
      labels = {}
      for l in el.attributes.labels:gmatch("%S+") do
        if not known(l) then fail("exact-tail-pieces: unknown label '" .. l .. "'") end
        labels[#labels + 1] = l
      end
    end
    local predicted = {}
    for _, p in ipairs(predictions("exact-tail-pieces")) do
      if p.variant ~= "" then predicted[p.variant] = p end
    end
    return each_gpu(el, function(dir, d)
      local header, align, body = { "variant", "the piece", "predicted" }, { ":--", ":--", ":--" }, {}
      for _, n in ipairs(sizes) do header[#header + 1] = size_md(n); align[#align + 1] = "--:" end
      for _, label in ipairs(labels) do
        if label ~= "base" and d.sizes[label] then
          local p = predicted[label]
          local line = { "`" .. label .. "`", WHAT[label], p and ("(" .. p.id .. ") " .. range_text(p)) or "–" }
          for _, n in ipairs(sizes) do
            local c = cost(d, label, n)
            line[#line + 1] = c and signed_time(c) or "–"
          end
          body[#body + 1] = line
        end
      end
      local line = { "`base`", "the step as it is: its time", "–" }
      for _, n in ipairs(sizes) do
        local t = time_of(d, "base", n)
        line[#line + 1] = t and time_text(t) or "–"
      end
      body[#body + 1] = line
      return h.pipe_table(header, align, body, string.format(
        "Table: Step 10's %s on %s, piece by piece: what each piece adds to the time of one sum (the base's " ..
        "time minus the time of the variant that leaves it out, or the variant's minus the base's where the " ..
        "variant adds it), each time the median of its rounds' medians (`%s/%s`). Predicted: the change " ..
        "that the prediction, written before timing, was about, and what it was to save (`%s`).",
        stream and "streaming" or "tail", d.device, dir, FILE, PREDICTIONS))
    end)
  end

  -- Every round in one table, each GPU a column: what each change saved, from
  -- the least to the most over the sizes measured, in µs.
  local function number(us) return (us < 0 and "−" or "") .. string.format("%.2f", math.abs(us)) end
  local function saved(d, label, sign)
    local lo, hi
    for _, n in ipairs(d.sizes[label] or {}) do
      local c = cost(d, label, n)
      if c then lo, hi = math.min(lo or 1e300, sign * c), math.max(hi or -1e300, sign * c) end
    end
    if not lo then return nil end
    return lo == hi and number(lo) or (number(lo) .. " to " .. number(hi))
  end
  local function rounds(el)
    h.must_be_empty(el, "exact-rounds")
    local dirs = {}
    for _, dir in ipairs(cfg.results) do if data(dir) then dirs[#dirs + 1] = dir end end
    if #dirs == 0 then return missing() end
    local predicted = {}
    for _, p in ipairs(predictions("exact-rounds")) do
      if p.variant ~= "" then predicted[p.variant] = p end
    end
    local header, align, body = { "variant", "round", "the change", "predicted to save (µs)" }, { ":--", "--:", ":--", ":--" }, {}
    for _, dir in ipairs(dirs) do
      header[#header + 1] = "saved (µs), " .. data(dir).device
      align[#align + 1] = "--:"
    end
    for _, r in ipairs(ROUNDS) do
      local label, round, sign, what = r[1], r[2], r[3], r[4]
      if not known(label) then fail("exact-rounds: unknown label '" .. label .. "'") end
      local line, any = { "`" .. label .. "`", tostring(round), what }, false
      local p = predicted[label]
      line[4] = p and string.format("(%s) %s to %s", p.id, p.low_us, p.high_us) or "–"
      for _, dir in ipairs(dirs) do
        local text = saved(data(dir), label, sign)
        any = any or text ~= nil
        line[#line + 1] = text or "–"
      end
      if any then body[#body + 1] = line end
    end
    local files = {}
    for _, dir in ipairs(dirs) do files[#files + 1] = "`" .. dir .. "/" .. FILE .. "`" end
    return pandoc.Div(h.pipe_table(header, align, body, string.format(
      "Table: Each round's variants, each a copy of step 10 with one change: what the change saved " ..
      "(below zero: what it cost), from the least to the most over the sizes measured; a probe leaves a " ..
      "piece out, and saves what that piece takes. Each time the median of its rounds' medians (%s); " ..
      "predicted: written before the timing (`%s`).", table.concat(files, ", "), PREDICTIONS)),
      pandoc.Attr("", { "results" }))
  end

  return {
    span = span,
    blocks = { ["exact-tail"] = steps_table, ["exact-tail-pieces"] = pieces, ["exact-rounds"] = rounds },
  }
end
