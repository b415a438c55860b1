import { type ToolResult, textResult } from '@assistant-kit/tool-core';
import { hoverText } from '../../lsp/conversions.js';
import { joinCapped } from '../../output/format.js';
import type { DocumentOperationInput } from './operation.js';

/** hover: the language server's hover text at a position. */
export async function hoverOperation(input: DocumentOperationInput): Promise<ToolResult> {
  const { request, lsp, position, textDocument, base } = input;
  const hover = await request(lsp.HoverRequest.type, { textDocument, position });
  const contents = hover === null ? '' : hoverText(hover.contents);
  return textResult(
    contents === '' ? 'No hover information at that position.' : joinCapped(contents.split('\n')).text,
    {
      ...base,
      line: position.line + 1,
      character: position.character + 1,
      contents,
    },
  );
}
