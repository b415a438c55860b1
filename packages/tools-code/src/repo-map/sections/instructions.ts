import path from 'node:path';
import { readWorkspaceText } from '../../project/project-profile.js';

import { INSTRUCTION_FILES, NESTED_INSTRUCTION_FILES, proseSummary } from '../repo-map-text.js';
import type { SectionInput } from './section.js';

/** The instructions section: the instruction files for people and agents (README, AGENTS.md, CLAUDE.md, ...) with a one-line summary. */
export async function instructionsSection(input: SectionInput): Promise<void> {
  const { context, options, scope, snapshot, structured, sections } = input;
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
