/** One error as TypeBox's compiled validator reports it (`Validator.Errors(value)`). */
export interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** One problem a person or a model can act on: a JSON Pointer into the value and what is wrong. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/** How a caller words what the shared rules cannot know. */
export interface SchemaProblemWording {
  /** Prefixed to every path (the pointer of the field whose value was checked). */
  pathPrefix?: string;
  /** The message for a property the schema does not allow. */
  unknownProperty(name: string, instancePath: string): string;
  /** The message of any other failed keyword; `undefined` keeps the default wording. */
  message?(error: SchemaError): string | undefined;
}

const BRANCH = /\/anyOf\/\d+$/;

function quoteValues(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/**
 * Turns TypeBox's raw validation errors into one readable problem per fault, the same way for the
 * settings schema and for tool arguments: a missing property or an unknown one is named, a union
 * (`anyOf`) that failed is reported once as a whole instead of once per branch (a union of
 * constants lists its values), the `false` schema that accompanies `additionalProperties` is not
 * reported twice, and duplicates are dropped. Messages never repeat the offending value, so a
 * misplaced credential cannot leak through them.
 *
 * @internal
 */
export function schemaProblems(
  errors: readonly SchemaError[],
  wording: SchemaProblemWording,
): SchemaProblem[] {
  const prefix = wording.pathPrefix ?? '';
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  const add = (instancePath: string, message: string) => {
    const path = prefix + instancePath;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ path, message });
  };
  const unions = errors.filter((error) => error.keyword === 'anyOf');
  const insideUnion = (error: SchemaError) =>
    unions.some(
      (union) =>
        union !== error &&
        union.instancePath === error.instancePath &&
        error.schemaPath.startsWith(`${union.schemaPath}/anyOf/`),
    );
  // The constants of a failed union of constants, to list them in the union's one problem.
  const unionConstants = new Map<string, unknown[]>();
  for (const error of errors) {
    if (error.keyword === 'const' && BRANCH.test(error.schemaPath)) {
      const values = unionConstants.get(error.instancePath) ?? [];
      values.push(error.params.allowedValue);
      unionConstants.set(error.instancePath, values);
    }
  }
  const hasUnknownProperty = errors.some((error) => error.keyword === 'additionalProperties');
  for (const error of errors) {
    if (insideUnion(error)) continue;
    switch (error.keyword) {
      case 'required':
        for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
          add(`${error.instancePath}/${escapePointer(name)}`, 'is required');
        }
        continue;
      case 'additionalProperties':
        for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) {
          add(
            `${error.instancePath}/${escapePointer(name)}`,
            wording.unknownProperty(name, error.instancePath),
          );
        }
        continue;
      case 'boolean':
        // The `false` schema of an unknown property: already reported by additionalProperties.
        if (!hasUnknownProperty) add(error.instancePath, wording.message?.(error) ?? 'is not allowed');
        continue;
    }
    const constants = unionConstants.get(error.instancePath);
    add(error.instancePath, wording.message?.(error) ?? defaultMessage(error, constants));
  }
  return problems;
}

function defaultMessage(error: SchemaError, unionConstants: unknown[] | undefined): string {
  const { limit } = error.params;
  switch (error.keyword) {
    case 'enum':
      return `must be one of: ${quoteValues((error.params.allowedValues as unknown[]) ?? [])}`;
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    case 'anyOf':
      return unionConstants
        ? `must be one of: ${quoteValues(unionConstants)}`
        : 'does not match any allowed form';
    case 'minimum':
      return `must be at least ${limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'minItems':
      return `must have at least ${limit} item(s)`;
    case 'maxItems':
      return `must have at most ${limit} item(s)`;
    case 'type':
      return error.message.replace(/^must be /, 'must be of type ');
    default:
      return error.message;
  }
}

/** RFC 6901: `~` and `/` inside a property name. */
function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
