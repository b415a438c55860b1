import { textResult } from '@assistant-kit/tool-core';
import type { Diagnostic, Range } from 'vscode-languageserver-protocol';
import type { CodeContext } from '../../engine/code-context.js';
import type { OpenedDocument } from '../../engine/language-service.js';
import { type UnanalysedFile, unanalysedNote, unlinkedMentionsNote } from '../../engine/reference-scope.js';
import { readText } from '../../engine/symbol-queries.js';
import { codeError } from '../../errors.js';
import { joinCapped } from '../../output/format.js';
import type { ZeroBasedPosition } from '../../positions.js';
import type { PreviewedFileEdit, PreviewKind } from '../edit-tokens.js';
import { editHunks } from '../workspace-edit.js';
import type { DocumentOperationInput, IntelligenceArguments } from './operation.js';

export function previewText(
  files: readonly PreviewedFileEdit[],
  originals: ReadonlyMap<string, string>,
): string[] {
  const lines: string[] = [];
  for (const file of files) {
    lines.push(`${file.path}: ${file.edits.length} edit${file.edits.length === 1 ? '' : 's'}`);
    const edits = file.edits.map((edit) => ({
      range: {
        start: { line: edit.line - 1, character: edit.character - 1 },
        end: { line: edit.end_line - 1, character: edit.end_character - 1 },
      },
      newText: edit.new_text,
    }));
    lines.push(...editHunks(originals.get(file.path) ?? '', edits).map((line) => `  ${line}`));
  }
  return lines;
}

export function previewRecord(files: readonly PreviewedFileEdit[]) {
  return files.map((file) => ({ path: file.path, edits: file.edits }));
}

export async function originalsOf(
  context: CodeContext,
  files: readonly PreviewedFileEdit[],
): Promise<Map<string, string>> {
  const originals = new Map<string, string>();
  for (const file of files) originals.set(file.path, (await readText(context, file.path)).text);
  return originals;
}

export function rangeOf(
  document: OpenedDocument,
  start: ZeroBasedPosition,
  args: IntelligenceArguments,
): Range {
  if (args.end_line === undefined) {
    if (args.line !== undefined && args.character === undefined) {
      return {
        start: { line: start.line, character: 0 },
        end: { line: start.line, character: document.lines.lineText(start.line).length },
      };
    }
    return { start, end: start };
  }
  if (args.end_line < 1 || args.end_line > document.lines.lineCount || args.end_line - 1 < start.line) {
    throw codeError(
      'POSITION_OUT_OF_RANGE',
      `end_line ${args.end_line} must be between line ${start.line + 1} and ${document.lines.lineCount}.`,
    );
  }
  const endLineText = document.lines.lineText(args.end_line - 1);
  const endCharacter =
    args.end_character === undefined
      ? endLineText.length
      : Math.min(args.end_character - 1, endLineText.length);
  return { start, end: { line: args.end_line - 1, character: Math.max(0, endCharacter) } };
}

export function overlaps(diagnostic: Diagnostic, range: Range): boolean {
  return !(diagnostic.range.end.line < range.start.line || diagnostic.range.start.line > range.end.line);
}

/**
 * The result of a preview (rename or format): the hunks of every edit, an edit_token that applies
 * exactly these edits, and for renames the files that mention the name but were not analysed.
 */
export async function previewResult(
  input: DocumentOperationInput,
  kind: PreviewKind,
  files: PreviewedFileEdit[],
  extra: Record<string, unknown>,
  coverage?: { name: string; unanalysed: readonly UnanalysedFile[]; unlinked?: readonly string[] },
) {
  const { context, tokens, allowApply, relative, base } = input;
  const originals = await originalsOf(context, files);
  const unanalysed = coverage?.unanalysed ?? [];
  const unlinked = coverage?.unlinked ?? [];
  const coverageNotes =
    coverage === undefined
      ? []
      : [unanalysedNote(coverage.name, unanalysed), unlinkedMentionsNote(coverage.name, unlinked)].filter(
          (note) => note !== undefined,
        );
  const coverageFields =
    coverage === undefined
      ? {}
      : {
          complete: unanalysed.length === 0,
          unanalysed: unanalysed.slice(0, 100),
          unanalysed_total: unanalysed.length,
          ...(unlinked.length === 0
            ? {}
            : { unlinked_mentions: unlinked.slice(0, 100), unlinked_mentions_total: unlinked.length }),
        };
  const editCount = files.reduce((sum, file) => sum + file.edits.length, 0);
  const label = kind === 'rename' ? 'Rename' : 'Format';
  if (files.length === 0) {
    return textResult([`${label} preview: nothing would change.`, ...coverageNotes].join(' '), {
      ...base,
      ...extra,
      ...coverageFields,
      files: [],
      changed: false,
    });
  }
  const token = tokens.issue({ kind, path: relative, files });
  const applyOperation = kind === 'rename' ? 'apply_rename' : 'apply_format';
  const lines = [
    `${label} preview${unanalysed.length > 0 ? ' (INCOMPLETE)' : unlinked.length > 0 ? ' (POSSIBLY INCOMPLETE)' : ''}: ${editCount} edit${editCount === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}${unanalysed.length > 0 ? `; ${unanalysed.length === 1 ? '1 more file mentions' : `${unanalysed.length} more files mention`} "${coverage?.name}" and ${unanalysed.length === 1 ? 'was' : 'were'} not analysed: applying could leave ${unanalysed.length === 1 ? 'it' : 'them'} broken` : ''}${unlinked.length > 0 ? `; ${unlinked.length === 1 ? '1 more file mentions' : `${unlinked.length} more files mention`} "${coverage?.name}" where the server found nothing to rename: read ${unlinked.length === 1 ? 'it' : 'them'} before applying` : ''}.`,
    ...coverageNotes,
    ...previewText(files, originals),
    allowApply
      ? `To apply: operation ${applyOperation} with path ${relative} and edit_token ${token}`
      : `edit_token ${token} (applying is not available in this configuration)`,
  ];
  return textResult(joinCapped(lines).text, {
    ...base,
    ...extra,
    files: previewRecord(files),
    changed: true,
    ...coverageFields,
    edit_token: token,
  });
}
