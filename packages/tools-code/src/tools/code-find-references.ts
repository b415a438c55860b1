import { defineTool } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { findReferences, renderAnswer, requireSymbol } from '../engine/navigation.js';
import { boundedCount } from '../errors.js';
import { CodeFindReferencesParameters } from '../schemas.js';

/** code_find_references. */
export function codeFindReferencesTool(context: CodeContext) {
  return defineTool({
    name: 'code_find_references',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 22,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Finds references to a symbol.',
    parameters: CodeFindReferencesParameters,
    effects: ['read'],
    network: 'none',
    handler: async (args, { signal }) => {
      requireSymbol(args.symbol);
      const limit = boundedCount('max_results', args.max_results, 100, 5_000);
      const answer = await findReferences(context, args, signal);
      return renderAnswer(answer.locations.length === 1 ? 'reference' : 'references', answer, limit);
    },
  });
}
