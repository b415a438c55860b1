import { isAssetPath, languageOfPath } from '../../languages.js';
import type { CodeSymbol } from '../../syntax/symbols.js';
import { isApplicationCode } from '../application-code.js';

import type { SectionInput } from './section.js';

/** The modules section: the modules (top folders), most central first, with their most referenced symbols. */
export async function modulesSection(input: SectionInput): Promise<void> {
  const { options, scope, files, rankOf, structured, sections } = input;
  const { modules, languagesOf } = input.derived('modules', () => groupIntoModules(files, scope));
  // A module ranks by its application code, and lists it before its tests and fixtures: summed
  // over every file, a parser's 13,000 fixture inputs put it first and filled its listing. Code
  // first, then its other files: immer's 27 translated documentation pages (website/i18n/)
  // ranked above src/core/, its five central modules, by their number alone.
  const rankSum = (moduleFiles: readonly string[]) =>
    moduleFiles.reduce((sum, file) => sum + rankOf(file), 0);
  const ordered = [...modules]
    .map(([name, parts]) => ({
      name,
      parts,
      code: rankSum(parts.applicationCode),
      other: rankSum(parts.applicationOther),
    }))
    .sort((first, second) => second.code - first.code || second.other - first.other);
  // Listed: application code first, each part most central first (a stable sort, so ties keep
  // the listing's order). Only the modules the listing reaches are sorted: each map after a change
  // sorted all 50,000 files of the generated tree again, a third of its time.
  const listingOrderOf = (parts: ModuleFiles) => [
    ...byRank(parts.application, rankOf),
    ...byRank(parts.rest, rankOf),
  ];
  const listedModules: { name: string; parts: ModuleFiles; listed: string[] }[] = [];
  let toList = Math.max(0, options.maxFiles);
  for (const { name, parts } of ordered) {
    const listed = toList > 0 ? listingOrderOf(parts).slice(0, toList) : [];
    listedModules.push({ name, parts, listed });
    toList -= listed.length;
    if (toList <= 0) break;
  }
  // The map's refresh leaves files that hold only keys (JSON, YAML) and fixtures unparsed, since
  // its ranking reads nothing of theirs: the few it lists are parsed now, for their symbols.
  const analyses = await input.analysesOf(listedModules.flatMap(({ listed }) => listed));
  let filesLeft = options.maxFiles;
  let symbolsLeft = options.maxSymbols;
  const lines = ['## modules'];
  const moduleRecords: unknown[] = [];
  for (const { name, parts, listed } of listedModules) {
    const languages = languagesOf.get(name)!;
    lines.push(
      `${name === '.' ? '(root)' : `${name}/`} ${parts.count} files${languages.length > 0 ? `, ${languages.join(', ')}` : ''}`,
    );
    const fileRecords: unknown[] = [];
    for (const file of listed) {
      if (filesLeft <= 0) break;
      const symbols = symbolsToList(analyses.get(file)?.symbols ?? [], (name) =>
        input.usesOfName(file, name),
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
    moduleRecords.push({ name, files: parts.count, languages, listed: fileRecords });
    if (filesLeft <= 0) {
      lines.push(`[more files omitted: raise max_files (${options.maxFiles}) or narrow scope]`);
      break;
    }
  }
  structured.modules = moduleRecords;
  sections.push(lines.join('\n'));
}

/**
 * A file's symbols in the order the map lists them: exported ones first, then top-level ones,
 * each group most used by other files first, then names without a leading underscore (Python
 * marks no exports, so its private helpers and `__version__` would otherwise lead), then source
 * order. A name defined twice the same way (a constant set in `try` and again in `except`) is
 * listed once. Keys and list items nested in a document are left out (a playbook lists its plays,
 * not their tasks).
 */
export function symbolsToList(
  symbols: readonly CodeSymbol[],
  usesOfName: (name: string) => number,
): CodeSymbol[] {
  const seen = new Set<string>();
  const distinct: { symbol: CodeSymbol; uses: number; order: number }[] = [];
  for (const symbol of symbols) {
    if ((symbol.kind === 'key' || symbol.kind === 'item') && symbol.container !== undefined) continue;
    const identity = `${symbol.kind} ${symbol.container ?? ''}.${symbol.name}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    // Only top-level names link files (ReferenceGraph); a member's uses are not counted.
    const uses = symbol.container === undefined ? usesOfName(symbol.name) : 0;
    distinct.push({ symbol, uses, order: distinct.length });
  }
  const leadingUnderscore = (symbol: CodeSymbol) => Number(symbol.name.startsWith('_'));
  return distinct
    .sort(
      (a, b) =>
        Number(b.symbol.exported ?? false) - Number(a.symbol.exported ?? false) ||
        Number(a.symbol.container !== undefined) - Number(b.symbol.container !== undefined) ||
        b.uses - a.uses ||
        leadingUnderscore(a.symbol) - leadingUnderscore(b.symbol) ||
        a.order - b.order,
    )
    .map(({ symbol }) => symbol);
}

/**
 * A module's files by what the listing needs of their paths, each list in the listing's order: the
 * application's files (see isApplicationCode), those of them in a programming language and the
 * others (the module's rank sums each), and the rest (tests, fixtures, tools' files).
 */
interface ModuleFiles {
  count: number;
  application: string[];
  applicationCode: string[];
  applicationOther: string[];
  rest: string[];
}

/** `files` most central first; files of the same rank keep their order. */
function byRank(files: readonly string[], rankOf: (file: string) => number): string[] {
  return files
    .map((file, order) => ({ file, rank: rankOf(file), order }))
    .sort((a, b) => b.rank - a.rank || a.order - b.order)
    .map(({ file }) => file);
}

/** Files by module (the top one or two folders), and each module's languages; assets left out. */
function groupIntoModules(
  files: readonly string[],
  scope: string | undefined,
): { modules: Map<string, ModuleFiles>; languagesOf: Map<string, string[]> } {
  const modules = new Map<string, ModuleFiles>();
  const languagesOf = new Map<string, string[]>();
  for (const file of files) {
    if (isAssetPath(file)) continue;
    const inside = scope === undefined ? file : file.slice(scope.length + 1);
    const parts = inside.split('/');
    const moduleName = parts.length === 1 ? '.' : parts.length === 2 ? parts[0]! : `${parts[0]}/${parts[1]}`;
    const key = scope === undefined || moduleName === '.' ? moduleName : `${scope}/${moduleName}`;
    let module = modules.get(key);
    if (module === undefined) {
      module = { count: 0, application: [], applicationCode: [], applicationOther: [], rest: [] };
      modules.set(key, module);
      languagesOf.set(key, []);
    }
    module.count++;
    const language = languageOfPath(file);
    if (!isApplicationCode(file, scope)) module.rest.push(file);
    else {
      module.application.push(file);
      (language?.code === true ? module.applicationCode : module.applicationOther).push(file);
    }
    const languages = languagesOf.get(key)!;
    if (language !== undefined && !languages.includes(language.name)) languages.push(language.name);
  }
  return { modules, languagesOf };
}
