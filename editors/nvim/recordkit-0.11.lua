-- recordkit's language server in Neovim 0.11 or later, with its built-in
-- vim.lsp.config (no plugin).  It starts for a Markdown file under a folder
-- with a recordkit configuration (recordkit.toml, or pyproject.toml with
-- [tool.recordkit]).

local function recordkit_root(path)
  for dir in vim.fs.parents(path) do
    if vim.uv.fs_stat(dir .. "/recordkit.toml") then
      return dir
    end
    local ok, lines = pcall(vim.fn.readfile, dir .. "/pyproject.toml")
    if ok then
      for _, line in ipairs(lines) do
        if line:match("^%s*%[%s*tool%s*%.%s*recordkit%s*[%].]") then
          return dir
        end
      end
    end
  end
  return nil
end

vim.lsp.config("recordkit", {
  cmd = { "recordkit", "lsp" },
  filetypes = { "markdown" },
  root_dir = function(bufnr, on_dir)
    local root = recordkit_root(vim.api.nvim_buf_get_name(bufnr))
    if root then
      on_dir(root)  -- no call: no server for this buffer
    end
  end,
  init_options = { debounce = 150, lintOn = "type" },
  settings = { recordkit = { debounce = 150, lintOn = "type" } },
})
vim.lsp.enable("recordkit")
