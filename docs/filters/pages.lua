-- pages.lua: other Markdown in a page: .include-markdown and .multi.
-- A part of course.lua, loaded by it; see there.

-- ::: include-markdown: another Markdown file, written as a chapter is (its
-- spans and blocks filled in); without its level-1 title, or, where a script
-- wrote it (a class given), with its headings pushed down and its tables'
-- widths left to the browser (docs/filters/README.md).
function include_markdown(el)
  local a, files = el.attributes, {}
  if a.each then
    for _, dir in ipairs(cfg.results) do
      if read_file(dir .. "/" .. a.each) and not (a.gpus == "first" and #files > 0) then files[#files + 1] = dir .. "/" .. a.each end
    end
  elseif a.results then
    if read_file(cfg.root .. "/" .. a.results) then files[1] = cfg.root .. "/" .. a.results end
  elseif a.file and read_file(a.file) then files[1] = a.file end
  if #files == 0 then
    if a.make then
      return note("*Not measured yet: `" .. a.make .. "` on a machine with a GPU writes `results/" ..
                  (a.each and "<gpu>/" .. a.each or a.results) .. "`.*")
    end
    return note("*`" .. tostring(a.file) .. "` is not there yet.*")
  end
  local classes = el.classes:filter(function(c) return c ~= "include-markdown" end)
  local generated = #classes > 0
  local keep = {}
  for _, k in ipairs(words(a.sections or "")) do keep[tonumber(k) or fail("include-markdown: sections=\"1 2\"")] = true end
  local blocks = {}
  for _, path in ipairs(files) do
    local section = 0
    for _, b in ipairs(markdown(read_file(path))) do
      if b.t == "Header" and generated then
        b.level = b.level == 1 and 3 or 4
        b.identifier = ""
        if b.level == 4 then section = section + 1 end
      end
      if not (b.t == "Header" and b.level == 1) and (not a.sections or section == 0 or keep[section]) then
        blocks[#blocks + 1] = b
      end
    end
    if a.source then blocks[#blocks + 1] = pandoc.Para({ pandoc.Str("(From "), pandoc.Code(path), pandoc.Str(".)") }) end
  end
  if a.each then blocks = as_chapter(blocks) elseif generated then blocks = as_chapter(blocks, true) end
  return pandoc.Div(walk(blocks, handlers), pandoc.Attr("", generated and classes or { "included" }))
end

-- Markdown that a script generated (harris.md, multi.md) as the chapters
-- show it: 2^28 (as the scripts write it) as a power, on the pages and in
-- course/ alike, and its tables with the widths left to the browser, as
-- pipe_table leaves them.
function as_chapter(blocks, widths_only)
  return walk(blocks, {
    Str = function(el)
      if widths_only then return nil end
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
      -- This chapter's own step's row in bold, as in its other tables.
      for _, body in ipairs(el.bodies or {}) do
        for _, row in ipairs(body.body) do
          local c = row.cells[1]
          if c and stringify(c.contents) == cfg.chapter then c.contents = { pandoc.Plain({ pandoc.Strong(c.contents[1].content) }) } end
        end
      end
      if el.colspecs then
        for i, c in ipairs(el.colspecs) do el.colspecs[i] = { c[1], pandoc.ColWidthDefault } end
      end
      -- A column of words (Harris's techniques) may wrap; the numbers keep
      -- to one line (style.css, table.words-2).
      local head = el.head and el.head.rows and el.head.rows[1]
      if head and head.cells[2] and not widths_only and stringify(head.cells[2].contents) == "technique" then
        el.classes:insert("words-2")
      end
      return el
    end,
  })
end

-- ```{.multi section="Step 09"}: one section of every results/<gpu>-x<G>/multi.md
-- (make compare-multi) of two GPUs or more: the blocks from the first level-2
-- header that starts with `section` to the next one, under the file's title
-- (which names the GPUs).
function multi_results(el)
  must_be_empty(el, "multi")
  local section = el.attributes["section"] or fail("multi: which section? section=\"Step 09\"")
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
        append(blocks, found)
      end
    end
  end
  if #blocks == 0 then
    return note("*No runs on two GPUs or more in `results/` yet: `make compare-multi` on such a machine " ..
                "writes `results/<gpu>-x<G>/multi.md`, and this shows its section \"" .. section .. "\".*")
  end
  return pandoc.Div(as_chapter(blocks), pandoc.Attr("", { "results" }))
end
