-- code.lua: code from the tree: include= (a file, a snippet, start= to end=) and diff=.
-- A part of course.lua, loaded by it; see there.

-- ---- includes ----------------------------------------------------------------
-- A block that quotes a file must be empty: code typed into it would be
-- thrown away without anyone noticing.
function must_be_empty(el, what)
  if el.text:match("%S") then
    fail(what .. ": the block must be empty; its content comes from the file, not from the chapter")
  end
end

function include(el)
  local path = el.attributes["include"]
  must_be_empty(el, "include " .. tostring(path))
  local name = el.attributes["snippet"]
  local text = read_file(path)
  if not text then fail("include: cannot read " .. path) end
  local lines = lines_of(text)
  local first, last = 1, #lines
  local from, to = el.attributes["start"], el.attributes["end"]
  if name then
    local open, close = "// [begin " .. name .. "]", "// [end " .. name .. "]"
    first, last = nil, nil
    for i, line in ipairs(lines) do
      local t = line:match("^%s*(.-)%s*$")
      if t == open then
        if first then fail(path .. " has two markers '" .. open .. "'") end
        first = i + 1
      elseif t == close and first and not last then
        last = i - 1
      end
    end
    if not first then fail("include: " .. path .. " has no marker '" .. open .. "'") end
    if not last then fail("include: " .. path .. " has no marker '" .. close .. "' after '" .. open .. "'") end
  elseif from then
    -- The shortest run of lines that starts with a line containing start= and
    -- ends with one containing end= (a leading ^ anchors at the line start).
    if not to then fail("include: start=\"" .. from .. "\" needs end=\"...\" too") end
    local function has(line, pat)
      if pat:sub(1, 1) == "^" then return line:sub(1, #pat - 1) == pat:sub(2) end
      return line:find(pat, 1, true) ~= nil
    end
    local seen
    first, last = nil, nil
    for i, line in ipairs(lines) do
      if has(line, from) then seen = i end
      if seen and has(line, to) then first, last = seen, i; break end
    end
    if not seen then fail("include: " .. path .. " has no line containing '" .. from .. "'") end
    if not last then fail("include: " .. path .. " has no line containing '" .. to .. "' after '" .. from .. "'") end
  end
  while first <= last and lines[first]:match("^%s*$") do first = first + 1 end
  while last >= first and lines[last]:match("^%s*$") do last = last - 1 end
  if first > last then fail("include: snippet '" .. tostring(name) .. "' in " .. path .. " is empty") end
  -- Markers of other snippets inside this one are not part of the code.
  local kept = {}
  for i = first, last do
    if not lines[i]:match("^%s*// %[begin [%w_]+%]%s*$") and not lines[i]:match("^%s*// %[end [%w_]+%]%s*$") then
      kept[#kept + 1] = lines[i]
    end
  end
  local body = table.concat(kept, "\n")
  local classes = el.classes:filter(function(c) return c ~= "include" end)
  if #classes == 0 then classes = { "cpp" } end
  -- "line 58" for one line, "lines 42–57" for more.
  local span = first == last and string.format("line %d", first) or string.format("lines %d–%d", first, last)
  local where = path .. ", " .. span
  local caption = pandoc.Para({ pandoc.Code(path), pandoc.Str(", " .. span) })
  return pandoc.Div({ caption, pandoc.CodeBlock(body, pandoc.Attr(el.identifier, classes)) },
                    pandoc.Attr("", { "listing" }, { { "title", where } }))
end

-- ---- diffs -------------------------------------------------------------------
function diff(el)
  local files = words(el.attributes["diff"])
  must_be_empty(el, "diff " .. el.attributes["diff"])
  if #files ~= 2 then fail("diff: give two files, diff=\"OLD NEW\", not '" .. el.attributes["diff"] .. "'") end
  for _, f in ipairs(files) do
    if not read_file(f) then fail("diff: cannot read " .. f) end
  end
  -- diff exits 1 when the files differ; only 2 and above are errors.
  local script = 'diff -u "$1" "$2"; s=$?; [ $s -le 1 ] || exit $s'
  local ok, out = pcall(pandoc.pipe, "sh", { "-c", script, "sh", files[1], files[2] }, "")
  if not ok then fail("diff: diff -u " .. files[1] .. " " .. files[2] .. " failed: " .. tostring(out)) end
  local lines = lines_of(out)
  if #lines == 0 then fail("diff: " .. files[1] .. " and " .. files[2] .. " are identical") end
  -- The header lines carry time stamps; keep only the names.
  lines[1] = "--- " .. files[1]
  lines[2] = "+++ " .. files[2]
  local added, removed = 0, 0
  for i = 3, #lines do
    local c = lines[i]:sub(1, 1)
    if c == "+" then added = added + 1 elseif c == "-" then removed = removed + 1 end
  end
  local caption = pandoc.Para({
    pandoc.Code("diff -u " .. files[1] .. " " .. files[2]),
    pandoc.Str(string.format(": %d lines added, %d removed", added, removed)) })
  return pandoc.Div({ caption, pandoc.CodeBlock(table.concat(lines, "\n"), pandoc.Attr(el.identifier, { "diff" })) },
                    pandoc.Attr("", { "listing", "diff-listing" }))
end
