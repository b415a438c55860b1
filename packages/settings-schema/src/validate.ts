import { type SchemaError, schemaProblems } from '@assistant-kit/kernel';
import { Compile, type Validator } from '@assistant-kit/kernel/typebox-compile';
import type { TSchema } from 'typebox';
import { ClientSettings } from './client-settings-schema.js';
import { describeSchema, schemaAt } from './describe-schema.js';
import { CLIENT_SETTINGS_FIELD_NAMES, isClientSettingsField } from './fields.js';
import { appendPointer } from './json-pointer.js';
import type { SettingsProblem } from './settings-error.js';

/** Result of {@link validateClientSettings}. */
export type ClientSettingsValidation =
  | { readonly ok: true; readonly value: ClientSettings }
  | { readonly ok: false; readonly problems: SettingsProblem[] };

// Compiled lazily, once: importing the package stays cheap, and every later call runs generated code.
let wholeObjectValidator: Validator | undefined;
const fieldValidators = new Map<string, Validator>();

function wholeObject(): Validator {
  wholeObjectValidator ??= Compile(ClientSettings as TSchema);
  return wholeObjectValidator;
}

function fieldValidator(name: string): Validator {
  let validator = fieldValidators.get(name);
  if (validator === undefined) {
    validator = Compile((ClientSettings.properties as Record<string, TSchema>)[name]!);
    fieldValidators.set(name, validator);
  }
  return validator;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function messageFor(error: SchemaError, fieldSchema: unknown): string {
  const node = schemaAt(fieldSchema, error.schemaPath);
  switch (error.keyword) {
    case 'type':
    case 'enum':
    case 'const':
    case 'anyOf':
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'pattern':
    case 'multipleOf':
      return `must be ${describeSchema(node)}`;
    case 'minLength':
      return error.params.limit === 1 || (node as { minLength?: number })?.minLength === 1
        ? 'must not be empty'
        : `must be at least ${(node as { minLength?: number })?.minLength} characters long`;
    case 'maxLength':
      return `must be at most ${(node as { maxLength?: number })?.maxLength} characters long`;
    case 'maxItems':
      return `must have at most ${(node as { maxItems?: number })?.maxItems} items`;
    case 'minItems':
      return `must have at least ${(node as { minItems?: number })?.minItems} items`;
    case 'uniqueItems':
      return 'must not contain the same item twice';
    default:
      return error.message;
  }
}

/** Readable problems of one field's value, paths prefixed with the field's pointer. */
function fieldProblems(name: string, value: unknown): SettingsProblem[] {
  const validator = fieldValidator(name);
  const fieldSchema = validator.Type();
  const base = appendPointer('', name);
  const problems = schemaProblems(validator.Errors(value) as unknown as SchemaError[], {
    pathPrefix: base,
    unknownProperty: (key) => `unknown field "${key}"`,
    message: (error) => messageFor(error, fieldSchema),
  });
  if (problems.length === 0) problems.push({ path: base, message: `must be ${describeSchema(fieldSchema)}` });
  return problems;
}

/** Every problem of a value that failed the compiled check, in field order. */
function collectProblems(value: unknown): SettingsProblem[] {
  if (!isPlainObject(value)) {
    return [{ path: '', message: 'must be an object holding the client settings fields' }];
  }
  const problems: SettingsProblem[] = [];
  for (const key of Object.keys(value)) {
    if (!isClientSettingsField(key)) {
      problems.push({ path: appendPointer('', key), message: `unknown field "${key}"` });
    }
  }
  for (const name of CLIENT_SETTINGS_FIELD_NAMES) {
    if (!Object.hasOwn(value, name)) {
      problems.push({ path: appendPointer('', name), message: 'is required' });
    } else if (!fieldValidator(name).Check(value[name])) {
      problems.push(...fieldProblems(name, value[name]));
    }
  }
  return problems;
}

/**
 * Checks a complete client settings object with a compiled checker. On failure, returns every problem
 * with its JSON Pointer and a readable message (unknown field, missing field, wrong type, out of range).
 * Messages never repeat the offending value, so a misplaced credential cannot leak through them.
 *
 * @example
 * ```ts
 * const result = validateClientSettings(body);
 * if (!result.ok) console.log(result.problems); // [{ path: '/maxParallelAgents', message: 'must be an integer from 1 to 64' }]
 * ```
 */
export function validateClientSettings(value: unknown): ClientSettingsValidation {
  if (wholeObject().Check(value)) return { ok: true, value: value as ClientSettings };
  return { ok: false, problems: collectProblems(value) };
}

/**
 * Checks one field's value with that field's compiled checker; returns its problems (empty when valid).
 * Used to validate partial layers such as a turn request's overlay.
 */
export function validateClientSettingsField(name: string, value: unknown): SettingsProblem[] {
  if (!isClientSettingsField(name))
    return [{ path: appendPointer('', name), message: `unknown field "${name}"` }];
  if (fieldValidator(name).Check(value)) return [];
  return fieldProblems(name, value);
}
