-- lab.lua: the loader of small_sizes.lua, the lab's own elements.
-- A part of course.lua, loaded by it; see there.

-- ---- the small sizes (make clusters) ---------------------------------------------
-- In a file of its own beside this one, handed the helpers it shares.
filter_parts = {
  cfg = cfg, fail = fail, note = note, markdown = markdown, read_csv = read_csv, read_file = read_file,
  parse_size = parse_size, size_md = size_md, time_text = time_text, ratio_text = ratio_text,
  pipe_table = pipe_table, words = words, must_be_empty = must_be_empty, as_chapter = as_chapter,
}
filter_dir = (PANDOC_SCRIPT_FILE or ""):match("^(.-)[^/\\]*$")
small_sizes = dofile(filter_dir .. "small_sizes.lua")(filter_parts)
