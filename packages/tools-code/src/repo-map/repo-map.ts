import path from 'node:path';
import type { CodeContext } from '../engine/code-context.js';
import { throwIfCancelled } from '../errors.js';
import { isAssetPath, languageOfPath } from '../languages.js';
import { detectProjectProfile, readWorkspaceText } from '../project/project-profile.js';
import { frameworkFor } from '../project/related-tests.js';
import { isTestFile, isTestSupportFile } from '../project/test-files.js';
import { isTestRunner, selectionArgv, type TestRunner } from '../project/test-runners.js';
import type { RepoMapSection } from '../schemas.js';
import { ownersOf, parseCodeowners } from './codeowners.js';
import { ReferenceGraph } from './reference-graph.js';

export interface RepoMapOptions {
  scope?: string;
  include: readonly RepoMapSection[];
  maxFiles: number;
  maxSymbols: number;
  maxResults: number;
  signal?: AbortSignal;
}

interface Ranking {
  fingerprint: string;
  ranks: Map<string, number>;
  importedBy: Map<string, number>;
}

/**
 * Remembers the reference graph and last ranking per scope: the ranking is reused while no file
 * changed, and the graph is patched rather than rebuilt when a few files changed.
 */
export class RepoMapCache {
  readonly #rankings = new Map<string, Ranking>();
  readonly #graphs = new Map<string, ReferenceGraph>();
  /** The last rendered map, reused while the files and the options are the same. */
  rendered: { key: string; map: { text: string; structured: Record<string, unknown> } } | undefined;

  get(scope: string, fingerprint: string): Ranking | undefined {
    const ranking = this.#rankings.get(scope);
    return ranking?.fingerprint === fingerprint ? ranking : undefined;
  }

  set(scope: string, ranking: Ranking): void {
    this.#rankings.set(scope, ranking);
  }

  graph(scope: string): ReferenceGraph {
    let graph = this.#graphs.get(scope);
    if (graph === undefined) {
      // One graph per scope; a session rarely maps more than a few scopes.
      if (this.#graphs.size >= 8) this.#graphs.clear();
      graph = new ReferenceGraph();
      this.#graphs.set(scope, graph);
    }
    return graph;
  }
}

const INSTRUCTION_FILES =
  /^(README(\.[a-z]+)?|AGENTS\.md|CLAUDE\.md|GEMINI\.md|CONTRIBUTING\.md|CONVENTIONS\.md|\.cursorrules|\.windsurfrules|copilot-instructions\.md)$/i;
const NESTED_INSTRUCTION_FILES = /^(AGENTS\.md|CLAUDE\.md)$/;
const ENTRYPOINT_PATTERNS = [
  /^(src\/)?(index|main|app|server|cli)\.[cm]?[jt]sx?$/,
  /^[^/]+\/(src\/)?(index|main|app|server|cli)\.[cm]?[jt]sx?$/,
  /(^|\/)(__main__|main|app|manage|wsgi|asgi)\.py$/,
  /(^|\/)main\.go$/,
  /(^|\/)src\/(main|lib)\.rs$/,
  /^([^/]+\/)?index\.html?$/,
];

/** Characters of an instruction file's summary. */
const SUMMARY_CHARACTERS = 200;

/**
 * What a README or instructions file is about: its first prose paragraph. HTML blocks, badges,
 * headings, code fences, tables and link-only lines are skipped (a README often opens with a logo
 * in HTML and a row of badges); a blockquote tagline counts as prose.
 */
export function proseSummary(text: string): string {
  const withoutHtml = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/^<(\w+)[^>]*>[\s\S]*?^<\/\1>\s*$/gm, '');
  const paragraphs = withoutHtml.split(/\n\s*\n/);
  for (const paragraph of paragraphs) {
    const lines = paragraph
      .split('\n')
      .map((line) => line.trim().replace(/^>\s?/, ''))
      .filter(
        (line) =>
          line !== '' &&
          !/^</.test(line) &&
          !/^#{1,6}\s/.test(line) &&
          !/^[|=-]/.test(line) &&
          !/^(\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)\s*|!\[[^\]]*\]\([^)]*\)\s*|\[[^\]]*\]\([^)]*\)\s*)+$/.test(
            line,
          ),
      );
    const prose = lines
      .join(' ')
      .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (/[A-Za-z]{3,}/.test(prose))
      return prose.length > SUMMARY_CHARACTERS ? `${prose.slice(0, SUMMARY_CHARACTERS - 1)}…` : prose;
  }
  return '';
}

function packageEntrypoints(
  folder: string,
  json: Record<string, unknown>,
  files: ReadonlySet<string>,
): { path: string; reason: string }[] {
  const found: { path: string; reason: string }[] = [];
  const add = (value: unknown, reason: string) => {
    if (typeof value === 'string') {
      const joined = path.posix.normalize(path.posix.join(folder, value));
      if (files.has(joined)) found.push({ path: joined, reason });
      else {
        const source = joined.replace(/^(.*\/)?dist\//, '$1src/').replace(/\.(m|c)?js$/, '.ts');
        if (files.has(source)) found.push({ path: source, reason: `${reason} (source of ${joined})` });
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, nested] of Object.entries(value)) if (key !== 'types') add(nested, reason);
    }
  };
  add(json.main, 'package.json main');
  add(json.module, 'package.json module');
  add(json.bin, 'package.json bin');
  add(json.exports, 'package.json exports');
  return found;
}

/** Builds the repo map's sections; returns text for the model and the same facts structured. */
export async function buildRepoMap(
  context: CodeContext,
  cache: RepoMapCache,
  options: RepoMapOptions,
): Promise<{ text: string; structured: Record<string, unknown> }> {
  const scope = options.scope;
  const include = new Set(options.include);
  // Only modules, routes and next_files use symbols; the other sections need just the file list.
  const analyze = include.has('modules') || include.has('routes') || include.has('next_files');
  const snapshot = await context.syntax.refresh({
    ...(scope === undefined ? {} : { scope }),
    signal: options.signal,
    analyze,
  });
  throwIfCancelled(options.signal);
  const files = snapshot.files.map((file) => file.relative);
  const fileSet = new Set(files);
  const listed = new Map(snapshot.files.map((file) => [file.relative, file] as const));
  const scopeKey = scope ?? '.';
  const fingerprint = snapshot.fingerprint;
  const renderKey = JSON.stringify([
    fingerprint,
    scopeKey,
    [...include].sort(),
    options.maxFiles,
    options.maxSymbols,
    options.maxResults,
  ]);
  if (cache.rendered?.key === renderKey) {
    return {
      text: cache.rendered.map.text,
      structured: { ...cache.rendered.map.structured, reparsed_files: 0 },
    };
  }
  let ranking = cache.get(scopeKey, fingerprint);
  if (ranking === undefined && (include.has('next_files') || include.has('modules'))) {
    ranking = { fingerprint, ...cache.graph(scopeKey).rank(files, snapshot.analyses) };
    cache.set(scopeKey, ranking);
  }
  const rankOf = (file: string) => ranking?.ranks.get(file) ?? 0;
  const sections: string[] = [];
  const structured: Record<string, unknown> = {
    scope: scopeKey,
    files: files.length,
    truncated: snapshot.truncated,
    reparsed_files: snapshot.reparsed,
  };
  const testFiles = files.filter(isTestFile);
  const needsProfile = include.has('project') || include.has('tests');
  const profile = needsProfile ? await detectProjectProfile(context.workspace, snapshot.files) : undefined;

  if (include.has('project') && profile !== undefined) {
    const commands = profile.commands.slice(0, options.maxResults);
    structured.project = { ...profile, commands };
    sections.push(
      [
        '## project',
        ...(profile.description === undefined ? [] : [`${profile.name}: ${profile.description}`]),
        `${profile.name}: ${files.length} files${snapshot.truncated ? ' (walk capped)' : ''}; languages: ${profile.languages.map((language) => `${language.name} ${language.files}`).join(', ') || 'none'}`,
        `manifests: ${profile.manifests.join(', ') || 'none'}; package managers: ${profile.package_managers.join(', ') || 'none'}`,
        'commands:',
        ...commands.map(
          (command) =>
            `  ${command.command_id}: ${command.argv.join(' ')}${command.cwd === '.' ? '' : ` (in ${command.cwd})`}`,
        ),
      ].join('\n'),
    );
  }

  if (include.has('entrypoints')) {
    const entrypoints: { path: string; reason: string }[] = [];
    for (const manifest of files.filter(
      (file) => path.posix.basename(file) === 'package.json' && file.split('/').length <= 3,
    )) {
      const json = await readWorkspaceText(context.workspace, manifest, listed.get(manifest)).then((text) => {
        try {
          return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
        } catch {
          return undefined;
        }
      });
      if (json !== undefined)
        entrypoints.push(...packageEntrypoints(path.posix.dirname(manifest), json, fileSet));
    }
    const relativeToScope = (file: string) => (scope === undefined ? file : file.slice(scope.length + 1));
    for (const file of files) {
      if (!isTestFile(file) && ENTRYPOINT_PATTERNS.some((pattern) => pattern.test(relativeToScope(file))))
        entrypoints.push({ path: file, reason: 'conventional entry file name' });
    }
    const firstByPath = new Map<string, { path: string; reason: string }>();
    for (const entry of entrypoints) if (!firstByPath.has(entry.path)) firstByPath.set(entry.path, entry);
    const unique = [...firstByPath.values()].slice(0, options.maxResults);
    structured.entrypoints = unique;
    sections.push(
      [
        '## entrypoints',
        ...unique.map((entry) => `  ${entry.path} (${entry.reason})`),
        ...(unique.length === 0 ? ['  (none found)'] : []),
      ].join('\n'),
    );
  }

  if (include.has('modules')) {
    const modules = new Map<string, string[]>();
    for (const file of files) {
      if (isAssetPath(file)) continue;
      const inside = scope === undefined ? file : file.slice(scope.length + 1);
      const parts = inside.split('/');
      const moduleName =
        parts.length === 1 ? '.' : parts.length === 2 ? parts[0]! : `${parts[0]}/${parts[1]}`;
      const key = scope === undefined || moduleName === '.' ? moduleName : `${scope}/${moduleName}`;
      const list = modules.get(key) ?? [];
      list.push(file);
      modules.set(key, list);
    }
    const moduleRank = new Map(
      [...modules].map(([name, moduleFiles]) => [
        name,
        moduleFiles.reduce((sum, file) => sum + rankOf(file), 0),
      ]),
    );
    const ordered = [...modules].sort((a, b) => moduleRank.get(b[0])! - moduleRank.get(a[0])!);
    let filesLeft = options.maxFiles;
    let symbolsLeft = options.maxSymbols;
    const lines = ['## modules'];
    const moduleRecords: unknown[] = [];
    for (const [name, moduleFiles] of ordered) {
      const languages = [
        ...new Set(
          moduleFiles.map((file) => languageOfPath(file)?.name).filter((language) => language !== undefined),
        ),
      ];
      lines.push(
        `${name === '.' ? '(root)' : `${name}/`} ${moduleFiles.length} files${languages.length > 0 ? `, ${languages.join(', ')}` : ''}`,
      );
      const fileRecords: unknown[] = [];
      for (const file of [...moduleFiles].sort((a, b) => rankOf(b) - rankOf(a))) {
        if (filesLeft <= 0) break;
        const symbols = (snapshot.analyses.get(file)?.symbols ?? [])
          .filter((symbol) => symbol.kind !== 'key' || symbol.container === undefined)
          .sort(
            (a, b) =>
              Number(b.exported ?? false) - Number(a.exported ?? false) ||
              Number(a.container !== undefined) - Number(b.container !== undefined),
          );
        const shown = symbols.slice(0, Math.max(0, Math.min(symbolsLeft, 12)));
        symbolsLeft -= shown.length;
        filesLeft--;
        const names = shown.map(
          (symbol) =>
            `${symbol.kind} ${symbol.container === undefined ? '' : `${symbol.container}.`}${symbol.name}`,
        );
        lines.push(
          `  ${file}${names.length > 0 ? `: ${names.join(', ')}` : ''}${symbols.length > shown.length ? ` (+${symbols.length - shown.length})` : ''}`,
        );
        fileRecords.push({
          path: file,
          symbols: shown.map((symbol) => ({
            name: symbol.name,
            kind: symbol.kind,
            line: symbol.line,
            ...(symbol.container === undefined ? {} : { container: symbol.container }),
          })),
          symbol_total: symbols.length,
        });
      }
      moduleRecords.push({ name, files: moduleFiles.length, languages, listed: fileRecords });
      if (filesLeft <= 0) {
        lines.push(`[more files omitted: raise max_files (${options.maxFiles}) or narrow scope]`);
        break;
      }
    }
    structured.modules = moduleRecords;
    sections.push(lines.join('\n'));
  }

  if (include.has('routes')) {
    const routes: { method: string; path: string; file: string; line?: number }[] = [];
    // Routes of test servers and test helpers are not the application's.
    const inTests = (file: string) =>
      isTestFile(file) || isTestSupportFile(file) || /(^|\/)(test|tests|__tests__|spec|e2e)\//.test(file);
    for (const [file, analysis] of snapshot.analyses) {
      if (inTests(file)) continue;
      for (const route of analysis.routes) routes.push({ ...route, file });
    }
    for (const file of files) {
      if (inTests(file)) continue;
      const next = /(^|\/)app\/(.*\/)?(page|route)\.[cm]?[jt]sx?$/.exec(file);
      if (next !== null) {
        routes.push({
          method: next[3] === 'page' ? 'PAGE' : 'ANY',
          path: `/${(next[2] ?? '').replace(/\/$/, '').replace(/\([^)]*\)\/?/g, '')}`,
          file,
        });
        continue;
      }
      const pages = /(^|\/)pages\/(.+)\.[cm]?[jt]sx?$/.exec(file);
      if (pages !== null && !/^_/.test(path.posix.basename(pages[2]!))) {
        routes.push({
          method: pages[2]!.startsWith('api/') ? 'ANY' : 'PAGE',
          path: `/${pages[2]!.replace(/(^|\/)index$/, '')}`,
          file,
        });
        continue;
      }
      if (/\.html?$/i.test(file) && !isTestFile(file))
        routes.push({ method: 'PAGE', path: `/${file.replace(/(^|\/)index\.html?$/i, '$1')}`, file });
    }
    routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
    const kept = routes.slice(0, options.maxResults);
    structured.routes = kept;
    sections.push(
      [
        '## routes',
        ...kept.map(
          (route) =>
            `  ${route.method} ${route.path}  ${route.file}${route.line === undefined ? '' : `:${route.line}`}`,
        ),
        ...(routes.length > kept.length
          ? [`  [${routes.length - kept.length} more: raise max_results]`]
          : []),
        ...(routes.length === 0 ? ['  (none found)'] : []),
      ].join('\n'),
    );
  }

  if (include.has('assets')) {
    const assets = files.filter(isAssetPath);
    const byFolder = new Map<string, number>();
    for (const asset of assets)
      byFolder.set(path.posix.dirname(asset), (byFolder.get(path.posix.dirname(asset)) ?? 0) + 1);
    const kept = assets.slice(0, options.maxFiles);
    structured.assets = { total: assets.length, folders: Object.fromEntries(byFolder), files: kept };
    sections.push(
      [
        '## assets',
        `${assets.length} asset files in ${byFolder.size} folders: ${
          [...byFolder]
            .map(([folder, count]) => `${folder}/ (${count})`)
            .slice(0, 20)
            .join(', ') || 'none'
        }`,
        ...kept.map((asset) => `  ${asset}`),
      ].join('\n'),
    );
  }

  if (include.has('tests')) {
    const kept = testFiles.slice(0, options.maxResults);
    const frameworks = profile?.test_frameworks ?? [];
    const commands = (profile?.commands ?? []).filter((command) => command.kind === 'test');
    // How to run one test file, the first thing a newcomer wants after the list.
    const example = testFiles
      .map((file) => ({ file, command: profile === undefined ? undefined : frameworkFor(file, profile) }))
      .find((entry) => entry.command !== undefined && isTestRunner(entry.command.framework));
    const exampleArgv =
      example === undefined
        ? undefined
        : selectionArgv(example.command!.framework as TestRunner, example.command!.argv, {
            files: [
              example.command!.cwd === '.'
                ? example.file
                : path.posix.relative(example.command!.cwd, example.file),
            ],
          });
    structured.tests = {
      total: testFiles.length,
      files: kept,
      frameworks,
      commands: commands.map((command) => command.command_id),
      ...(exampleArgv === undefined ? {} : { run_one_file: { path: example!.file, argv: exampleArgv } }),
    };
    sections.push(
      [
        '## tests',
        `${testFiles.length} test files; frameworks: ${frameworks.map((framework) => framework.name).join(', ') || 'none detected'}; commands: ${commands.map((command) => command.command_id).join(', ') || 'none'}`,
        ...(exampleArgv === undefined
          ? []
          : [`one file: run_tests path=${example!.file} (runs ${exampleArgv.join(' ')})`]),
        ...kept.map((file) => `  ${file}`),
        ...(testFiles.length > kept.length
          ? [`  [${testFiles.length - kept.length} more: raise max_results]`]
          : []),
      ].join('\n'),
    );
  }

  if (include.has('ownership')) {
    let text: string | undefined;
    let source: string | undefined;
    for (const candidate of ['CODEOWNERS', '.github/CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS']) {
      // Through the Workspace: a CODEOWNERS symlinked out of the workspace is not read.
      text = fileSet.has(candidate)
        ? await readWorkspaceText(context.workspace, candidate, listed.get(candidate))
        : undefined;
      if (text !== undefined) {
        source = candidate;
        break;
      }
    }
    if (text === undefined || source === undefined) {
      structured.ownership = { source: null, rules: [] };
      sections.push('## ownership\n  (no CODEOWNERS file)');
    } else {
      const rules = parseCodeowners(text);
      const folders = [
        ...new Set(files.map((file) => (file.includes('/') ? file.split('/')[0]! : '.'))),
      ].slice(0, options.maxResults);
      const owned = folders.map((folder) => ({
        path: folder === '.' ? '(root files)' : `${folder}/`,
        owners: ownersOf(rules, folder === '.' ? 'x' : `${folder}/x`) ?? [],
      }));
      structured.ownership = { source, rules: rules.slice(0, options.maxResults), folders: owned };
      sections.push(
        [
          '## ownership',
          `from ${source}:`,
          ...owned.map((entry) => `  ${entry.path}: ${entry.owners.join(' ') || '(no owner)'}`),
        ].join('\n'),
      );
    }
  }

  if (include.has('instructions')) {
    const instructions: { path: string; summary: string; bytes: number }[] = [];
    for (const file of snapshot.files) {
      const name = path.posix.basename(file.relative);
      const depth = file.relative.split('/').length;
      const isRootLevel =
        depth === 1 ||
        file.relative.startsWith('.github/') ||
        (scope !== undefined && file.relative === `${scope}/${name}`);
      if (
        (isRootLevel && INSTRUCTION_FILES.test(name)) ||
        NESTED_INSTRUCTION_FILES.test(name) ||
        file.relative.startsWith('.cursor/rules/')
      ) {
        const text = (await readWorkspaceText(context.workspace, file.relative, file)) ?? '';
        instructions.push({ path: file.relative, summary: proseSummary(text), bytes: file.size });
      }
    }
    const kept = instructions.slice(0, options.maxResults);
    structured.instructions = kept;
    sections.push(
      [
        '## instructions',
        ...kept.map((entry) => `  ${entry.path} (${entry.bytes} bytes): ${entry.summary}`),
        ...(kept.length === 0 ? ['  (none found)'] : []),
      ].join('\n'),
    );
  }

  if (include.has('next_files')) {
    const candidates = files.filter((file) => languageOfPath(file)?.code === true && !isTestFile(file));
    const ranked = candidates
      .sort((a, b) => rankOf(b) - rankOf(a) || a.localeCompare(b))
      .slice(0, options.maxResults);
    const next = ranked.map((file) => {
      const importedBy = ranking?.importedBy.get(file) ?? 0;
      const symbols = (snapshot.analyses.get(file)?.symbols ?? [])
        .filter((symbol) => symbol.container === undefined)
        .map((symbol) => symbol.name)
        .slice(0, 5);
      const reason = [
        importedBy > 0 ? `imported by ${importedBy}` : undefined,
        symbols.length > 0 ? `defines ${symbols.join(', ')}` : undefined,
      ]
        .filter(Boolean)
        .join('; ');
      return { path: file, rank: Number(rankOf(file).toFixed(5)), reason };
    });
    structured.next_files = next;
    sections.push(
      [
        '## next_files (most central first)',
        ...next.map((entry) => `  ${entry.path}${entry.reason === '' ? '' : ` (${entry.reason})`}`),
      ].join('\n'),
    );
  }

  const header = `Repo map of ${scope === undefined ? 'the workspace' : scope}: ${files.length} files${snapshot.truncated ? ' (walk capped)' : ''}.`;
  const map = { text: [header, ...sections].join('\n\n'), structured };
  cache.rendered = { key: renderKey, map };
  return map;
}
