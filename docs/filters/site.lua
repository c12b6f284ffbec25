-- site.lua: the pages: the element handlers, the chapter list, links, course/'s Markdown, the one-page course, the answers.
-- A part of course.lua, loaded by it; see there.

-- ---- the element handlers -------------------------------------------------------
handlers = {
  CodeBlock = function(el)
    if el.attributes["include"] then return include(el) end
    if el.attributes["diff"] then return diff(el) end
    if el.classes:includes("results") then return results_table(el) end
    if el.classes:includes("multi") then return multi_results(el) end
    if el.classes:includes("plot") then return plot(el) end
    if el.classes:includes("pivot") then return pivot(el) end
    if el.classes:includes("csv-table") then return csv_table(el) end
    if el.classes:includes("chart") then return chart(el) end
    if el.attributes["snippet"] then fail("a snippet=\"" .. el.attributes["snippet"] .. "\" block needs include=\"FILE\"") end
  end,
  Span = function(el)
    if el.classes:includes("m") then return measure(el) end
  end,
  Div = function(el)
    if el.classes:includes("chapter-list") then return chapter_list() end
    if el.classes:includes("include-markdown") then return include_markdown(el) end
  end,
}


-- ---- chapters, index, neighbours ----------------------------------------------
meta_cache = {}
function chapter_meta(name)
  if meta_cache[name] then return meta_cache[name] end
  local path = cfg.docs .. "/" .. name .. ".md"
  local text = read_file(path)
  if not text then error("docs: the chapter list names " .. name .. ", but there is no " .. path, 0) end
  local doc = pandoc.read(text, "markdown")
  local summary = doc.meta.summary
  meta_cache[name] = { doc = doc, title = stringify(doc.meta.title or name),
                       summary = summary and stringify(summary) or "",
                       summary_inlines = summary and pandoc.utils.type and pandoc.utils.type(summary) == "Inlines"
                                         and summary or (summary and { pandoc.Str(stringify(summary)) }) }
  return meta_cache[name]
end

function href(name)
  if cfg.page == "course" then return "#" .. name end
  if cfg.md then return name == "index" and "README.md" or (name .. ".md") end
  return name .. ".html"
end

-- How many steps the course has, in words ("ten"), for the pages' footer:
-- the chapters named NN_name, which are the step files (docs.mk).
number_words = { "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                       "eighteen", "nineteen", "twenty" }
function step_count()
  local count = 0
  for _, name in ipairs(cfg.chapters) do
    if name:match("^%d%d_") then count = count + 1 end
  end
  return number_words[count] or tostring(count)
end

function chapter_list()
  local items = {}
  for _, name in ipairs(cfg.chapters) do
    local m = chapter_meta(name)
    local item = { pandoc.Plain({ pandoc.Link({ pandoc.Str(m.title) }, href(name)) }) }
    if m.summary_inlines and cfg.md then
      -- A paragraph of its own, so that Markdown does not run it into the link.
      item = { pandoc.Para(item[1].content), pandoc.Para(m.summary_inlines) }
    elseif m.summary_inlines then
      item[#item + 1] = pandoc.Div({ pandoc.Plain(m.summary_inlines) }, pandoc.Attr("", { "summary" }))
    end
    items[#items + 1] = item
  end
  return pandoc.Div({ pandoc.BulletList(items) }, pandoc.Attr("", { "chapter-list" }))
end


-- ---- links to the answers -------------------------------------------------------
-- A chapter links to an answer as ../answers/FILE, which is right from docs/
-- and from course/. The HTML pages have a page per answer beside them:
-- answers/NAME.cu.html for a program, answers/NAME.html for a Markdown answer.
function answer_href(target)
  local file, frag = target:match("^%.%./answers/([^#]+)(.*)$")
  if not file or cfg.md then return nil end
  local page = file:match("^(.*)%.md$")
  return "answers/" .. (page or file) .. ".html" .. frag
end

-- ---- course/: the chapters as Markdown ---------------------------------------------
-- A heading's anchor as GitHub makes it: lower case, punctuation dropped,
-- spaces to hyphens, a repeated anchor numbered -1, -2, ...
function github_slug(text, seen)
  -- Typographic punctuation is dropped too (Pandoc makes ' into ’).
  for _, p in ipairs({ "’", "‘", "“", "”", "–", "—", "…", "×", "·" }) do text = text:gsub(p, "") end
  local slug = text:lower():gsub("[^%w%s%-_\128-\255]", ""):gsub("%s", "-")
  local base, k = slug, 0
  while seen[slug] do k = k + 1; slug = base .. "-" .. k end
  seen[slug] = true
  return slug
end

-- Pandoc's identifier of each heading of a chapter -> GitHub's anchor for it.
anchor_cache = {}
function anchors(name)
  if anchor_cache[name] then return anchor_cache[name] end
  local map, seen = {}, {}
  local function headers(blocks)
    for _, b in ipairs(blocks) do
      if b.t == "Header" then map[b.identifier] = github_slug(stringify(b.content), seen)
      elseif b.t == "Div" and b.classes:includes("include-markdown") then
        local text = read_file(b.attributes["file"] or "")
        if text then
          local inc = {}
          for _, x in ipairs(pandoc.read(text, "markdown").blocks) do
            if not (x.t == "Header" and x.level == 1) then inc[#inc + 1] = x end
          end
          headers(inc)
        end
      elseif b.t == "Div" then headers(b.content) end
    end
  end
  headers(chapter_meta(name).doc.blocks)
  anchor_cache[name] = map
  return map
end

function md_link(target)
  local page, frag = target:match("^([%w_]+)%.html#(.+)$")
  if not page then page = target:match("^([%w_]+)%.html$") end
  if not page then frag = target:match("^#(.+)$") end
  if page == "index" then return "README.md" end
  if page then
    local file = cfg.docs .. "/" .. page .. ".md"
    if not read_file(file) then return target end
    if not frag then return page .. ".md" end
    return page .. ".md#" .. (anchors(page)[frag] or frag)
  end
  if frag then return "#" .. (anchors(cfg.chapter)[frag] or frag) end
  -- Figures live in docs/figures/, beside the chapters' sources.
  if target:match("^figures/") then return "../" .. cfg.docs .. "/" .. target end
  return target
end

-- What Markdown cannot say, said plainly: no divs or spans, exercises as
-- quotes, a superscript as GitHub shows one (2<sup>24</sup>, raw HTML that
-- GitHub keeps), links and images that work from course/.
md_final = {
  Div = function(el)
    if el.classes:includes("web-only") then return {} end
    if el.classes:includes("exercise") or el.classes:includes("aside") then return pandoc.BlockQuote(el.content) end
    return el.content
  end,
  Span = function(el) return el.content end,
  -- A table's caption above it, as a listing's is and as the HTML pages
  -- show it (GitHub's Markdown has no captions: Pandoc would write it below).
  Table = function(el)
    local cap = el.caption and el.caption.long or {}
    if #cap == 0 then return el end
    local out = {}
    for _, b in ipairs(cap) do
      out[#out + 1] = b.t == "Plain" and pandoc.Para(b.content) or b
    end
    el.caption = { long = {}, short = nil }
    out[#out + 1] = el
    return out
  end,
  Superscript = function(el)
    return pandoc.RawInline("html", "<sup>" .. stringify(el.content) .. "</sup>")
  end,
  Link = function(el) el.target = md_link(el.target); return el end,
  -- A class on a figure's image (.narrow) is for the HTML pages' style; in
  -- GitHub's Markdown it would turn the figure into raw HTML.
  Image = function(el) el.src = md_link(el.src); el.classes = {}; return el end,
}

-- Other files of the repository (../lab/tuning/tune.cu, ../results/...) are
-- reached from the pages through repo-root, the way back from DOCS_OUT.
html_final = {
  -- Every table in a box of its own that scrolls sideways when the table is
  -- wider than the page, so that the page itself never is.
  Table = function(el)
    return pandoc.Div({ el }, pandoc.Attr("", { "table-scroll" }))
  end,
  Link = function(el)
    local a = answer_href(el.target)
    if a then el.target = a
    elseif el.target:match("^%.%./") then el.target = cfg.repo .. "/" .. el.target:sub(4) end
    return el
  end,
}

-- ---- one page for the whole course ----------------------------------------------
-- Ids get the chapter's name in front ("pitfalls" -> "03_warp_shuffle--pitfalls"),
-- and links between chapter pages become links inside the page.
function book_links(name)
  local known = {}
  for _, c in ipairs(cfg.chapters) do known[c] = true end
  local function rename(id) return id ~= "" and (name .. "--" .. id) or id end
  local function fix_attr(el)
    if el.identifier and el.identifier ~= "" then el.identifier = rename(el.identifier) end
    return el
  end
  return {
    Header = fix_attr, Div = fix_attr, Span = fix_attr, CodeBlock = fix_attr,
    Link = function(el)
      local t = el.target
      local page, frag = t:match("^([%w_]+)%.html#(.+)$")
      if page and known[page] then el.target = "#" .. page .. "--" .. frag; return el end
      page = t:match("^([%w_]+)%.html$")
      if page and known[page] then el.target = "#" .. page; return el end
      if page == "index" then el.target = "#top"; return el end
      frag = t:match("^#(.+)$")
      if frag then el.target = "#" .. name .. "--" .. frag; return el end
      return el
    end,
  }
end

function build_course(doc)
  -- What only makes sense on the web pages (a link to this very file) goes.
  doc.blocks = walk(doc.blocks, { Div = function(el)
    if el.classes:includes("web-only") then return {} end
  end })
  local blocks = walk(doc.blocks, handlers)
  for _, name in ipairs(cfg.chapters) do
    cfg.chapter = name
    local m = chapter_meta(name)
    blocks[#blocks + 1] = pandoc.Header(1, { pandoc.Str(m.title) }, pandoc.Attr(name, { "chapter" }))
    if m.summary_inlines then
      blocks[#blocks + 1] = pandoc.Div({ pandoc.Para(m.summary_inlines) }, pandoc.Attr("", { "chapter-summary" }))
    end
    append(blocks, walk(walk(m.doc.blocks, handlers), book_links(name)))
  end
  doc.blocks = blocks
  return doc
end

-- ---- a page for one answer -----------------------------------------------------
-- With chapter = "answer" and answer-file = answers/NAME: the program, whole,
-- or a Markdown answer rendered. The page sits in answers/ beside the chapters.
function answer_page(doc)
  local path = stringify(doc.meta["answer-file"] or "")
  local text = read_file(path)
  if not text then error("answer: cannot read '" .. path .. "'", 0) end
  local blocks = {}
  if path:match("%.md$") then
    local adoc = pandoc.read(text, "markdown")
    for _, b in ipairs(adoc.blocks) do
      if b.t == "Header" and b.level == 1 and not doc.meta.title then
        doc.meta.title = b.content
      elseif not (b.t == "Header" and b.level == 1) then
        blocks[#blocks + 1] = b
      end
    end
  else
    local lang = path:match("%.sh$") and "bash" or "cpp"
    blocks[1] = pandoc.Para({ pandoc.Str("The answer as a program: "), pandoc.Code(path),
      pandoc.Str(", built by "), pandoc.Code("make answers"), pandoc.Str(" into "),
      pandoc.Code("build/answers/"), pandoc.Str(".") })
    blocks[2] = pandoc.CodeBlock(text:gsub("%s+$", ""), pandoc.Attr("", { lang }))
  end
  if not doc.meta.title then doc.meta.title = pandoc.MetaInlines({ pandoc.Str(path) }) end
  doc.meta.pagetitle = stringify(doc.meta.title)
  doc.meta["home-href"] = "../index.html"
  -- A Markdown answer links to its neighbours in answers/ by name: on the
  -- HTML pages, those are the neighbours' pages.
  doc.blocks = walk(blocks, { Link = function(el)
    local t = el.target
    if not t:match("[/:#]") and read_file("answers/" .. t) then
      el.target = answer_href("../answers/" .. t):gsub("^answers/", "")
    end
    return el
  end })
  return doc
end

-- ---- the filter -------------------------------------------------------------------
function page(doc)
  local m = doc.meta
  cfg.page = m.chapter and stringify(m.chapter) or "?"
  cfg.chapter = cfg.page
  cfg.chapters = words(m.chapters and stringify(m.chapters) or "")
  cfg.results = words(m["results-dirs"] and stringify(m["results-dirs"]) or "")
  cfg.docs = m["docs-dir"] and stringify(m["docs-dir"]) or "docs"
  cfg.root = m["results-root"] and stringify(m["results-root"]) or "results"
  cfg.multi = words(m["multi-results"] and stringify(m["multi-results"]) or "")
  cfg.md = FORMAT:match("markdown") ~= nil or FORMAT:match("gfm") ~= nil or FORMAT:match("commonmark") ~= nil
  cfg.out = m["course-dir"] and stringify(m["course-dir"]) or "course"
  cfg.repo = m["repo-root"] and stringify(m["repo-root"]) or "../.."

  -- Where this page sits in the course, for the links at its top and bottom.
  local function link(name, title)
    return pandoc.MetaMap({ href = href(name), title = title })
  end
  for i, name in ipairs(cfg.chapters) do
    if name == cfg.page then
      -- (Before the first chapter, the contents: course/'s pages link them
      -- anyway, once is enough.)
      if i > 1 then m.prev = link(cfg.chapters[i - 1], chapter_meta(cfg.chapters[i - 1]).title)
      elseif not cfg.md then m.prev = link("index", "Contents") end
      if i < #cfg.chapters then m.next = link(cfg.chapters[i + 1], chapter_meta(cfg.chapters[i + 1]).title) end
      m.position = string.format("%d of %d", i, #cfg.chapters)
    end
  end
  if cfg.page == "index" and #cfg.chapters > 0 then
    m.next = link(cfg.chapters[1], chapter_meta(cfg.chapters[1]).title)
  end
  m["home-href"] = cfg.page == "course" and "#top" or "index.html"
  m["step-count"] = step_count()
  if m.summary then m["summary-text"] = stringify(m.summary) end
  doc.meta = m

  if cfg.page == "answer" then return answer_page(doc) end
  if cfg.page == "course" then
    doc = build_course(doc)
    doc.blocks = walk(doc.blocks, html_final)
    return doc
  end
  doc.blocks = walk(doc.blocks, handlers)
  doc.blocks = walk(doc.blocks, cfg.md and md_final or html_final)
  return doc
end
