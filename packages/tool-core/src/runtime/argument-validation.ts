import { createRequire } from 'node:module';
import { type SchemaError, schemaProblems } from '@assistant-kit/kernel';
import type { TSchema } from 'typebox';
import type { Compile as CompileFunction } from 'typebox/compile';
import type { ArgumentProblem } from '../errors.js';

// Why typebox's compiler is required on first use instead of imported: an MCP server answering
// tools/list never validates anything, and from source the compiler is about 300 ES module files
// on top of the type builders, each resolved and linked separately. Node >= 20.19 (our engines
// floor) loads an ES module synchronously through require(), sharing the module cache with import.
// Built, it comes from the kernel's bundled TypeBox, the copy the type builders come from (see
// kernel/src/typebox.ts); from source (this file is TypeScript) the kernel's entry is TypeScript
// too, which require() cannot load, so TypeBox's own module is required: the same copy the
// kernel's source re-exports. One TypeBox either way.
const requireFromHere = createRequire(import.meta.url);
const COMPILER_MODULE = import.meta.url.endsWith('.ts')
  ? 'typebox/compile'
  : '@assistant-kit/kernel/typebox-compile';
let compileFunction: typeof CompileFunction | undefined;

function compiler(): typeof CompileFunction {
  compileFunction ??= (requireFromHere(COMPILER_MODULE) as { Compile: typeof CompileFunction }).Compile;
  return compileFunction;
}

/** Checks a call's arguments against one tool's schema; an empty list means they are valid. */
export type ArgumentValidator = (value: unknown) => ArgumentProblem[];

function allowedParameterNames(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  return properties === undefined ? [] : Object.keys(properties);
}

/**
 * Compiles a tool's parameter schema once into a checker that returns every problem with a
 * readable message (empty when the arguments are valid).
 */
export function compileArgumentValidator(schema: TSchema): ArgumentValidator {
  const validator = compiler()(schema);
  const parameterNames = allowedParameterNames(schema);
  return (value) => {
    if (validator.Check(value)) return [];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return [{ path: '', message: 'arguments must be a JSON object' }];
    }
    return schemaProblems(validator.Errors(value) as unknown as SchemaError[], {
      unknownProperty: (_name, instancePath) =>
        instancePath === '' && parameterNames.length > 0
          ? `is not an allowed parameter; allowed: ${parameterNames.join(', ')}`
          : 'is not an allowed parameter',
    });
  };
}
