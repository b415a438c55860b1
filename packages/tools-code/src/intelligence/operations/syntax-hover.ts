import { type ToolResult, textResult } from '@assistant-kit/tool-core';
import { findDeclarations, readText, resolvePosition } from '../../engine/symbol-queries.js';
import { codeError } from '../../errors.js';
import { LineIndex } from '../../positions.js';
import type { OperationScope } from './operation.js';

/**
 * hover where no language server covers the file: the declarations of the word at the position,
 * found in the syntax trees, with the engine named so nobody mistakes it for type information.
 */
export async function syntaxHoverOperation(
  scope: OperationScope,
  relative: string,
  text: string,
): Promise<ToolResult> {
  const { args, context, signal } = scope;
  const position = await resolvePosition(context, relative, text, args);
  const lines = new LineIndex(text);
  const word =
    /[\p{L}\p{N}_$]+/u.exec(lines.lineText(position.line).slice(position.character))?.[0] ??
    args.symbol ??
    '';
  const declarations =
    word === '' ? [] : await findDeclarations(context, args.symbol ?? word, { signal, preferPath: relative });
  if (declarations.length === 0)
    throw codeError('SYMBOL_NOT_FOUND', `No declaration of "${word}" was found.`);
  const shown = await Promise.all(
    declarations.slice(0, 5).map(async (declaration) => {
      const source = await readText(context, declaration.path);
      return `${declaration.path}:${declaration.line}  ${new LineIndex(source.text).lineText(declaration.line - 1).trim()}`;
    }),
  );
  return textResult(
    `${word} (engine: syntax tree; no language server covers ${relative})\n${shown.join('\n')}`,
    {
      operation: 'hover',
      engine: 'syntax',
      contents: shown.join('\n'),
    },
  );
}
