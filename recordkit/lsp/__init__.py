"""`recordkit lsp`: the language server over the library (pygls)."""
