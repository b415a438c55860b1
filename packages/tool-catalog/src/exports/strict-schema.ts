import type { JsonSchema } from '../tool-descriptor.js';

/**
 * OpenAI's strict mode (Structured Outputs for function calling) accepts a subset of JSON Schema:
 * every object lists all its properties as required and forbids additional ones, optional values
 * are expressed as nullable, and only these keywords are understood.
 */
const STRUCTURAL_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  '$ref',
  '$defs',
  'definitions',
]);
const NARROWING_KEYWORDS_KEPT = new Set([
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
/**
 * Keywords strict mode rejects that only narrow or annotate a value: they are moved into the
 * description (the runtime still enforces them when the call arrives).
 */
const MOVED_TO_DESCRIPTION: Record<string, (value: unknown) => string> = {
  minLength: (value) => `at least ${value} characters`,
  maxLength: (value) => `at most ${value} characters`,
  uniqueItems: (value) => (value === true ? 'items must be unique' : ''),
  default: (value) => `default ${JSON.stringify(value)}`,
  minProperties: (value) => `at least ${value} properties`,
  maxProperties: (value) => `at most ${value} properties`,
  examples: (value) =>
    Array.isArray(value) ? `e.g. ${value.map((item) => JSON.stringify(item)).join(', ')}` : '',
};
const DROPPED_ANNOTATIONS = new Set([
  'title',
  '$schema',
  '$id',
  '$comment',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** Documented limits of strict schemas. */
export const STRICT_LIMITS = {
  maxObjectProperties: 5000,
  maxNestingDepth: 10,
  maxEnumValues: 1000,
  maxTotalStringLength: 120_000,
} as const;

/** A schema converted for strict mode, or why it could not be (the tool is then sent non-strict). */
export type StrictConversion = { strict: true; schema: JsonSchema } | { strict: false; reason: string };

class NotStrictCompatible extends Error {}

function notStrict(reason: string): never {
  throw new NotStrictCompatible(reason);
}

function withNote(description: unknown, notes: string[]): string | undefined {
  const kept = notes.filter((note) => note.length > 0);
  if (kept.length === 0) return typeof description === 'string' ? description : undefined;
  const suffix = `(${kept.join('; ')})`;
  return typeof description === 'string' && description.length > 0 ? `${description} ${suffix}` : suffix;
}

function makeNullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((branch) => (branch as JsonSchema).type === 'null');
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  if ('const' in schema) {
    const { const: constant, description, ...rest } = schema;
    const nullable: JsonSchema = { anyOf: [{ ...rest, const: constant }, { type: 'null' }] };
    if (description !== undefined) nullable.description = description;
    return nullable;
  }
  const next: JsonSchema = { ...schema };
  if (typeof schema.type === 'string') next.type = schema.type === 'null' ? 'null' : [schema.type, 'null'];
  else if (Array.isArray(schema.type))
    next.type = schema.type.includes('null') ? schema.type : [...schema.type, 'null'];
  else return { anyOf: [schema, { type: 'null' }] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) next.enum = [...schema.enum, null];
  return next;
}

interface Budget {
  properties: number;
  enumValues: number;
  stringLength: number;
}

function convert(schema: unknown, depth: number, budget: Budget, location: string): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return notStrict(`${location} is not a schema object`);
  }
  if (depth > STRICT_LIMITS.maxNestingDepth)
    notStrict(`nesting deeper than ${STRICT_LIMITS.maxNestingDepth}`);
  const source = schema as JsonSchema;
  const result: JsonSchema = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(source)) {
    if (keyword === 'description' || keyword === 'properties' || keyword === 'required') continue;
    if (keyword === 'additionalProperties') {
      if (value === false) continue;
      if (value === true || typeof value === 'object') {
        // An open map (free-form keys) cannot be expressed in strict mode.
        if (source.properties === undefined) notStrict(`${location} is a free-form object`);
      }
      continue;
    }
    if (keyword === 'items') {
      if (Array.isArray(value)) notStrict(`${location} uses tuple items`);
      result.items = convert(value, depth + 1, budget, `${location}/items`);
      continue;
    }
    if (keyword === 'anyOf') {
      if (depth === 0) notStrict('the root is an anyOf');
      if (!Array.isArray(value)) notStrict(`${location}/anyOf is not a list`);
      result.anyOf = value.map((branch, index) =>
        convert(branch, depth + 1, budget, `${location}/anyOf/${index}`),
      );
      continue;
    }
    if (keyword === '$defs' || keyword === 'definitions') {
      const definitions: JsonSchema = {};
      for (const [name, definition] of Object.entries(value as JsonSchema)) {
        definitions[name] = convert(definition, depth + 1, budget, `${location}/${keyword}/${name}`);
      }
      result[keyword] = definitions;
      continue;
    }
    if (keyword === 'enum') {
      if (!Array.isArray(value)) notStrict(`${location}/enum is not a list`);
      budget.enumValues += value.length;
      for (const item of value) if (typeof item === 'string') budget.stringLength += item.length;
      result.enum = [...value];
      continue;
    }
    if (keyword === 'format') {
      if (typeof value === 'string' && STRICT_FORMATS.has(value)) result.format = value;
      else notes.push(`format ${String(value)}`);
      continue;
    }
    if (STRUCTURAL_KEYWORDS.has(keyword) || NARROWING_KEYWORDS_KEPT.has(keyword)) {
      result[keyword] = value;
      continue;
    }
    const describe = MOVED_TO_DESCRIPTION[keyword];
    if (describe !== undefined) {
      notes.push(describe(value));
      continue;
    }
    if (DROPPED_ANNOTATIONS.has(keyword)) continue;
    notStrict(`${location} uses "${keyword}", which strict mode does not support`);
  }
  const isObject = source.type === 'object' || (Array.isArray(source.type) && source.type.includes('object'));
  if (isObject || source.properties !== undefined) {
    const properties = (source.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(source.required) ? (source.required as string[]) : []);
    const converted: JsonSchema = {};
    for (const [name, property] of Object.entries(properties)) {
      budget.properties += 1;
      budget.stringLength += name.length;
      const strictProperty = convert(property, depth + 1, budget, `${location}/properties/${name}`);
      converted[name] = required.has(name) ? strictProperty : makeNullable(strictProperty);
    }
    result.type = source.type ?? 'object';
    result.properties = converted;
    result.required = Object.keys(properties);
    result.additionalProperties = false;
  }
  const description = withNote(source.description, notes);
  if (description !== undefined) result.description = description;
  return result;
}

/**
 * Converts a tool's parameter schema to OpenAI's strict form when it can be expressed there
 * (every property required, optional ones nullable, additional properties forbidden); otherwise
 * says why not, and the tool is offered non-strict with its schema unchanged.
 */
export function toStrictSchema(schema: JsonSchema): StrictConversion {
  if (schema.type !== 'object') return { strict: false, reason: 'the root is not an object schema' };
  const budget: Budget = { properties: 0, enumValues: 0, stringLength: 0 };
  try {
    const converted = convert(schema, 0, budget, '#');
    if (budget.properties > STRICT_LIMITS.maxObjectProperties)
      return { strict: false, reason: 'too many properties' };
    if (budget.enumValues > STRICT_LIMITS.maxEnumValues)
      return { strict: false, reason: 'too many enum values' };
    if (budget.stringLength > STRICT_LIMITS.maxTotalStringLength) {
      return { strict: false, reason: 'names and enum values are too long in total' };
    }
    return { strict: true, schema: converted };
  } catch (error) {
    if (error instanceof NotStrictCompatible) return { strict: false, reason: error.message };
    throw error;
  }
}

function acceptsNull(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as JsonSchema;
  if (node.type === 'null') return true;
  if (Array.isArray(node.type) && node.type.includes('null')) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if ('const' in node && node.const === null) return true;
  if (Array.isArray(node.anyOf)) return node.anyOf.some(acceptsNull);
  if (Array.isArray(node.oneOf)) return node.oneOf.some(acceptsNull);
  return node.type === undefined && node.enum === undefined && !('const' in node);
}

/**
 * Turns arguments produced under a strict schema back into arguments of the original schema: a
 * `null` given for a property whose original schema does not accept null means "omitted".
 */
export function removeStrictNulls(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return typeof items === 'object' && items !== null && !Array.isArray(items)
      ? value.map((item) => removeStrictNulls(items as JsonSchema, item))
      : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const result: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    const property = properties[name];
    if (property === undefined) {
      result[name] = item;
      continue;
    }
    if (item === null && !acceptsNull(property)) continue;
    result[name] = removeStrictNulls(property, item);
  }
  return result;
}
