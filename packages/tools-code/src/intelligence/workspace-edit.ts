import { fileURLToPath } from 'node:url';
import type { Workspace } from '@assistant-kit/tool-core';
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
    const file = await workspace.readFile(workspace.relativePath(absolute), { observe: false });
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

/** A compact line diff of one file (changed block between common prefix and suffix). */
export function lineDiff(before: string, after: string, maxLines = 80): string[] {
  const oldLines = before.split('\n');
  const newLines = after.split('\n');
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix])
    prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  )
    suffix++;
  const removed = oldLines.slice(prefix, oldLines.length - suffix).map((line) => `- ${line}`);
  const added = newLines.slice(prefix, newLines.length - suffix).map((line) => `+ ${line}`);
  const lines = [`@@ line ${prefix + 1} @@`, ...removed, ...added];
  if (lines.length > maxLines)
    return [...lines.slice(0, maxLines), `[${lines.length - maxLines} more diff lines]`];
  return lines;
}
