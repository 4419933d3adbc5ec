"""The language server (``kartalint lsp``): lint findings, jq values, CRD fields, completion, fixes
and navigation in the editor, on the same pipeline as the commands (docs/editor.md). Needs the
``lsp`` extra (pygls, lsprotocol)."""
