import {
  defineTool,
  invalidArguments,
  namesNotUtf8Clause,
  namesNotUtf8Field,
  namesNotUtf8Note,
  quoteArgument,
  textResult,
} from '@assistant-kit/tool-core';
import { capOutput, cutLine, type FamilyContext, integerArgument } from '../family-context.js';
import { SearchFilesParameters } from '../schemas.js';
import {
  type FileCut,
  formatSearchLines,
  limitSearchLines,
  spreadSearchLines,
} from '../search/limit-results.js';
import { compileGlobFilter } from '../walk/glob-filter.js';

const FILES = { one: 'file', many: 'files' };
const FILES_WITH_MATCHES = { one: 'file with a match', many: 'files with matches' };

/** Characters of one matching or context line shown. */
const SEARCH_LINE_CHARACTERS = 500;

export function createSearchFilesTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'search_files',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 15,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      'Regex search of workspace files reporting file, line and context (honours .gitignore); glob selects files; with no pattern it lists matching file names.',
    parameters: SearchFilesParameters,
    effects: ['read'],
    capabilities: ['workspace.file'],
    network: 'none',
    handler: async (args, context) => {
      const { signal } = context;
      const { workspace } = family.options;
      if (args.pattern === undefined && args.glob === undefined) {
        throw invalidArguments(
          'Give pattern (a regular expression to search for), or glob alone to list matching file names.',
          [{ path: '/pattern', message: 'is required unless glob is given' }],
        );
      }
      const maxResults = integerArgument('max_results', args.max_results, {
        minimum: 1,
        fallback: options.defaultSearchResults,
        cap: options.maxSearchResults,
      });
      const contextLines = integerArgument('context_lines', args.context_lines, {
        minimum: 0,
        fallback: 0,
        cap: options.maxContextLines,
      });
      const filter = args.glob === undefined ? undefined : compileGlobFilter(args.glob);
      const capNote = maxResults.capped
        ? ` (max_results lowered to the cap of ${options.maxSearchResults})`
        : '';

      if (args.pattern === undefined) {
        const listing = await family.search.listFileNames({ root: workspace.root, filter, signal });
        const shown = listing.paths.slice(0, maxResults.value);
        const more = listing.paths.length > maxResults.value || !listing.complete;
        const leftOut = listing.namesNotUtf8;
        const leftOutClause = leftOut === undefined ? '' : ` (${namesNotUtf8Clause(leftOut, FILES)})`;
        const header =
          shown.length === 0
            ? `No file ${leftOut === undefined ? '' : 'that file tools can open '}matches the glob ${quoteArgument(args.glob)}${leftOutClause}.`
            : `${more ? `First ${shown.length} of ${listing.complete ? listing.paths.length : `more than ${shown.length}`}` : shown.length} file${shown.length === 1 ? '' : 's'} matching ${quoteArgument(args.glob)}${capNote}${leftOutClause}:`;
        const footer = more ? ['[more files match; narrow the glob or raise max_results]'] : [];
        if (leftOut !== undefined) footer.push(namesNotUtf8Note(leftOut, FILES));
        const text = (
          await capOutput(context, [header, ...shown, ...footer].join('\n'), options.maxOutputCharacters)
        ).text;
        return textResult(text, {
          engine: listing.engine,
          files: shown,
          total_files: listing.complete ? listing.paths.length : null,
          truncated: more,
          ...namesNotUtf8Field(leftOut),
        });
      }

      const outcome = await family.search.searchContent({
        root: workspace.root,
        pattern: args.pattern,
        filter,
        maxResults: maxResults.value,
        contextLines: contextLines.value,
        maxFileBytes: options.maxSearchFileBytes,
        signal,
      });
      // With every match collected, the page is spread over the files; beyond the count limit
      // only the first matches in path order are known, so those are shown.
      const limited: {
        lines: typeof outcome.lines;
        matchesShown: number;
        filesShown: number;
        cuts: FileCut[];
      } = outcome.complete
        ? spreadSearchLines(outcome.lines, maxResults.value, contextLines.value)
        : { ...limitSearchLines(outcome.lines, maxResults.value, contextLines.value), cuts: [] };
      const totalMatches = outcome.complete ? outcome.totalMatches : null;
      const more = totalMatches === null || totalMatches > limited.matchesShown;
      const totalFiles = outcome.complete ? outcome.totalFiles : null;
      const leftOut = outcome.namesNotUtf8;
      const leftOutClause =
        leftOut === undefined ? '' : ` (${namesNotUtf8Clause(leftOut, FILES_WITH_MATCHES)})`;
      let header: string;
      if (limited.matchesShown === 0)
        header = `No match for /${quoteArgument(args.pattern)}/${args.glob === undefined ? '' : ` in ${quoteArgument(args.glob)}`}${leftOut === undefined ? '' : ' in a file that file tools can open'}${leftOutClause}.`;
      else if (more) {
        const spread = limited.cuts.length > 0 ? ', spread over the files so each shows its first lines' : '';
        const files = (count: number) => `${count} file${count === 1 ? '' : 's'}`;
        header = `First ${limited.matchesShown} matching lines (in ${files(limited.filesShown)}) of ${totalMatches ?? `more than ${limited.matchesShown}`}${totalFiles === null ? '' : ` in ${files(totalFiles)}`}${spread}${capNote}${leftOutClause}; narrow the pattern or glob, or raise max_results:`;
      } else {
        header = `${limited.matchesShown} matching line${limited.matchesShown === 1 ? '' : 's'} in ${limited.filesShown} file${limited.filesShown === 1 ? '' : 's'}${leftOutClause}:`;
      }
      const body = formatSearchLines(limited.lines, (text) => cutLine(text, SEARCH_LINE_CHARACTERS), {
        contextLines: contextLines.value,
        cuts: limited.cuts,
      });
      const warnings =
        outcome.warnings.length > 0
          ? [
              `[${outcome.warnings.length} files could not be read: ${outcome.warnings.slice(0, 3).join('; ')}]`,
            ]
          : [];
      if (leftOut !== undefined) warnings.push(namesNotUtf8Note(leftOut, FILES_WITH_MATCHES));
      const text = (
        await capOutput(context, [header, ...body, ...warnings].join('\n'), options.maxOutputCharacters)
      ).text;
      return textResult(text, {
        engine: outcome.engine,
        matches: limited.lines
          .filter((line) => line.kind === 'match')
          .map(({ path, line, text: lineText }) => ({ path, line, text: lineText })),
        context: limited.lines
          .filter((line) => line.kind === 'context')
          .map(({ path, line, text: lineText }) => ({ path, line, text: lineText })),
        total_matches: totalMatches,
        total_files: totalFiles,
        files_cut: limited.cuts,
        truncated: more,
        ...namesNotUtf8Field(leftOut),
      });
    },
  });
}
