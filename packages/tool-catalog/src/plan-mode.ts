import type { DeclaredToolDefinition } from '@assistant-kit/tool-core';

/**
 * The tools the `plan` permission mode offers on top of a configuration, derived from each tool's
 * declared `planMode`: `offered` tools unchanged, `read-only-variant` tools as their variant,
 * `hidden` tools not at all. A plan is made by reading code, symbols, diagnostics, tests and
 * diffs; nothing offered here can change a file, start a command or open a browser.
 */
export function planModeTools(tools: readonly DeclaredToolDefinition[]): DeclaredToolDefinition[] {
  return tools.flatMap((tool) => {
    switch (tool.facts.planMode) {
      case 'offered':
        return [tool];
      case 'read-only-variant':
        return [readOnlyVariantOf(tool, 'read')];
      default:
        // 'hidden', the only other behaviour (the union is closed).
        return [];
    }
  });
}

/**
 * A tool restricted to its read-only parameters (`facts.readOnlyParameters`) and annotated
 * read-only, so hosts that auto-approve reads do not prompt. The handler is the same; the schema
 * check refuses the writing operations before it runs.
 *
 * `effects`: plan mode authorises the variant as `read` only (`'read'`); configuration R keeps
 * the effect classes SPEC 4.4 declares for the tool (`'declared'`), since R's workspace refuses
 * every write anyway.
 */
export function readOnlyVariantOf(
  tool: DeclaredToolDefinition,
  effects: 'read' | 'declared',
): DeclaredToolDefinition {
  if (tool.facts.readOnlyParameters === undefined) {
    throw new TypeError(`${tool.name} declares a read-only variant without readOnlyParameters.`);
  }
  return {
    ...tool,
    parameters: tool.facts.readOnlyParameters,
    ...(effects === 'read' ? { effects: ['read'] as const, capabilities: [] } : {}),
    facts: {
      ...tool.facts,
      annotations: {
        ...tool.facts.annotations,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
      },
    },
  };
}
