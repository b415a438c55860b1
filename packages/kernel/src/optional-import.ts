/**
 * How an optional dependency failed to load. `missing`: the package is not installed (the
 * caller's error says "install X"); `broken`: it is installed but threw while loading (a native
 * addon built for another Node, a syntax error), which installing again will not fix silently.
 */
export type OptionalImportFailure = 'missing' | 'broken';

/**
 * Loads an optional (heavy or native) dependency on first use. The caller passes the `import()`
 * itself, because a module is resolved from the file that imports it: a helper importing by name
 * would look in its own package's dependencies, not the caller's.
 *
 * The module's ES namespace is returned, or its CommonJS `default` export when the namespace
 * lacks `expect` (packages such as `pg` publish CommonJS). `onFailure` builds the caller's own
 * error (with its closed code and an "install X" message); the original error is its cause.
 *
 * @example
 * ```ts
 * const pg = await importOptional(() => import('pg'), {
 *   packageName: 'pg',
 *   expect: 'Pool',
 *   onFailure: (failure, cause) =>
 *     storeError('POSTGRES_DRIVER_MISSING', `Install "pg" to use PostgreSQL storage (${failure}).`, cause),
 * });
 * ```
 * @internal
 */
export async function importOptional<Module extends object>(
  load: () => Promise<unknown>,
  options: {
    /** The npm package name, to tell a missing package from one that fails inside. */
    packageName: string;
    /** An export the module must have; used to unwrap a CommonJS `default` export. */
    expect?: string;
    onFailure: (failure: OptionalImportFailure, cause: unknown) => Error;
  },
): Promise<Module> {
  let loaded: unknown;
  try {
    loaded = await load();
  } catch (error) {
    throw options.onFailure(isMissingPackage(error, options.packageName) ? 'missing' : 'broken', error);
  }
  const namespace = loaded as Record<string, unknown>;
  if (options.expect === undefined || options.expect in namespace) return namespace as Module;
  const fallback = namespace.default as Record<string, unknown> | undefined;
  if (fallback !== undefined && fallback !== null && options.expect in fallback) return fallback as Module;
  throw options.onFailure(
    'broken',
    new Error(`The package "${options.packageName}" has no export "${options.expect}".`),
  );
}

/** True when the error says the package itself (not one of its own imports) is not installed. */
export function isMissingPackage(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = String((error as { message?: unknown }).message ?? '');
  return (
    message.includes(`'${packageName}'`) ||
    message.includes(`'${packageName}/`) ||
    message.includes(`"${packageName}"`)
  );
}
