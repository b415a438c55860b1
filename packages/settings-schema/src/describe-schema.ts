// Turns a (TypeBox / JSON Schema) schema node into a short phrase such as "an integer from 1 to 64".
// Used only to word validation problems; never on the fast path.

type SchemaNode = Record<string, unknown>;

const URL_PATTERN_PREFIX = '^(|https?://';

function quoteList(values: ReadonlyArray<unknown>): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

function range(schema: SchemaNode): string {
  const minimum = schema.minimum as number | undefined;
  const maximum = schema.maximum as number | undefined;
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` of at least ${minimum}`;
  if (maximum !== undefined) return ` of at most ${maximum}`;
  return '';
}

/** A phrase naming what the schema accepts, starting with an article where English needs one. */
export function describeSchema(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return 'a valid value';
  const node = schema as SchemaNode;
  if (Array.isArray(node.anyOf)) return node.anyOf.map(describeSchema).join(' or ');
  if (Array.isArray(node.enum)) return `one of ${quoteList(node.enum)}`;
  if ('const' in node) return JSON.stringify(node.const);
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'a boolean (true or false)';
    case 'integer':
      return `an integer${range(node)}`;
    case 'number':
      return `a number${range(node)}`;
    case 'string': {
      if (typeof node.pattern === 'string' && node.pattern.startsWith(URL_PATTERN_PREFIX)) {
        return 'empty or an http:// or https:// URL';
      }
      if (node.minLength === 1) return 'a non-empty string';
      return 'a string';
    }
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

/** The schema node a JSON Pointer-like schema path (`#/properties/a/anyOf/0`) points at. */
export function schemaAt(root: unknown, schemaPath: string): unknown {
  const parts = schemaPath
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part.length > 0);
  let node: unknown = root;
  for (const part of parts) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
