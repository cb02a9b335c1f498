// Where a recordkit configuration is: the folder of a `recordkit.toml`, or of
// a `pyproject.toml` with a `[tool.recordkit]` table.  Plain functions over
// text and paths, so they need no VS Code.

import * as fs from "fs";
import * as path from "path";

/** Whether a pyproject.toml's text has a `[tool.recordkit]` table
 * (as a header, a sub-table header, or a dotted key at the top level). */
export function pyprojectHasRecordkit(text: string): boolean {
  return /^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*recordkit[ \t]*[\].]/m.test(text) ||
    /^[ \t]*tool[ \t]*\.[ \t]*recordkit[ \t]*[.=]/m.test(text) ||
    /^[ \t]*\[[ \t]*tool[ \t]*\][^[]*^[ \t]*recordkit[ \t]*[.=]/m.test(text);
}

/** Whether `dir` holds a recordkit configuration. */
export function hasConfig(dir: string): boolean {
  if (isFile(path.join(dir, "recordkit.toml"))) {
    return true;
  }
  const pyproject = path.join(dir, "pyproject.toml");
  if (!isFile(pyproject)) {
    return false;
  }
  try {
    return pyprojectHasRecordkit(fs.readFileSync(pyproject, "utf8"));
  } catch {
    return false;
  }
}

/** The nearest folder from `start` upwards (to `stop` at most, when given)
 * that holds a recordkit configuration, as recordkit itself looks it up. */
export function configRoot(start: string, stop?: string): string | undefined {
  let dir = path.resolve(start);
  const limit = stop === undefined ? undefined : path.resolve(stop);
  for (;;) {
    if (hasConfig(dir)) {
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir || (limit !== undefined && dir === limit)) {
      return undefined;
    }
    dir = parent;
  }
}

/** `${workspaceFolder}` and a leading `~` replaced in a configured path. */
export function expandPath(value: string, folder: string): string {
  let out = value.split("${workspaceFolder}").join(folder);
  if (out === "~" || out.startsWith("~/")) {
    out = path.join(process.env.HOME ?? "~", out.slice(1));
  }
  return out;
}

/** The executable a configured command names: itself when it is a path
 * (relative to `root`), else its first match on `searchPath`, else (for a
 * bare name) the one in the configuration folder's virtual environment
 * (`.venv` or `venv`); undefined when none exists. */
export function findExecutable(command: string, root: string, searchPath: string): string | undefined {
  const windows = process.platform === "win32";
  const extensions = windows ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").concat([""]) : [""];
  if (command.includes("/") || command.includes("\\")) {
    const full = path.resolve(root, command);
    return isFile(full) ? full : undefined;
  }
  const dirs = searchPath.split(path.delimiter).filter((dir) => dir !== "");
  for (const venv of [".venv", "venv"]) {
    dirs.push(path.join(root, venv, windows ? "Scripts" : "bin"));
  }
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, command + ext);
      if (isFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
