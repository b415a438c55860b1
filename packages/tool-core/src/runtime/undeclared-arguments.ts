import type { TSchema } from 'typebox';
import { quoteArgument } from '../bounded-quote.js';
import type { ToolResult } from '../result.js';

/** Ignored names named in the note; the rest are counted (a caller controls how many there are). */
const MAX_NAMES_LISTED = 5;

/** The parameter names a tool's schema declares, read once per tool with its argument check. */
export interface DeclaredParameters {
  names: readonly string[];
  set: ReadonlySet<string>;
}

/**
 * The names a plain object schema declares; undefined for any other schema (a union, or an
 * object whose other keys have a schema of their own), where no name can be called undeclared.
 */
export function declaredParameters(schema: TSchema): DeclaredParameters | undefined {
  const shape = schema as {
    type?: unknown;
    properties?: Record<string, unknown>;
    patternProperties?: unknown;
    additionalProperties?: unknown;
  };
  if (shape.type !== 'object' || shape.patternProperties !== undefined) return undefined;
  if (typeof shape.additionalProperties === 'object') return undefined;
  const names = Object.keys(shape.properties ?? {});
  return { names, set: new Set(names) };
}

/**
 * The top-level argument names `args` holds that the tool's schema does not declare. Most schemas
 * accept such names (SPEC 4.4 forbids extras for few tools), so they pass the argument check and
 * no handler reads them: `code_diagnostics { path }` checked the whole workspace, silently.
 */
export function undeclaredArgumentNames(declared: DeclaredParameters | undefined, args: unknown): string[] {
  if (declared === undefined || typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  return Object.keys(args).filter((name) => !declared.set.has(name));
}

/**
 * The result with a first text part saying which arguments were ignored and what the tool takes,
 * and the names (at most {@link MAX_NAMES_LISTED}) under `structuredContent.ignored_arguments`.
 */
export function withUndeclaredArgumentsNote(
  result: ToolResult,
  toolName: string,
  declared: DeclaredParameters,
  names: readonly string[],
): ToolResult {
  const listed = names.slice(0, MAX_NAMES_LISTED).map((name) => quoteArgument(name, 80));
  const more = names.length > listed.length ? ` and ${names.length - listed.length} more` : '';
  const takes =
    declared.names.length === 0
      ? `${toolName} takes no arguments`
      : `${toolName} takes ${declared.names.join(', ')}`;
  const text = `[Ignored argument${names.length === 1 ? '' : 's'} ${listed.map((name) => `"${name}"`).join(', ')}${more}: not a parameter of ${toolName}, so this call ran without ${names.length === 1 ? 'it' : 'them'}. ${takes}.]`;
  return {
    ...result,
    content: [{ type: 'text', text }, ...result.content],
    structuredContent: { ...(result.structuredContent ?? {}), ignored_arguments: listed },
  };
}
