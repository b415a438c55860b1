import { languageOfPath } from '../../languages.js';
import { isApplicationCode } from '../application-code.js';
import { symbolsToList } from './modules.js';

import type { SectionInput } from './section.js';

/** The next_files section: the files to read next: the most central by the reference graph, with why. */
export async function nextFilesSection(input: SectionInput): Promise<void> {
  const { options, scope, files, snapshot, rankOf, structured, sections } = input;
  const candidates = input.derived('next_files candidates', () =>
    files.filter((file) => languageOfPath(file)?.code === true && isApplicationCode(file, scope)),
  );
  const ranked = mostCentral(candidates, rankOf, options.maxResults);
  const next = ranked.map((file) => {
    const importedBy = input.importedBy(file);
    // In the modules section's order (exported, then most used by other files, public before
    // private): click's core.py read "defines F, V, _HELP_OPTION_STORAGE_NAME", its type variables
    // and private constants, in source order. Each name once (a constant set in `try` and again
    // in `except` is one definition).
    const symbols = [
      ...new Set(
        symbolsToList(
          (snapshot.analyses.get(file)?.symbols ?? []).filter((symbol) => symbol.container === undefined),
          (name) => input.usesOfName(file, name),
        ).map((symbol) => symbol.name),
      ),
    ].slice(0, 5);
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

/**
 * The `count` files of highest rank, ties by path, in that order: one pass keeping the best so
 * far (sorting tens of thousands of candidates on every map cost more than the rest of it).
 */
function mostCentral(
  candidates: readonly string[],
  rankOf: (file: string) => number,
  count: number,
): string[] {
  const before = (a: string, b: string) => rankOf(b) - rankOf(a) || a.localeCompare(b);
  const best: string[] = [];
  for (const file of candidates) {
    if (best.length === count && before(file, best[count - 1]!) >= 0) continue;
    let position = best.length;
    while (position > 0 && before(file, best[position - 1]!) < 0) position -= 1;
    best.splice(position, 0, file);
    if (best.length > count) best.pop();
  }
  return best;
}
