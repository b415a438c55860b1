import { languageOfPath } from '../../languages.js';
import { isTestFile } from '../../project/test-files.js';

import type { SectionInput } from './section.js';

/** The next_files section: the files to read next: the most central by the reference graph, with why. */
export async function nextFilesSection(input: SectionInput): Promise<void> {
  const { options, files, snapshot, rankOf, structured, sections } = input;
  const candidates = files.filter((file) => languageOfPath(file)?.code === true && !isTestFile(file));
  const ranked = candidates
    .sort((a, b) => rankOf(b) - rankOf(a) || a.localeCompare(b))
    .slice(0, options.maxResults);
  const next = ranked.map((file) => {
    const importedBy = input.importedBy(file);
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
