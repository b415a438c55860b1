import { setMaxListeners } from 'node:events';
import { defineTool, isToolError, textResult } from '@assistant-kit/tool-core';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import type { CodeContext, EngineName } from '../engine/code-context.js';
import type { OpenedDocument } from '../engine/language-service.js';
import { boundedCount, throwIfCancelled } from '../errors.js';
import { globMatcher } from '../files/glob.js';
import { acceptsTrailingCommas, languageOfPath } from '../languages.js';
import { severityName } from '../lsp/conversions.js';
import { SCHEMA_NOT_DOWNLOADED } from '../lsp/language-server-process.js';
import { joinCapped } from '../output/format.js';
import { isTestCode } from '../project/test-files.js';
import { unreadTypeScriptSettings } from '../project/typescript-settings.js';
import { isApplicationCode } from '../repo-map/application-code.js';
import { CodeDiagnosticsParameters } from '../schemas.js';
import { hasSyntaxSupport } from '../syntax/analyze-file.js';

/** Most unresolved paths listed one by one (the rest are counted). */
const UNRESOLVED_LIST_CAP = 100;
/** Quiet period after a server's last publish before its diagnostics count as complete. */
const DIAGNOSTICS_QUIET_MS = 400;

interface Problem {
  path: string;
  line: number;
  character: number;
  severity: 'error' | 'warning' | 'information' | 'hint';
  message: string;
  source: string;
  code?: string | number;
  engine: EngineName;
}

function fromLsp(path: string, diagnostic: Diagnostic, server: string): Problem {
  return {
    path,
    line: diagnostic.range.start.line + 1,
    character: diagnostic.range.start.character + 1,
    severity: severityName(diagnostic.severity),
    message: typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value,
    source: diagnostic.source ?? server,
    ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
    engine: 'language_server',
  };
}

/** code_diagnostics: language-server diagnostics plus syntax checks; never changes a file. */
export function codeDiagnosticsTool(context: CodeContext) {
  return defineTool({
    name: 'code_diagnostics',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 23,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Returns language-server diagnostics, available syntax checks, checked paths, and unresolved paths with their coverage limits; changes no files.',
    parameters: CodeDiagnosticsParameters,
    effects: ['read'],
    network: 'none',
    handler: async ({ glob, max_files }, { signal, reportProgress }) => {
      const fileLimit = boundedCount('max_files', max_files, 50, 1_000);
      const matchesGlob = globMatcher(glob);
      const snapshot = await context.syntax.refresh({ signal, filter: matchesGlob });
      const unresolved: { path: string; reason: string }[] = [];
      const checkable: string[] = [];
      for (const file of snapshot.files) {
        if (!matchesGlob(file.relative)) continue;
        const language = languageOfPath(file.relative);
        const server = context.languages.serverFor(file.relative);
        if (server !== undefined || hasSyntaxSupport(language)) {
          if (language?.languageId === 'markdown' && server === undefined) continue;
          checkable.push(file.relative);
        } else if (language?.code) {
          unresolved.push({
            path: file.relative,
            reason: `no language server or grammar for ${language.name}`,
          });
        }
      }
      // What this session wrote first (most recent first), then the project's code, its tests, and
      // the rest (configuration, examples, tool folders), each in path order: a capped check looks
      // at the agent's own edits first, and then at the code. On trpc, the first 50 files in path
      // order were `.github/`, `.vscode/` and `examples/`.
      const written = new Set(context.recentWrites.mostRecentFirst());
      const checkableSet = new Set(checkable);
      const tier = (path: string) =>
        languageOfPath(path)?.code !== true ? 3 : isApplicationCode(path) ? 0 : isTestCode(path) ? 1 : 2;
      const ordered = [
        ...[...written].filter((path) => checkableSet.has(path)),
        ...checkable
          .filter((path) => !written.has(path))
          .map((path) => ({ path, tier: tier(path) }))
          .sort((a, b) => a.tier - b.tier)
          .map(({ path }) => path),
      ];
      const checked = ordered.slice(0, fileLimit);
      for (const path of ordered.slice(fileLimit)) {
        unresolved.push({ path, reason: `too many files: over max_files (${fileLimit})` });
      }
      if (snapshot.truncated)
        unresolved.push({ path: '.', reason: 'too many files: the workspace walk stopped at its cap' });

      const problems: Problem[] = [];
      const engines = new Map<string, EngineName>();
      const notes: string[] = [];
      const opened: { document: OpenedDocument; server: string }[] = [];
      const serverFailed = new Set<string>();
      /** JSON files checked without the schema they name (the check against it did not happen). */
      const schemaNotLoaded: { path: string; schema: string; reason: string }[] = [];
      let done = 0;
      for (const path of checked) {
        throwIfCancelled(signal);
        const server = context.languages.serverFor(path);
        const registration =
          server === undefined ? undefined : context.pool.registrations.find((entry) => entry.id === server);
        if (server !== undefined && registration?.publishesDiagnostics !== false) {
          try {
            opened.push({ document: await context.languages.open(path), server });
            engines.set(path, 'language_server');
          } catch (error) {
            if (isToolError(error, 'CANCELLED')) throw error;
            serverFailed.add(path);
            notes.push(
              `${path}: the ${server} language server failed (${(error as Error).message}); syntax checks only.`,
            );
          }
        }
        const analysis = snapshot.analyses.get(path);
        if (!engines.has(path) && analysis !== undefined) {
          engines.set(path, 'syntax');
          for (const problem of analysis.syntaxProblems) {
            problems.push({ path, ...problem, severity: 'error', source: 'syntax', engine: 'syntax' });
          }
        }
        if (!engines.has(path))
          unresolved.push({ path, reason: 'the language server failed and no grammar covers it' });
      }
      // One listener per request in flight on the call's signal (three per TypeScript file).
      setMaxListeners(Math.max(10, opened.length * 4), signal);
      /** Server-covered files the server gave no answer for (they got syntax checks only). */
      const unanswered: string[] = [];
      const fallBackToSyntax = (relative: string) => {
        unanswered.push(relative);
        engines.set(relative, 'syntax');
        for (const problem of snapshot.analyses.get(relative)?.syntaxProblems ?? []) {
          problems.push({
            path: relative,
            ...problem,
            severity: 'error',
            source: 'syntax',
            engine: 'syntax',
          });
        }
      };
      for (const path of checked) if (serverFailed.has(path)) unanswered.push(path);
      await Promise.all(
        opened.map(async ({ document, server }) => {
          let diagnostics: Diagnostic[] | undefined;
          try {
            diagnostics = await context.languages.currentDiagnostics(document, {
              timeoutMs: context.diagnosticsTimeoutMs,
              quietMs: DIAGNOSTICS_QUIET_MS,
              signal,
            });
          } catch (error) {
            if (isToolError(error, 'CANCELLED')) throw error;
            notes.push(
              `${document.relative}: the ${server} language server failed (${(error as Error).message}).`,
            );
            done++;
            fallBackToSyntax(document.relative);
            return;
          }
          done++;
          reportProgress({ progress: done, total: opened.length, message: `checked ${document.relative}` });
          if (diagnostics === undefined) {
            notes.push(
              `${document.relative}: the ${server} language server published no diagnostics within ${context.diagnosticsTimeoutMs} ms.`,
            );
            fallBackToSyntax(document.relative);
            return;
          }
          for (const diagnostic of diagnostics) {
            const problem = fromLsp(document.relative, diagnostic, server);
            if (server === 'json') {
              // A schema the JSON server could not load is a check that did not happen, not a
              // problem of the file: said in a note, and not counted.
              const schema = /^Unable to load schema from '([^']+)'/.exec(problem.message);
              if (schema !== null) {
                const reason = problem.message.includes(SCHEMA_NOT_DOWNLOADED)
                  ? SCHEMA_NOT_DOWNLOADED
                  : problem.message.slice(schema[0].length).replace(/^[:\s]+/, '');
                schemaNotLoaded.push({ path: document.relative, schema: schema[1]!, reason });
                continue;
              }
              // TypeScript and VS Code read their configurations with trailing commas allowed.
              if (String(problem.code) === '519' && acceptsTrailingCommas(document.relative)) continue;
            }
            problems.push(problem);
          }
        }),
      );
      throwIfCancelled(signal);
      // Files TypeScript checked under a config whose `extends` it could not read: with its
      // defaults in place of the project's settings, its errors may come from that alone.
      const typeScriptChecked = opened
        .filter(({ document, server }) => server === 'typescript' && !unanswered.includes(document.relative))
        .map(({ document }) => document.relative);
      const unreadSettings =
        typeScriptChecked.length === 0
          ? []
          : await unreadTypeScriptSettings(
              context.workspace,
              typeScriptChecked,
              new Map(snapshot.files.map((file) => [file.relative, file])),
            );
      problems.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.character - b.character);
      const counts = { error: 0, warning: 0, information: 0, hint: 0 };
      for (const problem of problems) counts[problem.severity]++;
      const incomplete =
        unanswered.length === 0
          ? ''
          : `INCOMPLETE: ${unanswered.length} of ${checked.length} files got no answer from their language server (type errors there are unknown; only syntax was checked): ${unanswered.slice(0, 5).join(', ')}${unanswered.length > 5 ? ', …' : ''}. `;
      const unreadText =
        unreadSettings.length === 0
          ? ''
          : `INCOMPLETE: TypeScript could not read the project's settings (${unreadSettings
              .slice(0, 3)
              .map((setting) => `${setting.config} extends "${setting.extends}", ${setting.reason}`)
              .join(
                '; ',
              )}${unreadSettings.length > 3 ? '; …' : ''}), so it checked with its defaults and errors below may come from that alone; install the project's dependencies for a faithful check. `;
      // Files no server checks at all (Go, YAML, HTML…): a count of 0 errors there says nothing of
      // types or builds. On spf13/pflag, "11 files checked: 0 errors" read like a compiled package.
      const syntaxOnly = checked.filter(
        (path) => engines.get(path) === 'syntax' && !unanswered.includes(path),
      );
      const syntaxOnlyLanguages = [
        ...new Set(syntaxOnly.map((path) => languageOfPath(path)?.name ?? path.slice(path.lastIndexOf('.')))),
      ];
      const syntaxOnlyText =
        syntaxOnly.length === 0
          ? ''
          : ` (${syntaxOnly.length === checked.length ? 'all' : `${syntaxOnly.length}`} for syntax only: no language server checks ${syntaxOnlyLanguages.join(', ')} here, so type and build errors there are not found)`;
      const schemaText =
        schemaNotLoaded.length === 0
          ? ''
          : ` (${schemaNotLoaded.length} JSON file${schemaNotLoaded.length === 1 ? '' : 's'} without the schema ${schemaNotLoaded.length === 1 ? 'it names' : 'they name'}: ${schemaNotLoaded[0]!.reason})`;
      for (const entry of schemaNotLoaded)
        notes.push(
          `${entry.path}: its JSON schema (${entry.schema}) was not loaded, so it was checked as JSON only.`,
        );
      const lines = [
        `${unreadText}${incomplete}${ordered.length > checked.length ? `${checked.length} of ${ordered.length} files checked (max_files ${fileLimit})` : `${checked.length} files checked`}${syntaxOnlyText}${schemaText}: ${counts.error} errors, ${counts.warning} warnings, ${counts.information + counts.hint} notes; ${unresolved.length} unresolved.`,
        ...problems.map(
          (problem) =>
            `${problem.path}:${problem.line}:${problem.character} ${problem.severity} [${problem.source}${problem.code === undefined ? '' : ` ${problem.code}`}] ${problem.message.split('\n')[0]}`,
        ),
      ];
      if (unresolved.length > 0) {
        lines.push('Unresolved:');
        for (const entry of unresolved.slice(0, UNRESOLVED_LIST_CAP))
          lines.push(`  ${entry.path}: ${entry.reason}`);
        if (unresolved.length > UNRESOLVED_LIST_CAP)
          lines.push(`  [${unresolved.length - UNRESOLVED_LIST_CAP} more unresolved paths]`);
      }
      for (const note of notes) lines.push(`Note: ${note}`);
      const body = joinCapped(lines);
      return textResult(body.text, {
        diagnostics: problems,
        counts,
        checked: checked.map((path) => ({ path, engine: engines.get(path) ?? 'syntax' })),
        unresolved: unresolved.slice(0, 1_000),
        unresolved_total: unresolved.length,
        ...(notes.length > 0 ? { notes } : {}),
        complete: unanswered.length === 0 && unreadSettings.length === 0,
        ...(unanswered.length > 0 ? { unanswered } : {}),
        ...(syntaxOnly.length > 0 ? { syntax_only: syntaxOnly.slice(0, 1_000) } : {}),
        ...(schemaNotLoaded.length > 0 ? { schema_not_loaded: schemaNotLoaded.slice(0, 1_000) } : {}),
        ...(unreadSettings.length > 0 ? { unread_settings: unreadSettings } : {}),
        truncated: body.truncated,
      });
    },
  });
}
