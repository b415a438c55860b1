import { CONFIGURATIONS, type Configuration, isConfiguration } from '@assistant-kit/kernel';
import type { DeclaredToolDefinition } from '@assistant-kit/tool-core';
import { catalogError } from './errors.js';
import { readOnlyVariantOf } from './plan-mode.js';

export { CONFIGURATIONS, type Configuration, isConfiguration };

/**
 * The tools a configuration offers, in SPEC 4.4 order, derived from each tool's declared facts:
 * a tool is offered where its `offeredIn` says, sorted by its `order`. In R a tool with a
 * read-only variant is offered as that variant (code_intelligence without apply operations), so
 * its schema and annotations say it cannot write (its effect classes stay SPEC 4.4's).
 *
 * Two tools claiming one position is a packaging error (`CATALOG_INCOMPLETE`).
 */
export function toolsOfConfiguration(
  tools: readonly DeclaredToolDefinition[],
  configuration: Configuration,
): DeclaredToolDefinition[] {
  const positions = new Map<number, string>();
  for (const tool of tools) {
    const holder = positions.get(tool.facts.order);
    if (holder !== undefined) {
      throw catalogError(
        'CATALOG_INCOMPLETE',
        `${holder} and ${tool.name} both declare position ${tool.facts.order} of the tool order.`,
        { details: { order: tool.facts.order, tools: [holder, tool.name] } },
      );
    }
    positions.set(tool.facts.order, tool.name);
  }
  return tools
    .filter((tool) => tool.facts.offeredIn.includes(configuration))
    .sort((left, right) => left.facts.order - right.facts.order)
    .map((tool) =>
      configuration === 'R' && tool.facts.planMode === 'read-only-variant'
        ? readOnlyVariantOf(tool, 'declared')
        : tool,
    );
}
