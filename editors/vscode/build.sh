#!/usr/bin/env bash
# Build the recordkit VS Code extension into editors/vscode/recordkit.vsix.
#
# Needs node >= 20 and npm with the npm registry reachable (once, for the
# packages pinned in package-lock.json).  The extension is bundled by esbuild
# (vscode-languageclient inside dist/extension.js), so the .vsix needs no
# network and no node_modules at run time.
set -euo pipefail
cd "$(dirname "$0")"

if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi
npm test           # node --test: where the extension finds a configuration (src/detect.ts)
# vsce runs the vscode:prepublish script first: `tsc --noEmit` (the sources
# type-check against VS Code's API), then esbuild bundles src/extension.ts and
# its dependencies into dist/extension.js.
npm run package
ls -l recordkit.vsix
