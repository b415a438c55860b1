import path from 'node:path';
import { readWorkspaceText } from '../../project/project-profile.js';

import { INSTRUCTION_FILES, NESTED_INSTRUCTION_FILES, proseSummary } from '../repo-map-text.js';
import type { SectionInput } from './section.js';

/** The instructions section: the instruction files for people and agents (README, AGENTS.md, CLAUDE.md, ...) with a one-line summary. */
export async function instructionsSection(input: SectionInput): Promise<void> {
  const { context, options, scope, snapshot, structured, sections } = input;
  const instructions: { path: string; summary: string; bytes: number }[] = [];
  const candidates = input.derived('instruction files', () =>
    snapshot.files.flatMap((file, index) => (isInstructionFile(file.relative, scope) ? [index] : [])),
  );
  for (const index of candidates) {
    // By position: the paths are the same while the derived list is, the sizes may not be.
    const file = snapshot.files[index]!;
    const text = (await readWorkspaceText(context.workspace, file.relative, file)) ?? '';
    instructions.push({ path: file.relative, summary: proseSummary(text), bytes: file.size });
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

/** README, AGENTS.md and the like at the root (or the scope, or .github/), and nested agent rules. */
function isInstructionFile(relative: string, scope: string | undefined): boolean {
  const name = path.posix.basename(relative);
  const isRootLevel =
    !relative.includes('/') ||
    relative.startsWith('.github/') ||
    (scope !== undefined && relative === `${scope}/${name}`);
  return (
    (isRootLevel && INSTRUCTION_FILES.test(name)) ||
    NESTED_INSTRUCTION_FILES.test(name) ||
    relative.startsWith('.cursor/rules/')
  );
}
