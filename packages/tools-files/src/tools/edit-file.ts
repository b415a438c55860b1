import { defineTool, isToolError, textResult } from '@assistant-kit/tool-core';
import { type FileToolError, fileToolError } from '../errors.js';
import {
  cutLine,
  type FamilyContext,
  findOccurrences,
  lineAt,
  lineNumbersOf,
  numberedLine,
} from '../family-context.js';
import { EditFileParameters } from '../schemas.js';
import { closestLines, whitespaceInsensitiveMatches } from '../text/closest-candidates.js';
import { encodeText } from '../text/encoding.js';
import { applyLineEndings, lineEndingLabel } from '../text/line-endings.js';
import { type LoadedTextFile, loadTextFile } from '../text/text-file.js';

/** Lines of context shown around the first change in edit_file's answer. */
const SNIPPET_CONTEXT_LINES = 3;
const SNIPPET_MAX_LINES = 30;

/** Turns an "unknown encoding" failure into advice that fits a tool without an encoding parameter. */
export async function loadForRewrite(
  family: FamilyContext,
  workspace: Parameters<typeof loadTextFile>[0],
  input: string,
): Promise<LoadedTextFile> {
  try {
    return await loadTextFile(workspace, input, {
      maxBytes: family.options.maxEditBytes,
      memory: family.encodingMemory,
    });
  } catch (error) {
    if (isToolError(error, 'ENCODING_UNKNOWN')) {
      throw fileToolError(
        'ENCODING_UNKNOWN',
        `${error.message.replace(/; call again with encoding set to its encoding/, '')} Read it first with read_file and its encoding (for example encoding: "windows-1252"); the file is then rewritten in that encoding.`,
        { details: error.details, cause: error },
      );
    }
    throw error;
  }
}

/**
 * The forms of old_text tried in order: as given, then with its line breaks in the file's
 * style, so a CRLF file matched with LF text still matches (and an LF file with CRLF text).
 */
function needleForms(
  oldText: string,
  file: LoadedTextFile,
): { needle: string; breaks: 'crlf' | 'lf' | 'as-given' }[] {
  const forms: { needle: string; breaks: 'crlf' | 'lf' | 'as-given' }[] = [
    { needle: oldText, breaks: 'as-given' },
  ];
  if (oldText.includes('\n')) {
    if (file.lineEndings === 'crlf' || file.lineEndings === 'mixed') {
      const crlf = applyLineEndings(oldText, 'crlf');
      if (crlf !== oldText) forms.push({ needle: crlf, breaks: 'crlf' });
    }
    if (file.lineEndings === 'lf' || file.lineEndings === 'mixed') {
      const lf = applyLineEndings(oldText, 'lf');
      if (lf !== oldText) forms.push({ needle: lf, breaks: 'lf' });
    }
  }
  return forms;
}

export function createEditFileTool(family: FamilyContext) {
  return defineTool({
    name: 'edit_file',
    facts: {
      offeredIn: ['W', 'U'],
      order: 2,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      'Atomically replaces exact text in a file read in this session, preserving its encoding and line endings; old_text must match exactly one place unless replace_all is true.',
    parameters: EditFileParameters,
    effects: ['workspace_write'],
    capabilities: ['workspace.file', 'workspace.write', 'workspace.file-version'],
    execution: 'sequential',
    network: 'none',
    handler: async (args) => {
      const { workspace } = family.options;
      workspace.assertWritable();
      if (args.old_text.length === 0) {
        throw fileToolError(
          'EDIT_NO_CHANGE',
          'old_text is empty; give the exact text to replace (to create a file or replace all of it, use write_file).',
        );
      }
      if (args.old_text === args.new_text) {
        throw fileToolError(
          'EDIT_NO_CHANGE',
          'old_text and new_text are identical; there is nothing to change.',
        );
      }
      const target = await workspace.resolveFile(args.path);
      if (workspace.ledger.get(target.relative) === undefined) {
        throw fileToolError(
          'FILE_NOT_OBSERVED',
          `"${target.relative}" was not read in this session; read it with read_file first, then edit it.`,
          { details: { path: target.relative } },
        );
      }
      const file = await loadForRewrite(family, workspace, args.path);
      const relative = file.path.relative;
      let chosen: { needle: string; breaks: 'crlf' | 'lf' | 'as-given'; offsets: number[] } | undefined;
      for (const form of needleForms(args.old_text, file)) {
        const offsets = findOccurrences(file.text, form.needle);
        if (offsets.length > 0) {
          chosen = { ...form, offsets };
          break;
        }
      }
      if (chosen === undefined) throw noMatchError(relative, file.text, args.old_text);
      const lines = lineNumbersOf(file.text, chosen.offsets);
      if (chosen.offsets.length > 1 && args.replace_all !== true) {
        const places = chosen.offsets.slice(0, 20).map((offset, index) => ({
          line: lines[index]!,
          text: cutLine(lineAt(file.text, offset), 200),
        }));
        throw fileToolError(
          'EDIT_AMBIGUOUS_MATCH',
          `old_text matches ${chosen.offsets.length} places in ${relative} (lines ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}); nothing was changed. Add surrounding lines to old_text so it matches one place, or set replace_all: true.\n${places.map((place) => numberedLine(place.line, place.text)).join('\n')}`,
          { details: { path: relative, count: chosen.offsets.length, places } },
        );
      }
      const breaks =
        chosen.breaks !== 'as-given'
          ? chosen.breaks
          : file.lineEndings === 'crlf' || file.lineEndings === 'lf'
            ? file.lineEndings
            : chosen.needle.includes('\r\n')
              ? 'crlf'
              : 'as-given';
      const replacement = breaks === 'as-given' ? args.new_text : applyLineEndings(args.new_text, breaks);
      const updated = file.text.split(chosen.needle).join(replacement);
      if (updated === file.text) {
        // new_text differs from old_text only in what the file's style rewrites (line breaks):
        // the bytes would not change, so nothing is written and the result says so.
        return textResult(
          `No change to ${relative}: old_text matched (line${lines.length === 1 ? '' : 's'} ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}), but new_text gives the same bytes once the file's ${lineEndingLabel(file.lineEndings)} line endings are applied; the file was not written.`,
          {
            path: relative,
            changed: false,
            replacements: 0,
            lines,
            bytes: file.bytes.length,
            hash: file.hash,
          },
        );
      }
      const bytes = encodeText(updated, file.encoding, relative);
      // replaceFile re-checks the observed version right before the atomic rename.
      await workspace.replaceFile(args.path, bytes);
      const hash = workspace.ledger.get(relative)?.hash;
      if (file.encoding.source === 'named' && hash !== undefined) {
        family.encodingMemory.remember(relative, hash, file.encoding.name);
      }
      const snippet = snippetAround(updated, chosen.offsets[0]!, replacement);
      const count = chosen.offsets.length;
      const text = [
        `Edited ${relative}: replaced ${count} occurrence${count === 1 ? '' : 's'} (line${count === 1 ? '' : 's'} ${lines.slice(0, 20).join(', ')}${lines.length > 20 ? ', …' : ''}); ${file.encoding.name}${file.encoding.bom ? ' with BOM' : ''}, ${lineEndingLabel(file.lineEndings)} line endings kept.`,
        snippet,
      ].join('\n');
      return textResult(text, {
        path: relative,
        changed: true,
        replacements: count,
        lines,
        encoding: file.encoding.name,
        bom: file.encoding.bom,
        line_endings: file.lineEndings,
        bytes: bytes.length,
        hash,
      });
    },
  });
}

function noMatchError(relative: string, text: string, oldText: string): FileToolError {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const loose = whitespaceInsensitiveMatches(lines, oldText);
  if (loose.length > 0) {
    return fileToolError(
      'EDIT_NO_MATCH',
      `old_text was not found exactly in ${relative}, but matches at line ${loose.join(', ')} if whitespace is ignored; copy the exact text (indentation included) from read_file and try again. Nothing was changed.`,
      { details: { path: relative, whitespaceInsensitiveLines: loose, candidates: [] } },
    );
  }
  const candidates = closestLines(lines, oldText).map((candidate) => ({
    ...candidate,
    text: cutLine(candidate.text, 200),
  }));
  const shown =
    candidates.length === 0
      ? 'No similar line was found; read the file again to see its current content.'
      : `Closest lines:\n${candidates.map((candidate) => numberedLine(candidate.line, candidate.text)).join('\n')}`;
  return fileToolError(
    'EDIT_NO_MATCH',
    `old_text was not found in ${relative}; nothing was changed. ${shown}`,
    { details: { path: relative, candidates } },
  );
}

/** The changed region with a few lines around it, numbered, for the model to check the edit. */
function snippetAround(text: string, offset: number, replacement: string): string {
  const [firstLine] = lineNumbersOf(text, [offset]);
  const replacementLines = replacement.split('\n').length;
  const from = Math.max(1, firstLine! - SNIPPET_CONTEXT_LINES);
  const to = Math.min(
    from + SNIPPET_MAX_LINES - 1,
    firstLine! + replacementLines - 1 + SNIPPET_CONTEXT_LINES,
  );
  const all = text.split('\n');
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  const rendered: string[] = [];
  for (let line = from; line <= Math.min(to, all.length); line += 1) {
    const raw = all[line - 1]!;
    rendered.push(numberedLine(line, cutLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw, 300)));
  }
  return rendered.join('\n');
}
