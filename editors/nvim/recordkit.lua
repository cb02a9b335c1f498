-- recordkit's language server in Neovim 0.7 or later (no plugin needed).
-- Put this in your init.lua, or save it and `dofile()` it from there.
-- It starts one `recordkit lsp` for each folder with a recordkit
-- configuration (recordkit.toml, or pyproject.toml with [tool.recordkit]) and
-- attaches every Markdown buffer under that folder to it.

local recordkit = {
  cmd = { "recordkit", "lsp" },   -- or { "/path/to/.venv/bin/recordkit", "lsp" }
  settings = {
    debounce = 150,               -- ms after the last keystroke (0-1000)
    lintOn = "type",              -- or "save"
    -- features = { symbols = false },  -- a feature turned off (beside marksman)
  },
  clients = {},                   -- configuration folder -> client id
}

-- The nearest folder from `dir` upwards that holds a recordkit configuration.
function recordkit.root(dir)
  while dir and dir ~= "" do
    if vim.fn.filereadable(dir .. "/recordkit.toml") == 1 then
      return dir
    end
    local pyproject = dir .. "/pyproject.toml"
    if vim.fn.filereadable(pyproject) == 1 then
      for _, line in ipairs(vim.fn.readfile(pyproject)) do
        if line:match("^%s*%[%s*tool%s*%.%s*recordkit%s*[%].]") then
          return dir
        end
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

function recordkit.attach(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return
  end
  local root = recordkit.root(vim.fn.fnamemodify(name, ":p:h"))
  if root == nil then
    return
  end
  if recordkit.clients[root] == nil then
    recordkit.clients[root] = vim.lsp.start_client({
      name = "recordkit",
      cmd = recordkit.cmd,
      cmd_cwd = root,
      root_dir = root,
      init_options = recordkit.settings,
      on_exit = function() recordkit.clients[root] = nil end,
    })
  end
  if recordkit.clients[root] ~= nil then
    vim.lsp.buf_attach_client(bufnr, recordkit.clients[root])
  end
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "markdown",
  callback = function(args) recordkit.attach(args.buf) end,
})

return recordkit
