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
  const rankOfFiles = (moduleFiles: readonly string[], code: boolean) =>
    moduleFiles.reduce(
      (sum, file) =>
        isApplicationCode(file, scope) && (languageOfPath(file)?.code === true) === code
          ? sum + rankOf(file)
          : sum,
      0,
    );
  const moduleRank = new Map(
    [...modules].map(([name, moduleFiles]) => [
      name,
      { code: rankOfFiles(moduleFiles, true), other: rankOfFiles(moduleFiles, false) },
    ]),
  );
  const listingOrder = (a: string, b: string) =>
    Number(isApplicationCode(b, scope)) - Number(isApplicationCode(a, scope)) || rankOf(b) - rankOf(a);
  const ordered = [...modules]
    .sort((a, b) => {
      const [first, second] = [moduleRank.get(a[0])!, moduleRank.get(b[0])!];
      return second.code - first.code || second.other - first.other;
    })
    .map(([name, moduleFiles]) => [name, [...moduleFiles].sort(listingOrder)] as const);
  // The map's refresh leaves files that hold only keys (JSON, YAML) and fixtures unparsed, since
  // its ranking reads nothing of theirs: the few it lists are parsed now, for their symbols.
  const listedFiles = ordered
    .flatMap(([, moduleFiles]) => moduleFiles)
    .slice(0, Math.max(0, options.maxFiles));
  const analyses = await input.analysesOf(listedFiles);
  let filesLeft = options.maxFiles;
  let symbolsLeft = options.maxSymbols;
  const lines = ['## modules'];
  const moduleRecords: unknown[] = [];
  for (const [name, moduleFiles] of ordered) {
    const languages = languagesOf.get(name)!;
    lines.push(
      `${name === '.' ? '(root)' : `${name}/`} ${moduleFiles.length} files${languages.length > 0 ? `, ${languages.join(', ')}` : ''}`,
    );
    const fileRecords: unknown[] = [];
    for (const file of moduleFiles) {
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
    moduleRecords.push({ name, files: moduleFiles.length, languages, listed: fileRecords });
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

/** Files by module (the top one or two folders), and each module's languages; assets left out. */
function groupIntoModules(
  files: readonly string[],
  scope: string | undefined,
): { modules: Map<string, string[]>; languagesOf: Map<string, string[]> } {
  const modules = new Map<string, string[]>();
  for (const file of files) {
    if (isAssetPath(file)) continue;
    const inside = scope === undefined ? file : file.slice(scope.length + 1);
    const parts = inside.split('/');
    const moduleName = parts.length === 1 ? '.' : parts.length === 2 ? parts[0]! : `${parts[0]}/${parts[1]}`;
    const key = scope === undefined || moduleName === '.' ? moduleName : `${scope}/${moduleName}`;
    const list = modules.get(key) ?? [];
    list.push(file);
    modules.set(key, list);
  }
  const languagesOf = new Map<string, string[]>();
  for (const [name, moduleFiles] of modules) {
    languagesOf.set(name, [
      ...new Set(
        moduleFiles.map((file) => languageOfPath(file)?.name).filter((language) => language !== undefined),
      ),
    ]);
  }
  return { modules, languagesOf };
}
