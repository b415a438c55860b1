import { defineTool, textResult } from '@assistant-kit/tool-core';
import { walkWorkspace } from '../walk/workspace-walker.js';
import { ListFilesParameters } from './schemas.js';
import { capOutput, type FamilyContext } from './shared.js';

export function createListFilesTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'list_files',
    purpose:
      "Recursively lists workspace paths (honours .gitignore); directories end in '/', files carry a tab-separated byte size.",
    parameters: ListFilesParameters,
    effects: ['read'],
    capabilities: ['workspace.file'],
    network: 'none',
    handler: async (args, { workspace, signal }) => {
      const directory = await workspace.resolveDirectory(args.path ?? '.');
      const lines: string[] = [];
      const entries: { path: string; type: 'file' | 'directory'; size?: number }[] = [];
      let total = 0;
      await walkWorkspace({
        root: workspace.root,
        start: directory.absolute,
        withSizes: true,
        signal,
        onEntry: (entry) => {
          total += 1;
          if (total > options.maxListEntries) return true; // keep counting
          if (entry.kind === 'directory') {
            lines.push(`${entry.relative}/`);
            entries.push({ path: `${entry.relative}/`, type: 'directory' });
          } else {
            lines.push(`${entry.relative}\t${entry.size}`);
            entries.push({ path: entry.relative, type: 'file', size: entry.size });
          }
          return true;
        },
      });
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
      });
    },
  });
}
