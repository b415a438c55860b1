import { invalidArguments, type ToolResult } from '@assistant-kit/tool-core';
import { prepareFileEdits } from '../workspace-edit.js';
import type { DocumentOperationInput } from './operation.js';
import { previewResult, rangeOf } from './previews.js';

/** preview_format: the edits formatting would make (the whole file or a line range). */
export async function previewFormatOperation(input: DocumentOperationInput): Promise<ToolResult> {
  const { args, context, document, request, lsp, position, textDocument } = input;
  const options = {
    tabSize: args.tab_size ?? 2,
    insertSpaces: args.insert_spaces ?? true,
    trimTrailingWhitespace: true,
    insertFinalNewline: true,
    trimFinalNewlines: true,
  };
  if (options.tabSize < 1 || options.tabSize > 16)
    throw invalidArguments('tab_size must be between 1 and 16.', [
      { path: '/tab_size', message: 'must be from 1 to 16' },
    ]);
  const ranged = args.line !== undefined && args.end_line !== undefined;
  const edits = ranged
    ? await request(lsp.DocumentRangeFormattingRequest.type, {
        textDocument,
        range: rangeOf(document, position, args),
        options,
      })
    : await request(lsp.DocumentFormattingRequest.type, { textDocument, options });
  const files = await prepareFileEdits(context.workspace, new Map([[document.uri, edits ?? []]]));
  return previewResult(input, 'format', files, {});
}
