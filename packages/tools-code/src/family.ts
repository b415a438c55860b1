import { keepStateIn, type ToolFamily, type Workspace } from '@assistant-kit/tool-core';
import type { CodeContext } from './engine/code-context.js';
import { LanguageService } from './engine/language-service.js';
import { RecentWrites } from './engine/recent-writes.js';
import { EditTokenStore } from './intelligence/edit-tokens.js';
import { LanguageServerPool, type LanguageServerStatus } from './lsp/language-server-pool.js';
import { type LanguageServerRegistration, mergeRegistrations } from './lsp/registrations.js';
import {
  DEFAULT_WRITE_DIAGNOSTICS_BUDGET_MS,
  diagnosticsAfterWrite,
  type WriteDiagnostics,
} from './output/write-diagnostics.js';
import { pythonServerSettings } from './project/python-server-settings.js';
import { SyntaxIndex } from './syntax/syntax-index.js';
import { codeDiagnosticsTool } from './tools/code-diagnostics.js';
import { codeDocumentSymbolsTool } from './tools/code-document-symbols.js';
import { codeFindDefinitionTool } from './tools/code-find-definition.js';
import { codeFindReferencesTool } from './tools/code-find-references.js';
import { codeIntelligenceTool } from './tools/code-intelligence.js';
import { codeProjectProfileTool } from './tools/code-project-profile.js';
import { codeRelatedTestsTool } from './tools/code-related-tests.js';
import { codeWorkspaceSymbolsTool } from './tools/code-workspace-symbols.js';
import { fileOutlineTool } from './tools/file-outline.js';
import { repoMapTool } from './tools/repo-map.js';
import { runTestsTool } from './tools/run-tests.js';

/** Default time a language server has to answer one request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default time a language server has to start and initialise. */
export const DEFAULT_START_TIMEOUT_MS = 60_000;

/** Options of {@link createCodeTools}. */
export interface CodeToolsOptions {
  workspace: Workspace;
  /**
   * Offer apply_rename, apply_action and apply_format (configurations W and U). Default: true
   * unless the workspace is read-only. With false (configuration R) code_intelligence offers only
   * hover, find_implementations, call_hierarchy, preview_rename, list_actions and preview_format.
   */
  allowApply?: boolean;
  /** Extra language servers (pyright, gopls, rust-analyzer…); one with a built-in id replaces it. */
  languageServers?: readonly LanguageServerRegistration[];
  /** Time limit of one language-server request; on expiry it is cancelled (default 30 s). */
  requestTimeoutMs?: number;
  /** Time limit of a language server's start and initialize handshake (default 60 s). */
  startTimeoutMs?: number;
  /**
   * Time a write (write_file, edit_file, replace_in_files, an apply) waits for the new
   * diagnostics of the files it changed before saying they are pending (default 2 s).
   */
  writeDiagnosticsBudgetMs?: number;
  /** Time code_diagnostics waits for one file's diagnostics (default 20 s). */
  diagnosticsTimeoutMs?: number;
  /** Restarts of a crashing server allowed within 10 minutes (default 5). */
  maxServerRestarts?: number;
  /**
   * Keep the syntax index's file list current with file watchers (default true). With false, or
   * where watching is not possible, every call that lists files walks the workspace with a stat
   * of each file instead.
   */
  watchFiles?: boolean;
  /** Most worker threads a large parse (a cold repo map) may use; default one per core, at most 4; 0 parses in the calling thread. */
  analysisWorkers?: number;
  /**
   * Smallest workspace (files listed) whose syntax analyses are kept for the next session in
   * `.assistant-kit/code-index/` (default 2,000; configuration R reads them but never writes).
   */
  keepAnalysesFrom?: number;
}

/** Folder of the kept syntax analyses under the hidden app folder. */
const KEPT_ANALYSES_FOLDER = 'code-index';
/** A kept document larger than this is not read back (10–15 MB per 50,000 small files). */
const MAX_KEPT_ANALYSES_BYTES = 128 * 1024 * 1024;

/** The code family bound to one workspace session. */
export interface CodeToolFamily extends ToolFamily {
  /** State, pid, restarts and memory of each registered language server. */
  languageServerStatus(): Promise<LanguageServerStatus[]>;
  /**
   * What a write broke: the errors and warnings that appeared in the written files (workspace-
   * relative) per their language servers, within a time budget (default 2 s), or files pending.
   * Undefined when no server covers any of them. The catalogue calls it after workspace writes.
   */
  diagnosticsAfterWrite(
    paths: readonly string[],
    options?: { budgetMs?: number; signal?: AbortSignal },
  ): Promise<WriteDiagnostics | undefined>;
}

/**
 * Creates the code intelligence tools for one workspace session, in SPEC 4.4 order: file_outline,
 * repo_map, code_workspace_symbols, code_document_symbols, code_find_definition,
 * code_find_references, code_diagnostics, code_project_profile, code_related_tests, run_tests,
 * code_intelligence. Language servers start on first use and stop with `close()`.
 *
 * @example
 * const workspace = await Workspace.open('/srv/project');
 * const code = createCodeTools({ workspace });
 * const runtime = new ToolRuntime({ workspace, tools: code.tools });
 * console.log(await runtime.call('code_find_definition', { symbol: 'createServer' }));
 * await code.close();
 */
export function createCodeTools(options: CodeToolsOptions): CodeToolFamily {
  return createCodeToolsWithContext(options).family;
}

/**
 * The family together with the context its tools share. Internal (not exported from the package
 * root): benchmarks use it to send requests to the very server the tools use.
 */
export function createCodeToolsWithContext(options: CodeToolsOptions): {
  family: CodeToolFamily;
  context: CodeContext;
} {
  const workspace = options.workspace;
  const allowApply = options.allowApply ?? !workspace.readOnly;
  const pool = new LanguageServerPool(workspace.root, mergeRegistrations(options.languageServers), {
    startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    maxRestarts: options.maxServerRestarts ?? 5,
    restartWindowMs: 10 * 60_000,
    settingsFor: (registration) => pythonServerSettings(workspace, registration),
  });
  const context: CodeContext = {
    workspace,
    syntax: new SyntaxIndex(workspace.root, {
      watch: options.watchFiles ?? true,
      kept: keepStateIn(workspace, {
        folder: KEPT_ANALYSES_FOLDER,
        file: 'analyses.json',
        maxBytes: MAX_KEPT_ANALYSES_BYTES,
      }),
      ...(options.keepAnalysesFrom === undefined ? {} : { keepFrom: options.keepAnalysesFrom }),
      ...(options.analysisWorkers === undefined ? {} : { analysisWorkers: options.analysisWorkers }),
    }),
    languages: new LanguageService(workspace, pool, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    pool,
    diagnosticsTimeoutMs: options.diagnosticsTimeoutMs ?? 20_000,
    recentWrites: new RecentWrites(),
  };
  const stopNotingWrites = workspace.onAfterWrite((files) =>
    context.recentWrites.note(files.map((file) => file.path)),
  );
  const tokens = new EditTokenStore();
  let closing: Promise<void> | undefined;
  const family: CodeToolFamily = {
    tools: [
      fileOutlineTool(context),
      repoMapTool(context),
      codeWorkspaceSymbolsTool(context),
      codeDocumentSymbolsTool(context),
      codeFindDefinitionTool(context),
      codeFindReferencesTool(context),
      codeDiagnosticsTool(context),
      codeProjectProfileTool(context),
      codeRelatedTestsTool(context),
      runTestsTool(context),
      codeIntelligenceTool(context, tokens, allowApply),
    ],
    languageServerStatus: () => pool.status(),
    diagnosticsAfterWrite: (paths, writeOptions) =>
      diagnosticsAfterWrite(context, paths, {
        budgetMs: options.writeDiagnosticsBudgetMs ?? DEFAULT_WRITE_DIAGNOSTICS_BUDGET_MS,
        ...writeOptions,
      }),
    close: () => {
      closing ??= (async () => {
        stopNotingWrites();
        tokens.clear();
        await context.syntax.close();
        await pool.close();
      })();
      return closing;
    },
  };
  return { family, context };
}
