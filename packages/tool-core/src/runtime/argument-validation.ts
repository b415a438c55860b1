import { createRequire } from 'node:module';
import type { TSchema } from 'typebox';
import type { Compile as CompileFunction } from 'typebox/compile';
import type { ArgumentProblem } from '../errors.js';

// Why typebox's compiler is required on first use instead of imported: it is about 300 ES module
// files on top of the type builders, and Node resolves and links each one separately, which is a
// large part of a process's start (an MCP server answering tools/list never validates anything).
// Node >= 20.19 (our engines floor) loads an ES module synchronously through require(), sharing
// the module cache with import, so there is one typebox either way.
const requireFromHere = createRequire(import.meta.url);
let compileFunction: typeof CompileFunction | undefined;

function compiler(): typeof CompileFunction {
  compileFunction ??= (requireFromHere('typebox/compile') as { Compile: typeof CompileFunction }).Compile;
  return compileFunction;
}

export type ArgumentValidator = (value: unknown) => ArgumentProblem[];

interface RawError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function allowedParameterNames(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  return properties === undefined ? [] : Object.keys(properties);
}

function describeValues(values: unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
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
    return formatErrors(validator.Errors(value) as unknown as RawError[], parameterNames);
  };
}

function formatErrors(errors: RawError[], parameterNames: string[]): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  const seen = new Set<string>();
  const add = (path: string, message: string) => {
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ path, message });
  };
  const constsByPath = new Map<string, unknown[]>();
  for (const error of errors) {
    if (error.keyword === 'const' && /\/anyOf\/\d+$/.test(error.schemaPath)) {
      const values = constsByPath.get(error.instancePath) ?? [];
      values.push(error.params.allowedValue);
      constsByPath.set(error.instancePath, values);
    }
  }
  const hasAdditionalPropertyError = errors.some((error) => error.keyword === 'additionalProperties');
  for (const error of errors) {
    switch (error.keyword) {
      case 'required':
        for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
          add(`${error.instancePath}/${name}`, 'is required');
        }
        break;
      case 'additionalProperties':
        for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) {
          const allowed =
            error.instancePath === '' && parameterNames.length > 0
              ? `; allowed: ${parameterNames.join(', ')}`
              : '';
          add(`${error.instancePath}/${name}`, `is not an allowed parameter${allowed}`);
        }
        break;
      case 'boolean':
        if (!hasAdditionalPropertyError) add(error.instancePath, 'is not allowed');
        break;
      case 'enum':
        add(
          error.instancePath,
          `must be one of: ${describeValues((error.params.allowedValues as unknown[]) ?? [])}`,
        );
        break;
      case 'const':
        if (!constsByPath.has(error.instancePath) || !/\/anyOf\/\d+$/.test(error.schemaPath)) {
          add(error.instancePath, `must be ${JSON.stringify(error.params.allowedValue)}`);
        }
        break;
      case 'anyOf': {
        const values = constsByPath.get(error.instancePath);
        add(
          error.instancePath,
          values ? `must be one of: ${describeValues(values)}` : 'does not match any allowed form',
        );
        break;
      }
      case 'minimum':
      case 'exclusiveMinimum':
        add(
          error.instancePath,
          `must be ${error.keyword === 'minimum' ? 'at least' : 'greater than'} ${error.params.limit}`,
        );
        break;
      case 'maximum':
      case 'exclusiveMaximum':
        add(
          error.instancePath,
          `must be ${error.keyword === 'maximum' ? 'at most' : 'less than'} ${error.params.limit}`,
        );
        break;
      case 'minItems':
        add(error.instancePath, `must have at least ${error.params.limit} item(s)`);
        break;
      case 'maxItems':
        add(error.instancePath, `must have at most ${error.params.limit} item(s)`);
        break;
      case 'type':
        add(error.instancePath, error.message.replace(/^must be /, 'must be of type '));
        break;
      default:
        add(error.instancePath, error.message);
    }
  }
  return problems;
}
