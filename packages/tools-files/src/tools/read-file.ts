import { defineTool, isToolError, textResult, type Workspace } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';
import { cutLine, type FamilyContext, integerArgument, numberedLine } from '../family-context.js';
import { ReadFileParameters } from '../schemas.js';
import { lineEndingLabel } from '../text/line-endings.js';
import { bytesAsChunkSource, type ChunkSource, readLineRange } from '../text/line-range-reader.js';

/**
 * Files up to this size (nearly every source file) are read whole, in one call of the Workspace
 * that makes no thread-pool round trip; larger ones are opened and read chunk by chunk, so that
 * a call never holds more than this in one piece (see "The Workspace calls the file system
 * synchronously" in docs/decisions/tools-files.md).
 */
const WHOLE_READ_BYTES = 1024 * 1024;

/** A file's bytes as read_file reads them: whole when small, else through an open handle. */
async function openLineSource(
  workspace: Workspace,
  input: string,
): Promise<{
  relative: string;
  size: number;
  source: ChunkSource;
  /** The sha256 of the whole file, when it was read whole. */
  hash?: string;
  close(): Promise<void>;
}> {
  try {
    const file = await workspace.readFile(input, { observe: false, maxBytes: WHOLE_READ_BYTES });
    return {
      relative: file.path.relative,
      size: file.bytes.length,
      source: bytesAsChunkSource(file.bytes),
      hash: file.hash,
      close: async () => {},
    };
  } catch (error) {
    if (!isToolError(error, 'FILE_TOO_LARGE')) throw error;
  }
  const opened = await workspace.openForReading(input);
  return {
    relative: opened.path.relative,
    size: opened.path.size,
    source: opened.handle,
    close: () => opened.handle.close(),
  };
}

export function createReadFileTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'read_file',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 27,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose:
      "Reads a text file or a line range without modifying it; lines are numbered and the result includes the file's hash and encoding.",
    parameters: ReadFileParameters,
    effects: ['read'],
    capabilities: ['workspace.file', 'workspace.file-version'],
    network: 'none',
    handler: async (args, { signal }) => {
      const { workspace } = family.options;
      const offset = integerArgument('offset_line', args.offset_line, {
        minimum: 1,
        fallback: 1,
        cap: Number.MAX_SAFE_INTEGER,
      }).value;
      const maxLines = integerArgument('max_lines', args.max_lines, {
        minimum: 1,
        fallback: options.maxReadLines,
        cap: options.maxReadLines,
      });
      const opened = await openLineSource(workspace, args.path);
      const relative = opened.relative;
      let range: Awaited<ReturnType<typeof readLineRange>>;
      try {
        range = await readLineRange(opened.source, opened.size, relative, {
          startLine: offset,
          maxLines: maxLines.value,
          byteBudget: options.maxOutputCharacters * 4,
          namedEncoding: args.encoding ?? family.encodingMemory.lastNamed(relative),
          maxWholeBytes: options.maxEditBytes,
          signal,
          ...(opened.hash !== undefined && { wholeFileHash: opened.hash }),
        });
      } finally {
        await opened.close();
      }
      workspace.observe(relative, { hash: range.hash, size: range.size });
      if (range.encoding.source === 'named')
        family.encodingMemory.remember(relative, range.hash, range.encoding.name);

      const encodingLabel = `${range.encoding.name}${range.encoding.bom ? ' with BOM' : ''}`;
      const body: string[] = [];
      let characters = 0;
      let shown = 0;
      let cutForSize = range.cutByBudget;
      for (const line of range.lines) {
        const rendered = numberedLine(offset + shown, cutLine(line, options.maxLineCharacters));
        if (characters + rendered.length + 1 > options.maxOutputCharacters && shown > 0) {
          cutForSize = true;
          break;
        }
        body.push(rendered);
        characters += rendered.length + 1;
        shown += 1;
      }
      if (range.cutByBudget && shown === range.lines.length && shown > 0) {
        // The byte budget ended inside the last line: it is partial.
        body[body.length - 1] += ' … [line cut: output limit reached]';
      }
      const lastShown = offset + shown - 1;
      const more = lastShown < range.totalLines;
      const nextOffset = more ? (shown === 0 ? offset : lastShown + 1) : null;
      const header =
        range.totalLines === 0
          ? `${relative}: empty file (${encodingLabel}, sha256 ${range.hash})`
          : `${relative}: lines ${shown === 0 ? 0 : offset}-${lastShown} of ${range.totalLines} (${encodingLabel}, ${lineEndingLabel(range.lineEndings)} line endings, ${range.size} bytes, sha256 ${range.hash})`;
      const notes: string[] = [];
      if (offset > range.totalLines && range.totalLines > 0) {
        notes.push(`[offset_line ${offset} is past the end: the file has ${range.totalLines} lines]`);
      } else if (more) {
        const reason = cutForSize
          ? `output cut at ${options.maxOutputCharacters} characters`
          : maxLines.capped
            ? `at most ${options.maxReadLines} lines per call`
            : 'max_lines reached';
        notes.push(`[${reason}; continue with offset_line=${nextOffset}]`);
      }
      const text = [header, ...body, ...notes].join('\n');
      if (signal.aborted) throw fileToolError('CANCELLED', 'read_file was cancelled.');
      return textResult(text, {
        path: relative,
        encoding: range.encoding.name,
        bom: range.encoding.bom,
        line_endings: range.lineEndings,
        hash: range.hash,
        size: range.size,
        total_lines: range.totalLines,
        offset_line: offset,
        lines_returned: shown,
        next_offset_line: nextOffset,
        truncated: more,
      });
    },
  });
}
