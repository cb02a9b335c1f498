// Where the extension finds a recordkit configuration (src/detect.ts),
// on real folders and files; run by `npm test` (build.sh runs it first).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import test from "node:test";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { pyprojectHasRecordkit, hasConfig, configRoot, expandPath, findExecutable } = require("../dist/test/detect.js");

test("a pyproject.toml's [tool.recordkit] table, in each way TOML writes it", () => {
  assert.equal(pyprojectHasRecordkit('[tool.recordkit]\nroot = "records"\n'), true);
  assert.equal(pyprojectHasRecordkit('[project]\nname = "x"\n\n[tool.recordkit.lint]\nselect = ["RK"]\n'), true);
  assert.equal(pyprojectHasRecordkit('[ tool . recordkit ]\n'), true);
  assert.equal(pyprojectHasRecordkit('tool.recordkit.root = "records"\n'), true);
  assert.equal(pyprojectHasRecordkit('[tool]\nrecordkit = { root = "records" }\n'), true);
});

test("no recordkit table: other tools, a longer name, a comment, a string", () => {
  assert.equal(pyprojectHasRecordkit('[tool.ruff]\nline-length = 100\n'), false);
  assert.equal(pyprojectHasRecordkit('[tool.recordkitten]\n'), false);
  assert.equal(pyprojectHasRecordkit('# [tool.recordkit]\n'), false);
  assert.equal(pyprojectHasRecordkit('description = "see [tool.recordkit]"\n'), false);
  assert.equal(pyprojectHasRecordkit(''), false);
});

test("the nearest folder upwards with a configuration, as recordkit looks it up", () => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), "rk-detect-"));
  try {
    const project = path.join(top, "project");
    const deep = path.join(project, "records", "claim");
    fs.mkdirSync(deep, { recursive: true });
    assert.equal(configRoot(deep, top), undefined);
    fs.writeFileSync(path.join(project, "pyproject.toml"), "[tool.ruff]\n");
    assert.equal(hasConfig(project), false);
    assert.equal(configRoot(deep, top), undefined);
    fs.writeFileSync(path.join(project, "pyproject.toml"), "[tool.ruff]\n\n[tool.recordkit]\nroot = \"records\"\n");
    assert.equal(configRoot(deep, top), project);
    fs.writeFileSync(path.join(deep, "recordkit.toml"), "root = \".\"\n");
    assert.equal(configRoot(deep, top), deep);
    // a folder named recordkit.toml is no configuration
    fs.rmSync(path.join(deep, "recordkit.toml"));
    fs.mkdirSync(path.join(deep, "recordkit.toml"));
    assert.equal(configRoot(deep, top), project);
    // the search stops at `stop`
    assert.equal(configRoot(deep, path.join(project, "records")), undefined);
  } finally {
    fs.rmSync(top, { recursive: true, force: true });
  }
});

test("${workspaceFolder} and ~ in a configured path", () => {
  assert.equal(expandPath("${workspaceFolder}/.venv/bin/recordkit", "/w/rec"), "/w/rec/.venv/bin/recordkit");
  assert.equal(expandPath("recordkit", "/w/rec"), "recordkit");
  assert.equal(expandPath("~/bin/recordkit", "/w"), path.join(os.homedir(), "bin/recordkit"));
});

test("the executable: a path as it is, a bare name on PATH, else in the folder's .venv or venv", () => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), "rk-exe-"));
  try {
    const make = (file) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
      return file;
    };
    const root = path.join(top, "project");
    const onPath = path.join(top, "bin");
    fs.mkdirSync(root, { recursive: true });
    fs.mkdirSync(onPath, { recursive: true });
    assert.equal(findExecutable("recordkit", root, onPath), undefined);
    const venv = make(path.join(root, "venv", "bin", "recordkit"));
    assert.equal(findExecutable("recordkit", root, onPath), venv);
    const dotVenv = make(path.join(root, ".venv", "bin", "recordkit"));
    assert.equal(findExecutable("recordkit", root, onPath), dotVenv);
    const global = make(path.join(onPath, "recordkit"));
    assert.equal(findExecutable("recordkit", root, onPath), global);
    assert.equal(findExecutable("./venv/bin/recordkit", root, onPath), venv);
    assert.equal(findExecutable(dotVenv, "/elsewhere", ""), dotVenv);
    assert.equal(findExecutable(path.join(root, "nope", "recordkit"), root, onPath), undefined);
  } finally {
    fs.rmSync(top, { recursive: true, force: true });
  }
});
