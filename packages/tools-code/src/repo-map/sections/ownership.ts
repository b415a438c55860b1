import { readWorkspaceText } from '../../project/project-profile.js';
import { ownersOf, parseCodeowners } from '../codeowners.js';

import type { SectionInput } from './section.js';

/** The ownership section: who owns what, from CODEOWNERS (read through the Workspace). */
export async function ownershipSection(input: SectionInput): Promise<void> {
  const { context, options, files, fileSet, listed, structured, sections } = input;
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
    const folders = [...new Set(files.map((file) => (file.includes('/') ? file.split('/')[0]! : '.')))].slice(
      0,
      options.maxResults,
    );
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
