-- chart.lua: the line charts, .chart, drawn as SVG.
-- A part of course.lua, loaded by it; see there.

-- A small line chart, drawn here as inline SVG so that it follows the page's
-- colours: GB/s (or time relative to CUB) against n, for a few programs.
function esc(t)
  return (tostring(t):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- course/ cannot hold inline SVG: the chart becomes a file of its own,
-- OUT/charts/CHAPTER-K.svg, with its colours and fonts inside it.
chart_style = [[
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

function chart_file(parts, title, height)
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

function chart(el)
  local dirs = gpu_dirs()
  if #dirs == 0 then return nothing_measured("results") end
  local dir = gpu_dir(el.attributes["gpu"])
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
  local title = (el.attributes["caption"] or label) .. " Measured on " .. (rows[1].device or dir) .. tree_note(dir) .. "."
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
