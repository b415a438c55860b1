import { isAssetPath, languageOfPath } from '../../languages.js';
import { isApplicationCode } from '../application-code.js';

import type { SectionInput } from './section.js';

/** The modules section: the modules (top folders), most central first, with their most referenced symbols. */
export async function modulesSection(input: SectionInput): Promise<void> {
  const { options, scope, files, snapshot, rankOf, structured, sections } = input;
  const { modules, languagesOf } = input.derived('modules', () => groupIntoModules(files, scope));
  // A module ranks by its application code, and lists it before its tests and fixtures: summed
  // over every file, a parser's 13,000 fixture inputs put it first and filled its listing.
  const moduleRank = new Map(
    [...modules].map(([name, moduleFiles]) => [
      name,
      moduleFiles.reduce((sum, file) => (isApplicationCode(file, scope) ? sum + rankOf(file) : sum), 0),
    ]),
  );
  const listingOrder = (a: string, b: string) =>
    Number(isApplicationCode(b, scope)) - Number(isApplicationCode(a, scope)) || rankOf(b) - rankOf(a);
  const ordered = [...modules].sort((a, b) => moduleRank.get(b[0])! - moduleRank.get(a[0])!);
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
    for (const file of [...moduleFiles].sort(listingOrder)) {
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
