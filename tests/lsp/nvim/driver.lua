-- A real Neovim (0.7 or later) as the client of `recordkit lsp`, headless.
--
--   RK_NVIM_PLAN=plan.json nvim --headless -u NONE -i NONE -n -c "luafile driver.lua"
--
-- The plan (written by tests/lsp/test_neovim.py) names the configuration to
-- load (editors/nvim/recordkit.lua, the one docs/editors.md gives), the file
-- to open and where to edit, hover, jump and complete; this script does each
-- through Neovim's own LSP client (the snippet's vim.lsp.start_client and
-- buf_attach_client, its text sync, its publishDiagnostics handler and
-- vim.diagnostic, make_position_params, vim.lsp.buf.definition's jump) and
-- writes what Neovim saw as JSON to plan.output.  Columns are Neovim's: byte
-- offsets into the line, converted by the client from the server's encoding.
-- Only APIs present in Neovim 0.7 are used.

local uv = vim.loop
local api = vim.api

local function read_file(path)
  local fd = assert(io.open(path, "r"))
  local text = fd:read("*a")
  fd:close()
  return text
end

local function write_file(path, text)
  local fd = assert(io.open(path, "w"))
  fd:write(text)
  fd:close()
end

local read_ok, plan = pcall(function()
  return vim.fn.json_decode(read_file(assert(os.getenv("RK_NVIM_PLAN"), "RK_NVIM_PLAN not set")))
end)
if not read_ok then
  -- no plan, no output file: say why on stderr and quit (never wait for input)
  io.stderr:write("driver.lua: " .. tostring(plan) .. "\n")
  api.nvim_command("cquit 2")
end
local result = { nvim = vim.version(), steps = {}, timings = {}, errors = vim.empty_dict() }
local started = uv.hrtime()

local function ms_since(t0)
  return math.floor((uv.hrtime() - t0) / 1e6)
end

-- Each step runs on when an earlier one failed (its error is kept in
-- result.errors), so one run tells everything that went wrong; a step that
-- needs what a failed one made fails in its turn.
local function step(name, fn)
  local t0 = uv.hrtime()
  result.steps[#result.steps + 1] = name
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    result.errors[name] = tostring(err)
  end
  result.timings[name] = ms_since(t0)
end

-- The raw publishDiagnostics notifications, besides what vim.diagnostic keeps.
local published = {}

local function on_publish(err, res, ctx, config)
  published[#published + 1] = res
  return vim.lsp.diagnostic.on_publish_diagnostics(err, res, ctx, config)
end

local function line_text(bufnr, lnum)
  return api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1] or ""
end

-- What vim.diagnostic holds for the buffer, with the text each range covers.
local function diagnostics_of(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local covered = nil
    if d.lnum == d.end_lnum then
      covered = line_text(bufnr, d.lnum):sub(d.col + 1, d.end_col)
    end
    local lsp = (d.user_data or {}).lsp or {}
    out[#out + 1] = {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source,
      code = d.code or lsp.code, covered = covered,
    }
  end
  return out
end

local function has_code(bufnr, code)
  for _, d in ipairs(diagnostics_of(bufnr)) do
    if d.code == code then
      return true
    end
  end
  return false
end

local function set_cursor(pos)
  -- pos = {line (0-based), col (byte offset)}; nvim_win_set_cursor is (1-based, byte)
  api.nvim_win_set_cursor(0, { pos.line + 1, pos.col })
end

-- A method the server did not declare fails at once: Neovim sends no request
-- for it (buf_request_sync would wait out its timeout).
local function require_method(method)
  for _, client in pairs(vim.lsp.buf_get_clients(0)) do
    if client.supports_method(method) then
      return
    end
  end
  error("the server does not declare " .. method)
end

local function request(bufnr, method, params)
  require_method(method)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, plan.timeout_ms)
  if responses == nil then
    error(method .. ": no response (" .. tostring(err) .. ")")
  end
  for _, response in pairs(responses) do
    if response.err then
      error(method .. ": " .. vim.inspect(response.err))
    end
    return response.result
  end
  return nil
end

local function main()
  local client, bufnr
  step("initialize", function()
    vim.lsp.handlers["textDocument/publishDiagnostics"] = on_publish
    -- the configuration docs/editors.md gives for Neovim 0.7+, as a user has it
    dofile(plan.config)
    api.nvim_command("filetype on")
    vim.o.hidden = true
    api.nvim_command("edit " .. vim.fn.fnameescape(plan.file))
    bufnr = api.nvim_get_current_buf()
    result.bufname = api.nvim_buf_get_name(bufnr)
    result.filetype = vim.bo[bufnr].filetype
    -- its FileType autocmd started the server and attached the buffer
    assert(vim.wait(plan.timeout_ms, function()
      for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
        if c.name == "recordkit" and c.initialized then
          client = c
          return true
        end
      end
      return false
    end, 10), "no initialized recordkit client attached to the buffer")
    result.server_capabilities = client.server_capabilities
    result.offset_encoding = client.offset_encoding
  end)

  step("diagnostics", function()
    local got = vim.wait(plan.timeout_ms, function() return has_code(bufnr, plan.diagnostics.code) end, 10)
    result.diagnostics = diagnostics_of(bufnr)
    result.published = published
    assert(got, "no " .. plan.diagnostics.code .. " diagnostic arrived")
  end)

  step("hover", function()
    set_cursor(plan.hover)
    local hover = request(bufnr, "textDocument/hover", vim.lsp.util.make_position_params())
    result.hover = { raw = hover }
    if hover and hover.contents then
      -- the lines Neovim's hover window would show
      result.hover.lines = vim.lsp.util.convert_input_to_markdown_lines(hover.contents)
    end
  end)

  step("definition", function()
    set_cursor(plan.definition)
    require_method("textDocument/definition")
    vim.lsp.buf.definition()  -- Neovim's own handler jumps (util.jump_to_location)
    vim.wait(plan.timeout_ms, function() return api.nvim_get_current_buf() ~= bufnr end, 10)
    local cursor = api.nvim_win_get_cursor(0)
    result.definition = {
      bufname = api.nvim_buf_get_name(0),
      line = cursor[1] - 1, col = cursor[2],
      text = api.nvim_get_current_line(),
    }
    api.nvim_set_current_buf(bufnr)
  end)

  step("edit", function()
    -- The defect fixed by typing (unsaved): the server lints Neovim's
    -- incremental didChange and publishes again, without the diagnostic.
    local at = plan.edit
    api.nvim_buf_set_text(bufnr, at.line, at.col, at.line, at.end_col, { at.text })
    local gone = vim.wait(plan.timeout_ms, function() return not has_code(bufnr, plan.diagnostics.code) end, 10)
    result.edited = { diagnostics = diagnostics_of(bufnr), line = line_text(bufnr, at.line) }
    assert(gone, plan.diagnostics.code .. " stayed after the defect was fixed in the buffer")
  end)

  step("completion", function()
    local at = plan.completion
    -- Typed into the buffer: Neovim sends the edit as an incremental didChange.
    -- (The cursor is left on a character of the line: in Normal mode, as
    -- here, Neovim keeps it off the end of a line.)
    api.nvim_buf_set_text(bufnr, at.line, at.col, at.line, at.col, { at.insert })
    set_cursor({ line = at.line, col = at.cursor })
    result.completion = { line = line_text(bufnr, at.line), labels = {} }
    local params = vim.lsp.util.make_position_params()
    params.context = { triggerKind = 1 }
    local list = request(bufnr, "textDocument/completion", params)
    local items = list and (list.items or list) or {}
    for _, item in ipairs(items) do
      result.completion.labels[#result.completion.labels + 1] = item.label
    end
    result.completion.items = vim.list_slice(items, 1, 20)
    result.completion.is_incomplete = list and list.isIncomplete or false
    -- accepted, as a completion plugin applies it: the item's textEdit (its
    -- range in the server's encoding), else its insertText at the cursor
    local chosen = items[1]
    for _, item in ipairs(items) do
      if item.label == at.accept then
        chosen = item
      end
    end
    if chosen and chosen.textEdit then
      vim.lsp.util.apply_text_edits({ chosen.textEdit }, bufnr, client.offset_encoding)
      result.completion.accepted = line_text(bufnr, at.line)
    end
  end)

  step("shutdown", function()
    vim.lsp.stop_client(client.id)
    vim.wait(plan.timeout_ms, function() return vim.lsp.get_client_by_id(client.id) == nil end, 10)
    result.stopped = vim.lsp.get_client_by_id(client.id) == nil
  end)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  result.errors.driver = tostring(err)
end
ok = vim.tbl_isempty(result.errors)
result.ok = ok
result.timings.total = ms_since(started)
write_file(plan.output, vim.fn.json_encode(result))
if ok then
  api.nvim_command("qall!")
else
  api.nvim_command("cquit 1")
end
