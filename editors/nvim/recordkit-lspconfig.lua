-- recordkit's language server in Neovim 0.10 with nvim-lspconfig: a server
-- nvim-lspconfig does not ship, declared as its own.  It starts for a
-- Markdown file under a folder with a recordkit configuration (recordkit.toml,
-- or pyproject.toml with [tool.recordkit]).

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

local configs = require("lspconfig.configs")
if not configs.recordkit then
  configs.recordkit = {
    default_config = {
      cmd = { "recordkit", "lsp" },
      filetypes = { "markdown" },
      root_dir = recordkit_root,
      single_file_support = false,
      init_options = { debounce = 150, lintOn = "type" },
      settings = { recordkit = { debounce = 150, lintOn = "type" } },
    },
  }
end
require("lspconfig").recordkit.setup({})
