// The recordkit extension: starts `recordkit lsp` for the folder that holds
// a recordkit configuration (recordkit.toml, or pyproject.toml with
// [tool.recordkit]) and serves the Markdown files under it: one such folder a
// window (the first found).  Everything the
// editor shows comes from the server; this file only starts it, passes the
// `recordkit` settings, and restarts it.

import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

import { configRoot, expandPath, findExecutable } from "./detect";

const SECTION = "recordkit";

/** The client of the configuration folder served (its path is the key). */
const clients = new Map<string, LanguageClient>();
let output: vscode.OutputChannel | undefined;
let traceOutput: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("recordkit");
  traceOutput = vscode.window.createOutputChannel("recordkit (trace)");
  context.subscriptions.push(output, traceOutput);

  context.subscriptions.push(
    vscode.commands.registerCommand("recordkit.restartServer", restartAll),
    vscode.commands.registerCommand("recordkit.showServerOutput", () => output?.show(true)),
    vscode.workspace.onDidOpenTextDocument((doc) => void serve(doc)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void startForFolders()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.server`)) {
        void restartAll();
      }
    }),
  );
  // A configuration created or deleted later starts (or no longer needs) a server.
  const watcher = vscode.workspace.createFileSystemWatcher("**/{recordkit.toml,pyproject.toml}");
  context.subscriptions.push(watcher, watcher.onDidCreate(() => void startForFolders()),
    watcher.onDidChange(() => void startForFolders()));

  await startForFolders();
  for (const doc of vscode.workspace.textDocuments) {
    await serve(doc);
  }
}

export async function deactivate(): Promise<void> {
  await Promise.all([...clients.values()].map((client) => client.stop()));
  clients.clear();
}

/** A server for each workspace folder that holds (or is inside) a configuration. */
async function startForFolders(): Promise<void> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== "file") {
      continue;
    }
    const root = configRoot(folder.uri.fsPath);
    if (root !== undefined) {
      await ensureClient(root);
    }
  }
}

/** A server for a Markdown file opened under a configuration folder. */
async function serve(doc: vscode.TextDocument): Promise<void> {
  if (doc.languageId !== "markdown" || doc.uri.scheme !== "file") {
    return;
  }
  const root = configRoot(path.dirname(doc.uri.fsPath));
  if (root !== undefined) {
    await ensureClient(root);
  }
}

/** Folders not served, each told once. */
const refused = new Set<string>();

async function ensureClient(root: string): Promise<void> {
  if (clients.has(root)) {
    return;
  }
  // One server a window: the server's commands (recordkit.runCheck) are
  // registered in VS Code by name, and a second client registering the same
  // names fails to start.
  const serving = [...clients.keys()][0];
  if (serving !== undefined) {
    if (!refused.has(root)) {
      refused.add(root);
      void vscode.window.showInformationMessage(
        `recordkit serves one record a window (${serving}); open ${root} in a window of its own.`);
    }
    return;
  }
  const client = makeClient(root);
  if (client === undefined) {
    return;
  }
  clients.set(root, client);
  try {
    await client.start();
  } catch (error) {
    clients.delete(root);
    output?.appendLine(`recordkit lsp did not start in ${root}: ${String(error)}`);
  }
}

async function restartAll(): Promise<void> {
  const roots = [...clients.keys()];
  await deactivate();
  for (const root of roots) {
    await ensureClient(root);
  }
  await startForFolders();
}

function makeClient(root: string): LanguageClient | undefined {
  const settings = vscode.workspace.getConfiguration(SECTION, vscode.Uri.file(root));
  const configured = expandPath(settings.get<string>("server.path", "recordkit"), root);
  const args = settings.get<string[]>("server.args", ["lsp"]).map((arg) => expandPath(arg, root));
  const command = findExecutable(configured, root, process.env.PATH ?? "");
  if (command === undefined) {
    void vscode.window.showErrorMessage(
      `recordkit: "${configured}" was not found. Install recordkit (pip install recordkit) ` +
      "or set recordkit.server.path to its executable.", "Open settings",
    ).then((choice) => {
      if (choice !== undefined) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "recordkit.server.path");
      }
    });
    return undefined;
  }
  const env = { ...process.env, ...settings.get<Record<string, string>>("server.env", {}) };
  const serverOptions: ServerOptions = {
    command,
    args,
    transport: TransportKind.stdio,
    options: { cwd: root, env },
  };
  const folderUri = vscode.Uri.file(root);
  const folder = vscode.workspace.getWorkspaceFolder(folderUri);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "markdown", pattern: `${globEscape(root)}/**/*` },
    ],
    workspaceFolder: folder !== undefined && folder.uri.fsPath === root
      ? folder
      : { uri: folderUri, name: path.basename(root), index: 0 },
    initializationOptions: serverSettings(settings),
    synchronize: { configurationSection: SECTION },
    middleware: featureSwitches(root),
    outputChannel: output,
    traceOutputChannel: traceOutput,
  };
  return new LanguageClient(SECTION, "recordkit", serverOptions, clientOptions);
}

/** Each `recordkit.features.NAME` switch applied in the client too: a
 * request of a feature turned off is not sent (the server reads the same
 * switches), and a change takes effect at once. */
function featureSwitches(root: string): Middleware {
  const scope = vscode.Uri.file(root);
  const gate = <T>(feature: string): T => ((...args: unknown[]) => {
    const next = args[args.length - 1] as (...rest: unknown[]) => unknown;
    const on = vscode.workspace.getConfiguration(SECTION, scope).get<boolean>(`features.${feature}`, true);
    return on ? next(...args.slice(0, -1)) : undefined;
  }) as T;
  return {
    provideCompletionItem: gate("completion"),
    provideHover: gate("hover"),
    provideDefinition: gate("definition"),
    provideReferences: gate("references"),
    provideDocumentLinks: gate("documentLinks"),
    provideDocumentSymbols: gate("symbols"),
    provideWorkspaceSymbols: gate("symbols"),
    prepareCallHierarchy: gate("callHierarchy"),
    prepareTypeHierarchy: gate("typeHierarchy"),
    prepareRename: gate("rename"),
    provideRenameEdits: gate("rename"),
    provideCodeActions: gate("codeActions"),
    provideCodeLenses: gate("codeLens"),
    provideInlayHints: gate("inlayHints"),
    workspace: { willRenameFiles: gate("rename") },
  };
}

/** The settings the server reads (the `recordkit` section less the
 * client's own `server` and `trace` keys), as plain JSON. */
export function serverSettings(settings: vscode.WorkspaceConfiguration): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
  delete plain.server;
  delete plain.trace;
  return plain;
}

/** A path as a glob that matches only itself (forward slashes; the glob's
 * own characters bracketed). */
function globEscape(p: string): string {
  return p.replace(/\\/g, "/").replace(/[[\]{}*?]/g, (c) => `[${c}]`);
}
