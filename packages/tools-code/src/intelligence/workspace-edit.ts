import { isUtf8 } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { isToolError, type Workspace } from '@assistant-kit/tool-core';
import type { TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { codeError } from '../errors.js';
import { applyTextEdits } from '../positions.js';
import type { PreviewedFileEdit } from './edit-tokens.js';

/** Groups a WorkspaceEdit's text edits by file URI; refuses create/rename/delete operations. */
export function textEditsByUri(edit: WorkspaceEdit): Map<string, TextEdit[]> {
  const byUri = new Map<string, TextEdit[]>();
  const add = (uri: string, edits: readonly TextEdit[]) =>
    byUri.set(uri, [...(byUri.get(uri) ?? []), ...edits]);
  if (edit.documentChanges !== undefined) {
    for (const change of edit.documentChanges) {
      if ('kind' in change) {
        throw codeError(
          'UNSUPPORTED_EDIT',
          `The edit would ${change.kind} a file; this tool applies text edits only.`,
          {
            details: { operation: change.kind },
          },
        );
      }
      add(change.textDocument.uri, change.edits as TextEdit[]);
    }
  } else {
    for (const [uri, edits] of Object.entries(edit.changes ?? {})) add(uri, edits);
  }
  return byUri;
}

/**
 * Applies text edits in memory to the current content of each file (read through the workspace,
 * so every path is confined) and records each file's hash for the later apply.
 */
export async function prepareFileEdits(
  workspace: Workspace,
  byUri: ReadonlyMap<string, readonly TextEdit[]>,
): Promise<PreviewedFileEdit[]> {
  const prepared: PreviewedFileEdit[] = [];
  for (const [uri, edits] of byUri) {
    if (!uri.startsWith('file:'))
      throw codeError('UNSUPPORTED_EDIT', `The edit touches a non-file resource (${uri}).`);
    const absolute = fileURLToPath(uri);
    if (!workspace.contains(absolute)) {
      throw codeError(
        'UNSUPPORTED_EDIT',
        'The edit touches a file outside the workspace; nothing can be applied.',
      );
    }
    const relative = workspace.relativePath(absolute);
    const file = await workspace.readFile(relative, { observe: false }).catch((error: unknown) => {
      if (isToolError(error) && error.code === 'PATH_NOT_FOUND') {
        throw codeError(
          'UNSUPPORTED_EDIT',
          `The edit would create ${relative}; this tool applies text edits to existing files only.`,
          { details: { operation: 'create', path: relative } },
        );
      }
      throw error;
    });
    // Servers read files as UTF-8: a Latin-1 `é` is U+FFFD to them, and writing their edit back
    // as UTF-8 turned it into EF BF BD, the rest of the file changed in silence.
    if (!isUtf8(file.bytes))
      throw codeError(
        'UNSUPPORTED_EDIT',
        `${relative} is not UTF-8 text, and an edit computed on it would rewrite its other bytes; nothing was changed. Edit it with edit_file and its encoding, or convert it to UTF-8 first.`,
        { details: { path: relative, reason: 'not_utf8' } },
      );
    const text = file.bytes.toString('utf8');
    let newText: string;
    try {
      newText = applyTextEdits(text, edits);
    } catch (error) {
      throw codeError('UNSUPPORTED_EDIT', `The server's edits for ${file.path.relative} overlap.`, {
        cause: error,
      });
    }
    if (newText === text) continue;
    prepared.push({
      path: file.path.relative,
      expectedHash: file.hash,
      newText,
      edits: edits.map((edit) => ({
        line: edit.range.start.line + 1,
        character: edit.range.start.character + 1,
        end_line: edit.range.end.line + 1,
        end_character: edit.range.end.character + 1,
        new_text: edit.newText,
      })),
    });
  }
  return prepared.sort((a, b) => a.path.localeCompare(b.path));
}

/** Most lines one hunk shows of each side (old, new) before it is cut. */
const HUNK_SIDE_LINES = 6;
/** Most hunks shown for one file before the rest are counted. */
const MAX_HUNKS_PER_FILE = 40;
/** Longest line shown in a hunk. */
const HUNK_LINE_CHARACTERS = 160;

function clip(line: string): string {
  return line.length > HUNK_LINE_CHARACTERS ? `${line.slice(0, HUNK_LINE_CHARACTERS)}…` : line;
}

function side(marker: '-' | '+', lines: readonly string[]): string[] {
  const shown = lines.slice(0, HUNK_SIDE_LINES).map((line) => `${marker} ${clip(line)}`);
  if (lines.length > shown.length) shown.push(`${marker} [${lines.length - shown.length} more lines]`);
  return shown;
}

/**
 * A compact diff of one file: one hunk per group of edits on neighbouring lines, each with the
 * old and the new lines it touches, so edits far apart in a file each show both sides. Edits are
 * LSP ranges (0-based) over `before`; overlapping edits were refused earlier.
 */
export function editHunks(
  before: string,
  edits: readonly { range: TextEdit['range']; newText: string }[],
): string[] {
  const oldLines = before.split('\n');
  const sorted = [...edits].sort(
    (a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
  );
  // Group edits whose line spans touch, so one line with two edits is one hunk.
  const groups: { first: number; last: number; edits: typeof sorted }[] = [];
  for (const edit of sorted) {
    const current = groups.at(-1);
    if (current !== undefined && edit.range.start.line <= current.last) {
      current.last = Math.max(current.last, edit.range.end.line);
      current.edits.push(edit);
    } else {
      groups.push({ first: edit.range.start.line, last: edit.range.end.line, edits: [edit] });
    }
  }
  const output: string[] = [];
  for (const group of groups.slice(0, MAX_HUNKS_PER_FILE)) {
    const oldBlock = oldLines.slice(group.first, group.last + 1);
    const oldText = oldBlock.join('\n');
    const blockStart = oldLines.slice(0, group.first).reduce((sum, line) => sum + line.length + 1, 0);
    // Apply the group's edits to its own block, from the last to the first.
    let newText = oldText;
    for (const edit of [...group.edits].reverse()) {
      const offsetOf = (position: { line: number; character: number }) =>
        oldLines.slice(0, position.line).reduce((sum, line) => sum + line.length + 1, 0) +
        position.character -
        blockStart;
      newText =
        newText.slice(0, offsetOf(edit.range.start)) + edit.newText + newText.slice(offsetOf(edit.range.end));
    }
    output.push(`@@ line ${group.first + 1} @@`);
    output.push(...side('-', oldBlock), ...side('+', newText.split('\n')));
  }
  if (groups.length > MAX_HUNKS_PER_FILE)
    output.push(`[${groups.length - MAX_HUNKS_PER_FILE} more changed places in this file]`);
  return output;
}
