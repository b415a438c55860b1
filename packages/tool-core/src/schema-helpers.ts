import { type TUnsafe, Type } from '@assistant-kit/kernel/typebox';

/**
 * A string restricted to the given values, emitted as plain JSON Schema
 * `{ type: 'string', enum: [...] }` (the form MCP clients and function-calling APIs expect).
 *
 * @example
 * const WaitUntil = StringEnum(['load', 'domcontentloaded', 'networkidle0', 'networkidle2']);
 */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: { description?: string; default?: Values[number] } = {},
): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ type: 'string', enum: [...values], ...options });
}
