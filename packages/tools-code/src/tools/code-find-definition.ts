import { defineTool, quoteArgument } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { findDefinition, renderAnswer, requireSymbol, syntaxReferences } from '../engine/navigation.js';
import { unanalysedNote } from '../engine/reference-scope.js';
import { boundedCount, codeError } from '../errors.js';
import { CodeFindDefinitionParameters } from '../schemas.js';

/** code_find_definition. */
export function codeFindDefinitionTool(context: CodeContext) {
  return defineTool({
    name: 'code_find_definition',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 21,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: "Finds a symbol's definition.",
    parameters: CodeFindDefinitionParameters,
    effects: ['read'],
    network: 'none',
    handler: async (args, { signal }) => {
      requireSymbol(args.symbol);
      const limit = boundedCount('max_results', args.max_results, 20, 500);
      const answer = await findDefinition(context, args, signal);
      if (answer.locations.length === 0) {
        // Not found is not "there is none" when code files mentioning it were never read as
        // trees (a Go repository without a Go server: NewRouter's definition was "not found").
        const { unanalysed } = await syntaxReferences(context, args.symbol, { signal, parse: false });
        const unread =
          unanalysed.length === 0
            ? '.'
            : `, but ${unanalysedNote(args.symbol, unanalysed, 'from syntax trees')}`;
        throw codeError(
          'SYMBOL_NOT_FOUND',
          `No definition of "${quoteArgument(args.symbol)}" was found${args.path === undefined ? ' in the workspace' : ` from "${quoteArgument(args.path)}"`}${unread}`,
          {
            details: {
              symbol: quoteArgument(args.symbol),
              notes: answer.notes,
              unanalysed: unanalysed.length,
            },
          },
        );
      }
      return renderAnswer(answer.locations.length === 1 ? 'definition' : 'definitions', answer, limit);
    },
  });
}
