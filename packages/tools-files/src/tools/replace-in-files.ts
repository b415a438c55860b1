import { isUtf8 } from 'node:buffer';
import { displayName, readConfinedFileSync } from '@assistant-kit/kernel';
import {
  defineTool,
  invalidArguments,
  isToolError,
  textResult,
  type WorkspaceFileChange,
  walkWorkspace,
} from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';
import {
  capOutput,
  cutLine,
  type FamilyContext,
  integerArgument,
  lineAt,
  lineNumbersOf,
} from '../family-context.js';
import { ReplaceInFilesParameters } from '../schemas.js';
import { compileSearchRegex, escapeRegex } from '../search/regex-translation.js';
import {
  byteOrderMark,
  canonicalEncodingName,
  encodeText,
  isUtf16,
  type TextEncoding,
} from '../text/encoding.js';
import { applyLineEndings } from '../text/line-endings.js';
import { decodeFileBytes, isBinaryContent } from '../text/text-file.js';
import { compileGlobFilter } from '../walk/glob-filter.js';

/**
 * Whether a file's bytes rule out a literal find (its UTF-8 bytes: `needle`) when no encoding
 * other than UTF-8 is named: valid UTF-8 decodes to text holding the find only where the bytes
 * hold the needle, and an ASCII find is not in bytes of any ASCII-compatible encoding that lack
 * it. A UTF-16 file (byte-order mark) and a non-UTF-8 file that may hold a non-ASCII find in
 * another encoding are read as before (the second is reported: its encoding must be named).
 */
function cannotHoldLiteral(bytes: Buffer, needle: Buffer, needleIsAscii: boolean): boolean {
  if (bytes.includes(needle)) return false;
  const mark = byteOrderMark(bytes);
  if (mark !== undefined && isUtf16(mark.name)) return false;
  return needleIsAscii || isUtf8(bytes);
}

/** Changed lines listed per file in the answer (every replacement is still counted). */
const LINES_LISTED_PER_FILE = 50;

interface ChangedLine {
  line: number;
  before: string;
  after: string;
}

interface PlannedFile {
  path: string;
  replacements: number;
  encoding: TextEncoding;
  lines: ChangedLine[];
  bytes: Buffer;
  expectedHash: string;
}

interface SkippedFile {
  path: string;
  reason:
    | 'binary'
    | 'unknown-encoding'
    | 'not-lossless'
    | 'too-large'
    | 'unrepresentable'
    | 'unreadable'
    | 'protected'
    | 'name-not-utf8';
  message: string;
}

/**
 * A file whose name is not UTF-8 (lossless, see kernel's `decodeNameBytes`), as replace_in_files
 * reports it when it holds what is to be replaced: by its git-quoted name, never written. Its
 * bytes are read only to tell whether it matches (`find` as UTF-8 bytes, a regex on the text
 * decoded as UTF-8); one too large or unreadable to tell is reported too.
 */
function skippedForItsName(
  root: string,
  entry: { relative: string; absolute: string },
  find: string,
  regex: RegExp | undefined,
  maxBytes: number,
): SkippedFile | undefined {
  const bytes = readConfinedFileSync(root, entry.absolute, maxBytes);
  if (bytes !== undefined) {
    if (regex === undefined && !bytes.includes(Buffer.from(find))) return undefined;
    if (regex !== undefined) {
      regex.lastIndex = 0;
      if (!regex.test(bytes.toString('utf8'))) return undefined;
    }
  }
  return {
    path: displayName(entry.relative),
    reason: 'name-not-utf8',
    message: `${bytes === undefined ? 'not read' : 'it matches'}, but its name is not UTF-8, so file tools cannot open it; a command can rename it`,
  };
}

export function createReplaceInFilesTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'replace_in_files',
    facts: {
      offeredIn: ['W', 'U'],
      order: 3,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      'Finds and replaces across text files selected by glob, preserving encodings; literal by default, a dry run by default.',
    parameters: ReplaceInFilesParameters,
    effects: ['workspace_write'],
    capabilities: ['workspace.file', 'workspace.write'],
    execution: 'sequential',
    network: 'none',
    handler: async (args, context) => {
      const { signal, reportProgress } = context;
      const { workspace } = family.options;
      const dryRun = args.dry_run ?? true;
      if (!dryRun) workspace.assertWritable();
      if (args.find.length === 0) {
        throw invalidArguments('find is empty; give the text (or pattern) to replace.', [
          { path: '/find', message: 'must not be empty' },
        ]);
      }
      const maxFiles = integerArgument('max_files', args.max_files, {
        minimum: 1,
        fallback: options.defaultReplaceFiles,
        cap: options.maxReplaceFiles,
      });
      const namedEncoding = args.encoding === undefined ? undefined : canonicalEncodingName(args.encoding);
      const filter = args.glob === undefined ? undefined : compileGlobFilter(args.glob);
      const regex = args.regex === true ? compileSearchRegex(args.find, 'gm') : undefined;
      // A literal find is first looked for in each file's bytes, and only the files that may hold
      // it are read through the Workspace (resolved, hashed) and decoded: on a 27,700-file
      // repository, reading and decoding every file took 13 s. Its longest line is looked for:
      // an LF in the find also matches a CRLF or CR line break of the file.
      const longestLine = args.find
        .split(/\r\n|\r|\n/)
        .reduce((longest, line) => (line.length > longest.length ? line : longest), '');
      const literal =
        regex === undefined &&
        longestLine !== '' &&
        (namedEncoding === undefined || namedEncoding === 'utf-8')
          ? { needle: Buffer.from(longestLine, 'utf8'), ascii: /^[\x00-\x7f]*$/.test(longestLine) }
          : undefined;

      const planned: PlannedFile[] = [];
      const skipped: SkippedFile[] = [];
      let examined = 0;
      await walkWorkspace({
        root: workspace.root,
        start: workspace.root,
        filter,
        withSizes: true,
        signal,
        onEntry: async (entry) => {
          if (entry.kind !== 'file') return true;
          examined += 1;

          if (examined % 500 === 0)
            reportProgress({ progress: examined, message: `${examined} files examined` });
          if (entry.size > options.maxEditBytes) {
            skipped.push({
              path: entry.relative,
              reason: 'too-large',
              message: `larger than ${options.maxEditBytes} bytes`,
            });
            return true;
          }
          if (literal !== undefined) {
            // Unreadable this way: read through the Workspace below, which reports why.
            const bytes = readConfinedFileSync(workspace.root, entry.absolute, options.maxEditBytes);
            if (bytes !== undefined && cannotHoldLiteral(bytes, literal.needle, literal.ascii)) return true;
          }
          let read: Awaited<ReturnType<typeof workspace.readFile>>;
          try {
            read = await workspace.readFile(entry.relative, { observe: false });
          } catch (error) {
            skipped.push({ path: entry.relative, reason: 'unreadable', message: (error as Error).message });
            return true;
          }
          if (isBinaryContent(read.bytes, namedEncoding)) {
            // A quick byte test first: binary files that cannot match are not worth reporting.
            if (regex !== undefined || read.bytes.includes(Buffer.from(args.find))) {
              skipped.push({ path: entry.relative, reason: 'binary', message: 'binary file (NUL bytes)' });
            }
            return true;
          }
          let decoded: ReturnType<typeof decodeFileBytes>;
          try {
            decoded = decodeFileBytes(read.bytes, entry.relative, namedEncoding);
          } catch (error) {
            const code = isToolError(error) ? error.code : '';
            skipped.push({
              path: entry.relative,
              reason: code === 'ENCODING_NOT_LOSSLESS' ? 'not-lossless' : 'unknown-encoding',
              message:
                code === 'ENCODING_NOT_LOSSLESS'
                  ? (error as Error).message
                  : 'not valid UTF-8 and no byte-order mark; name its encoding with encoding',
            });
            return true;
          }
          const change = planReplacement(decoded.text, decoded.lineEndings, args.find, args.replace, regex);
          if (change === undefined) return true;
          // Git directories the walker cannot tell by name (a `.git` file's gitdir target, a bare
          // repository) are skipped and listed, never written; asked only of matching files.
          const protection = await workspace.writeProtection(read.path.relative);
          if (protection !== undefined) {
            skipped.push({ path: read.path.relative, reason: 'protected', message: protection.message });
            return true;
          }
          let bytes: Buffer;
          try {
            bytes = encodeText(change.text, decoded.encoding, entry.relative);
          } catch (error) {
            skipped.push({
              path: entry.relative,
              reason: 'unrepresentable',
              message: (error as Error).message,
            });
            return true;
          }
          planned.push({
            path: read.path.relative,
            replacements: change.count,
            encoding: decoded.encoding,
            lines: change.lines,
            bytes,
            expectedHash: read.hash,
          });
          return true;
        },
        onNameNotUtf8: (entry) => {
          if (entry.kind === 'directory') return 'enter';
          const left = skippedForItsName(workspace.root, entry, args.find, regex, options.maxEditBytes);
          if (left !== undefined) skipped.push(left);
          return undefined;
        },
      });

      const replacements = planned.reduce((sum, file) => sum + file.replacements, 0);
      const unrepresentable = skipped.filter((file) => file.reason === 'unrepresentable');
      let written = false;
      if (!dryRun) {
        if (planned.length > maxFiles.value) {
          throw fileToolError(
            'TOO_MANY_FILES',
            `${planned.length} files would change, more than max_files (${maxFiles.value}); nothing was written. Narrow glob or find, or raise max_files (at most ${options.maxReplaceFiles}).`,
            { details: { files: planned.length, maxFiles: maxFiles.value } },
          );
        }
        if (unrepresentable.length > 0) {
          throw fileToolError(
            'UNREPRESENTABLE_CHARACTERS',
            `The replacement cannot be stored in the encoding of ${unrepresentable.map((file) => file.path).join(', ')}; nothing was written.`,
            { details: { files: unrepresentable } },
          );
        }
        if (planned.length > 0) {
          const changes: WorkspaceFileChange[] = planned.map((file) => ({
            path: file.path,
            bytes: file.bytes,
            expectedHash: file.expectedHash,
          }));
          // All-or-nothing: every file is staged first; a failed rename rolls the others back.
          await workspace.writeFiles(changes);
          for (const file of planned) {
            const hash = workspace.ledger.get(file.path)?.hash;
            if (file.encoding.source === 'named' && hash !== undefined) {
              family.encodingMemory.remember(file.path, hash, file.encoding.name);
            }
          }
          written = true;
        }
      }
      const text = describe(planned, skipped, replacements, dryRun, maxFiles.value, options.maxReplaceFiles);
      return textResult((await capOutput(context, text, options.maxOutputCharacters)).text, {
        dry_run: dryRun,
        written,
        files_changed: planned.length,
        replacements,
        max_files: maxFiles.value,
        files: planned.map((file) => ({
          path: file.path,
          replacements: file.replacements,
          encoding: file.encoding.name,
          bom: file.encoding.bom,
          lines: file.lines.slice(0, LINES_LISTED_PER_FILE),
        })),
        skipped,
      });
    },
  });
}

/** Computes one file's new text, or undefined when nothing matches. */
function planReplacement(
  text: string,
  lineEndings: ReturnType<typeof decodeFileBytes>['lineEndings'],
  find: string,
  replace: string,
  regex: RegExp | undefined,
): { text: string; count: number; lines: ChangedLine[] } | undefined {
  let pattern: RegExp;
  let replacement: string | ((match: string) => string);
  if (regex === undefined) {
    // Literal text: line breaks follow the file's style, so LF text matches a CRLF file.
    const uniform = lineEndings === 'crlf' || lineEndings === 'lf';
    const needle = uniform ? applyLineEndings(find, lineEndings) : find;
    const literal = uniform ? applyLineEndings(replace, lineEndings) : replace;
    if (!text.includes(needle)) return undefined;
    pattern = new RegExp(escapeRegex(needle), 'g');
    replacement = () => literal;
  } else {
    regex.lastIndex = 0;
    if (!regex.test(text)) return undefined;
    pattern = regex;
    replacement = replace;
  }
  const offsets: number[] = [];
  pattern.lastIndex = 0;
  for (const match of text.matchAll(pattern)) offsets.push(match.index);
  if (offsets.length === 0) return undefined;
  pattern.lastIndex = 0;
  const updated = text.replace(pattern, replacement as string);
  if (updated === text) return undefined;
  const lineNumbers = lineNumbersOf(text, offsets);
  const lines: ChangedLine[] = [];
  const seen = new Set<number>();
  for (const [index, offset] of offsets.entries()) {
    const line = lineNumbers[index]!;
    if (seen.has(line)) continue;
    seen.add(line);
    const before = lineAt(text, offset);
    pattern.lastIndex = 0;
    const after = before.replace(pattern, replacement as string);
    lines.push({ line, before: cutLine(before, 300), after: cutLine(after, 300) });
    if (lines.length >= LINES_LISTED_PER_FILE) break;
  }
  return { text: updated, count: offsets.length, lines };
}

function describe(
  planned: PlannedFile[],
  skipped: SkippedFile[],
  replacements: number,
  dryRun: boolean,
  maxFiles: number,
  maxFilesCap: number,
): string {
  const out: string[] = [];
  const fileWord = (count: number) => `${count} file${count === 1 ? '' : 's'}`;
  // Said on the first line: a file skipped may hold what was to be replaced.
  const skippedClause = skipped.length === 0 ? '' : ` ${fileWord(skipped.length)} skipped, listed below.`;
  if (planned.length === 0)
    out.push(
      skipped.length === 0
        ? 'No file matches; nothing to change.'
        : `No file matches among those read; nothing to change.${skippedClause}`,
    );
  else if (dryRun) {
    out.push(
      `Dry run: ${fileWord(planned.length)} would change, ${replacements} replacement${replacements === 1 ? '' : 's'}; nothing was written. Call again with dry_run: false to apply.${skippedClause}`,
    );
    if (planned.length > maxFiles) {
      out.push(
        `Note: that is more than max_files (${maxFiles}); a real run would refuse. Narrow glob or find, or raise max_files (at most ${maxFilesCap}).`,
      );
    }
  } else
    out.push(
      `Changed ${fileWord(planned.length)}, ${replacements} replacement${replacements === 1 ? '' : 's'} (written atomically).${skippedClause}`,
    );
  for (const file of planned) {
    out.push(
      `${file.path}: ${file.replacements} replacement${file.replacements === 1 ? '' : 's'} (${file.encoding.name}${file.encoding.bom ? ' with BOM' : ''})`,
    );
    for (const line of file.lines) {
      out.push(`  ${line.line}- ${line.before}`);
      out.push(`  ${line.line}+ ${line.after}`);
    }
    if (file.lines.length >= LINES_LISTED_PER_FILE) out.push(`  [more changed lines not listed]`);
  }
  if (skipped.length > 0) {
    out.push(`Skipped ${fileWord(skipped.length)}:`);
    for (const file of skipped) out.push(`  ${file.path}: ${file.reason} (${file.message})`);
  }
  return out.join('\n');
}
