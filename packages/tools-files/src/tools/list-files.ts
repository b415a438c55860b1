import { defineTool, textResult } from '@assistant-kit/tool-core';
import { capOutput, type FamilyContext } from '../family-context.js';
import { ListFilesParameters } from '../schemas.js';

export function createListFilesTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'list_files',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 28,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      "Recursively lists workspace paths (honours .gitignore); directories end in '/', files carry a tab-separated byte size.",
    parameters: ListFilesParameters,
    effects: ['read'],
    capabilities: ['workspace.file'],
    network: 'none',
    handler: async (args, { signal }) => {
      const { workspace } = family.options;
      const directory = await workspace.resolveDirectory(args.path ?? '.');
      const listing = await family.search.listTree({
        root: workspace.root,
        start: directory.absolute,
        maxEntries: options.maxListEntries,
        signal,
      });
      const total = listing.total;
      const entries = listing.entries;
      // One growing string: measured cheaper than an array of lines joined.
      let body = '';
      for (const entry of entries) {
        body += entry.type === 'file' ? `${entry.path}\t${entry.size}\n` : `${entry.path}\n`;
      }
      const lines = body.length === 0 ? [] : [body.slice(0, -1)];
      const truncated = total > options.maxListEntries;
      if (lines.length === 0)
        lines.push(`(${directory.relative === '.' ? 'the workspace' : `${directory.relative}/`} is empty)`);
      if (truncated) {
        lines.push(
          `[listing cut after ${options.maxListEntries} of ${total} entries; pass path to list a subdirectory]`,
        );
      }
      const text = capOutput(lines.join('\n'), options.maxOutputCharacters);
      return textResult(text.text, {
        path: directory.relative,
        entries,
        total_entries: total,
        truncated: truncated || text.truncated,
        engine: listing.engine,
      });
    },
  });
}
