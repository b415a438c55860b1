import {
  defineTool,
  GitignoreOracle,
  namesNotUtf8Field,
  namesNotUtf8Note,
  textResult,
  walkWorkspace,
} from '@assistant-kit/tool-core';
import { capOutput, type FamilyContext } from '../family-context.js';
import { ListFilesParameters } from '../schemas.js';

/** Hidden entries counted at most when a listing comes out empty (the count says "at least"). */
const HIDDEN_COUNT_CAP = 100_000;

/**
 * Why an empty listing is empty: the folder itself is git-ignored, or everything in it is. An
 * empty answer for a folder full of ignored files would mislead ("dist/ is empty"), so the
 * entries .gitignore hides are counted (the ones git never sees, `.git` and the app's folder, are not).
 */
async function describeEmptyListing(
  root: string,
  relative: string,
  absolute: string,
  signal: AbortSignal | undefined,
): Promise<{ line: string; ignored: boolean; ignoredEntries: number }> {
  const label = relative === '.' ? 'the workspace' : `${relative}/`;
  const ignored = relative !== '.' && new GitignoreOracle(root).ignoresDirectory(relative);
  const counted = await walkWorkspace({
    root,
    start: absolute,
    gitignore: false,
    maxEntries: HIDDEN_COUNT_CAP,
    onEntry: () => undefined,
    ...(signal === undefined ? {} : { signal }),
  });
  const count = `${counted.truncated ? 'more than ' : ''}${counted.entries} entr${counted.entries === 1 ? 'y' : 'ies'}`;
  if (ignored) {
    return {
      line: `(${label} is ignored by .gitignore; it holds ${count}, not listed — read a file in it by its path)`,
      ignored,
      ignoredEntries: counted.entries,
    };
  }
  if (counted.entries > 0) {
    return {
      line: `(${label} lists nothing: its ${count} are all ignored by .gitignore — read a file in it by its path)`,
      ignored,
      ignoredEntries: counted.entries,
    };
  }
  return { line: `(${label} is empty)`, ignored, ignoredEntries: 0 };
}

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
    handler: async (args, context) => {
      const { signal } = context;
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
      let hidden: { ignored: boolean; ignoredEntries: number } | undefined;
      // Not "empty" when entries were left out for their names (the note below says so).
      if (lines.length === 0 && listing.namesNotUtf8 === undefined) {
        const empty = await describeEmptyListing(
          workspace.root,
          directory.relative,
          directory.absolute,
          signal,
        );
        lines.push(empty.line);
        hidden = empty;
      }
      if (truncated) {
        lines.push(
          `[listing cut after ${options.maxListEntries} of ${total} entries; pass path to list a subdirectory]`,
        );
      }
      // First, so that a listing cut for length still says it is not the whole tree.
      if (listing.namesNotUtf8 !== undefined)
        lines.unshift(namesNotUtf8Note(listing.namesNotUtf8, { one: 'entry', many: 'entries' }));
      const text = await capOutput(context, lines.join('\n'), options.maxOutputCharacters);
      return textResult(text.text, {
        path: directory.relative,
        entries,
        total_entries: total,
        truncated: truncated || text.truncated,
        engine: listing.engine,
        ...namesNotUtf8Field(listing.namesNotUtf8),
        ...(hidden === undefined ? {} : { ignored: hidden.ignored, ignored_entries: hidden.ignoredEntries }),
      });
    },
  });
}
