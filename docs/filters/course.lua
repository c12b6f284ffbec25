--[[ course.lua: the Pandoc filter behind `make docs` and `make course`.

The chapters never paste code or measured numbers: they ask for them, and this
filter fills them in from the files themselves when the pages are built. What a
chapter may ask for and the metadata docs/docs.mk sets: docs/filters/README.md.
The parts, one file by concern, are loaded below: base (files, errors), code
(quotes, diffs), numbers (formats, CSVs), tables, measure ([]{.m}), chart,
pages (other Markdown), site (handlers, links, course/, one-page course, answers).
]]


-- The filter's parts, in files by concern beside this one. Each is loaded
-- into one table shared by all of them (reading the globals through it), so
-- that a function in one part calls one in another by its plain name.
local dir = (PANDOC_SCRIPT_FILE or ""):match("^(.-)[^/\\]*$")
local parts = setmetatable({}, { __index = _G })
for _, name in ipairs({ "base.lua", "code.lua", "numbers.lua", "tables.lua", "measure.lua", "chart.lua", "pages.lua", "site.lua" }) do
  assert(loadfile(dir .. name, "t", parts))()
end

function Pandoc(doc) return parts.page(doc) end
