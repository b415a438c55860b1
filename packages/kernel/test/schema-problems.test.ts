import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { expect, it } from 'vitest';
import { type SchemaError, schemaProblems } from '../src/index.js';

const Schema = Type.Object(
  {
    mode: Type.Union([Type.Literal('fast'), Type.Literal('safe')]),
    count: Type.Integer({ minimum: 1, maximum: 5 }),
    name: Type.String(),
  },
  { additionalProperties: false },
);

function problemsOf(value: unknown, message?: (error: SchemaError) => string | undefined) {
  const validator = Compile(Schema);
  return schemaProblems(validator.Errors(value) as unknown as SchemaError[], {
    pathPrefix: '/field',
    unknownProperty: (name) => `unknown "${name}"`,
    ...(message ? { message } : {}),
  });
}

it('reports a failed union once, listing its constants, and names missing and unknown properties', () => {
  expect(problemsOf({ mode: 'slow', count: 9, 'a/b': 1 })).toEqual([
    { path: '/field/name', message: 'is required' },
    { path: '/field/a~1b', message: 'unknown "a/b"' },
    { path: '/field/mode', message: 'must be one of: "fast", "safe"' },
    { path: '/field/count', message: 'must be at most 5' },
  ]);
});

it('lets a caller word any keyword, and never repeats the offending value', () => {
  const problems = problemsOf({ mode: 'sk-secret-value', count: 0, name: 'x' }, (error) =>
    error.keyword === 'anyOf' ? 'must be a known mode' : undefined,
  );
  expect(problems).toEqual([
    { path: '/field/mode', message: 'must be a known mode' },
    { path: '/field/count', message: 'must be at least 1' },
  ]);
  expect(JSON.stringify(problems)).not.toContain('sk-secret-value');
});
