-- base.lua: the shared pieces: the configuration, reading files, failing with a message.
-- A part of course.lua, loaded by it; see there.

stringify = pandoc.utils.stringify

-- ---- configuration, from the metadata --------------------------------------
cfg = {
  chapter = "?",        -- the chapter being processed (for messages, bold rows)
  page = "?",           -- the page being built
  chapters = {},
  results = {},         -- results/<gpu> directories
  multi = {},           -- results/<gpu>-x<G>/multi.md files
  harris = {},          -- results/<gpu> directories with a harris.csv
  clusters = {},        -- results/<gpu> directories with a clusters.csv
  root = "results",     -- the directory that holds them
  docs = "docs",
  repo = "../..",       -- the repository, seen from the HTML pages
  md = false,           -- writing Markdown for course/ (else HTML for build/docs/)
  out = "course",       -- where course/ is written (charts go to OUT/charts/)
  charts = 0,           -- charts drawn so far on this page
}

function words(s)
  local out = {}
  for w in (s or ""):gmatch("[^%s,]+") do out[#out + 1] = w end
  return out
end

-- Stops the build, naming the chapter: the input file, or in the one-page
-- course the chapter being assembled.
function fail(msg)
  local where = cfg.docs .. "/" .. cfg.chapter .. ".md"
  if cfg.page ~= "course" and PANDOC_STATE and PANDOC_STATE.input_files and PANDOC_STATE.input_files[1] then
    where = PANDOC_STATE.input_files[1]
  end
  error(where .. ": " .. msg, 0)
end

function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

function lines_of(text)
  local out = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do out[#out + 1] = line end
  if out[#out] == "" then out[#out] = nil end
  return out
end

function walk(blocks, filter)
  if pandoc.Blocks and pandoc.Blocks(blocks).walk then
    return pandoc.Blocks(blocks):walk(filter)
  end
  return pandoc.walk_block(pandoc.Div(blocks), filter).content
end

function markdown(text)
  return pandoc.read(text, "markdown").blocks
end

-- The blocks of list added at the end of to.
function append(to, list)
  for _, b in ipairs(list) do to[#to + 1] = b end
end

-- A one-line note in place of something that could not be shown.
function note(text)
  return pandoc.Div(markdown(text), pandoc.Attr("", { "note" }))
end
