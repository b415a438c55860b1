import path from 'node:path';
import type { Workspace } from '@assistant-kit/tool-core';
import { inFolder } from '../files/relative-folders.js';
import { isRelativeSpecifier, resolveImport } from './import-resolution.js';
import { readWorkspaceText } from './project-profile.js';

/** `compilerOptions.paths` of one tsconfig/jsconfig, with the folder its targets are relative to. */
interface PathAliases {
  /** Workspace-relative folder the config applies to ('.' for the root). */
  folder: string;
  /** Folder the alias targets are relative to (baseUrl, else the config's folder). */
  baseFolder: string;
  aliases: [pattern: string, targets: string[]][];
}

/** What a package.json says about resolving its own name and `#imports`. */
interface PackageManifest {
  folder: string;
  name?: string;
  exports?: unknown;
  main?: string;
  imports?: Record<string, unknown>;
}

/** Conditions tried, in order, when an exports entry is an object (source first: tests run it). */
const CONDITIONS = ['source', 'development', 'import', 'module', 'require', 'node', 'default', 'types'];

/** Strips comments and trailing commas, as TypeScript accepts them in its config files. */
export function parseJsonc(text: string): Record<string, unknown> | undefined {
  const withoutComments = text.replace(/"(?:[^"\\]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (match) =>
    match.startsWith('"') ? match : '',
  );
  try {
    const value = JSON.parse(withoutComments.replace(/,(\s*[}\]])/g, '$1')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isInside(folder: string, file: string): boolean {
  return folder === '.' || file.startsWith(`${folder}/`);
}

/** The target of an exports/imports entry for one subpath, walking condition objects. */
function conditionalTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const entry of value) {
      const target = conditionalTarget(entry);
      if (target !== undefined) return target;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const condition of CONDITIONS) {
      if (condition in record) {
        const target = conditionalTarget(record[condition]);
        if (target !== undefined) return target;
      }
    }
  }
  return undefined;
}

/** Matches `subpath` against a map whose keys may hold one `*`; returns the target with `*` filled. */
function matchSubpath(map: Record<string, unknown>, subpath: string): string | undefined {
  if (subpath in map) return conditionalTarget(map[subpath]);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      const target = conditionalTarget(value);
      if (target !== undefined)
        return target.replace('*', subpath.slice(prefix.length, subpath.length - suffix.length));
    }
  }
  return undefined;
}

/** A folder build tools write to, which a source folder of the same name replaces (`dist/` for `src/`). */
const BUILD_OUTPUT_FOLDER = /(^|\/)(dist|distribution|build|lib|out)\//;

/**
 * Resolves import specifiers to workspace files the way the project's own tools do: relative
 * paths and index files, tsconfig/jsconfig `paths` aliases, the package's own name through
 * package.json `exports` (or `main`), `#imports`, other packages of a monorepo by name, and Python
 * modules. Built files named by a manifest (`dist/index.js`) map back to their sources
 * (`src/index.ts`) when only the sources are in the workspace.
 */
export class ModuleResolver {
  readonly #files: ReadonlySet<string>;
  readonly #aliases: PathAliases[];
  readonly #packages: PackageManifest[];

  private constructor(files: ReadonlySet<string>, aliases: PathAliases[], packages: PackageManifest[]) {
    this.#files = files;
    this.#aliases = aliases;
    this.#packages = packages;
  }

  /** Reads the project's tsconfig/jsconfig and package.json files through the Workspace. */
  static async load(workspace: Workspace, files: readonly string[]): Promise<ModuleResolver> {
    const fileSet = new Set(files);
    const aliases: PathAliases[] = [];
    const packages: PackageManifest[] = [];
    for (const file of files) {
      const base = path.posix.basename(file);
      const depth = file.split('/').length;
      if (depth > 4 || /(^|\/)(fixtures?|examples?|vendor|testdata)\//.test(file)) continue;
      const folder = path.posix.dirname(file);
      if (/^[tj]sconfig(\.[\w-]+)?\.json$/.test(base)) {
        const json = parseJsonc((await readWorkspaceText(workspace, file)) ?? '');
        const options = json?.compilerOptions as Record<string, unknown> | undefined;
        const paths = options?.paths as Record<string, unknown> | undefined;
        if (paths === undefined || paths === null || typeof paths !== 'object') continue;
        const baseUrl = typeof options?.baseUrl === 'string' ? options.baseUrl : '.';
        aliases.push({
          folder,
          baseFolder: inFolder(folder, baseUrl) || '.',
          aliases: Object.entries(paths).map(([pattern, targets]) => [
            pattern,
            Array.isArray(targets)
              ? targets.filter((target): target is string => typeof target === 'string')
              : [],
          ]),
        });
      } else if (base === 'package.json') {
        const json = parseJsonc((await readWorkspaceText(workspace, file)) ?? '');
        if (json === undefined) continue;
        packages.push({
          folder,
          ...(typeof json.name === 'string' ? { name: json.name } : {}),
          ...(json.exports === undefined ? {} : { exports: json.exports }),
          ...(typeof json.main === 'string' ? { main: json.main } : {}),
          ...(json.imports !== null && typeof json.imports === 'object'
            ? { imports: json.imports as Record<string, unknown> }
            : {}),
        });
      }
    }
    // The nearest config wins: deepest folders first.
    aliases.sort((a, b) => b.folder.length - a.folder.length);
    packages.sort((a, b) => b.folder.length - a.folder.length);
    return new ModuleResolver(fileSet, aliases, packages);
  }

  /** The workspace file `specifier` (written in `fromFile`) names, or undefined. */
  resolve(fromFile: string, specifier: string): string | undefined {
    if (isRelativeSpecifier(specifier) && !/\.pyi?$/.test(fromFile)) {
      // A folder with a package.json is loaded through its `main` before its index file, as Node
      // loads it (`require('..')` from a package's tests).
      const folder = path.posix
        .normalize(path.posix.join(path.posix.dirname(fromFile), specifier))
        .replace(/(.)\/$/, '$1');
      const manifest = this.#packages.find((entry) => entry.folder === folder);
      const main = manifest?.main === undefined ? undefined : this.#fileAt(manifest.folder, manifest.main);
      // Build output the workspace does not hold (it is ignored) stands for its source: yargs'
      // index.mjs and tests import `./build/lib/yargs-factory.js`, which tsc writes from
      // lib/yargs-factory.ts, and no test was related to any of its sources.
      return (
        main ??
        resolveImport(fromFile, specifier, this.#files) ??
        (BUILD_OUTPUT_FOLDER.test(folder) ? this.#fileAt('.', folder) : undefined)
      );
    }
    const direct = resolveImport(fromFile, specifier, this.#files);
    if (direct !== undefined) return direct;
    if (/\.pyi?$/.test(fromFile)) return undefined;
    if (specifier.startsWith('#')) {
      const manifest = this.#packages.find((entry) => isInside(entry.folder, fromFile) && entry.imports);
      const target = manifest?.imports === undefined ? undefined : matchSubpath(manifest.imports, specifier);
      return target === undefined ? undefined : this.#fileAt(manifest!.folder, target);
    }
    let declaration: string | undefined;
    for (const config of this.#aliases) {
      if (!isInside(config.folder, fromFile)) continue;
      for (const [pattern, targets] of config.aliases) {
        const star = pattern.indexOf('*');
        let captured: string | undefined;
        if (star < 0) captured = pattern === specifier ? '' : undefined;
        else if (specifier.startsWith(pattern.slice(0, star)) && specifier.endsWith(pattern.slice(star + 1)))
          captured = specifier.slice(star, specifier.length - (pattern.length - star - 1));
        if (captured === undefined) continue;
        for (const target of targets) {
          const found = this.#fileAt(config.baseFolder, target.replace('*', captured));
          // An alias to a declaration file serves the type checker (immutable-js maps `immutable`
          // to its .d.ts for its tests' tsconfig); the code a test runs is the package's own.
          if (found !== undefined && /\.d\.[cm]?ts$/.test(found)) declaration ??= found;
          else if (found !== undefined) return found;
        }
      }
      break;
    }
    // A package's own name (self-reference) or another package of the workspace.
    for (const manifest of this.#packages) {
      if (manifest.name === undefined) continue;
      if (specifier !== manifest.name && !specifier.startsWith(`${manifest.name}/`)) continue;
      const subpath = `.${specifier.slice(manifest.name.length)}`;
      let target: string | undefined;
      if (manifest.exports !== undefined) {
        const exportsMap =
          typeof manifest.exports === 'object' &&
          manifest.exports !== null &&
          !Array.isArray(manifest.exports) &&
          Object.keys(manifest.exports).some((key) => key.startsWith('.'))
            ? (manifest.exports as Record<string, unknown>)
            : { '.': manifest.exports };
        target = matchSubpath(exportsMap, subpath);
      } else if (subpath === '.') target = manifest.main ?? 'index.js';
      else target = subpath;
      const found = target === undefined ? undefined : this.#fileAt(manifest.folder, target);
      if (found !== undefined) return found;
    }
    return declaration;
  }

  /** A file named relative to `folder`, probing extensions and index files and mapping build output to sources. */
  #fileAt(folder: string, target: string): string | undefined {
    const joined = inFolder(folder, target);
    const probe = (candidate: string) =>
      this.#files.has(candidate) ? candidate : resolveImport('probe', `./${candidate}`, this.#files);
    const found = probe(joined);
    if (found !== undefined) return found;
    const source = joined.replace(BUILD_OUTPUT_FOLDER, '$1src/').replace(/\.d\.[cm]?ts$|\.[cm]?js$/, '.ts');
    if (source !== joined)
      return (
        probe(source) ??
        probe(source.replace(/(^|\/)src\//, '$1source/')) ??
        // tsc with `rootDir: "."` keeps the source folders under its outDir (`build/lib/x.js`
        // from `lib/x.ts`): the output folder dropped.
        (BUILD_OUTPUT_FOLDER.test(joined)
          ? probe(joined.replace(BUILD_OUTPUT_FOLDER, '$1').replace(/\.d\.[cm]?ts$|\.[cm]?js$/, '.ts'))
          : undefined) ??
        this.#sourceInAnyCase(source)
      );
    return undefined;
  }

  /** Module stems in lower case (`src/immutable`), to their files: built lazily, once. */
  #stemsInLowerCase: Map<string, string> | undefined;

  /**
   * A source whose name differs from its build output's only in case: immutable-js builds
   * `src/Immutable.js` into `dist/immutable.js`, its package.json `main`, and its tests import the
   * package by name. Only a module of its own (not an index) is taken, and only when one file has
   * that name in any case.
   */
  #sourceInAnyCase(source: string): string | undefined {
    if (this.#stemsInLowerCase === undefined) {
      const stems = new Map<string, string>();
      const ambiguous = new Set<string>();
      for (const file of this.#files) {
        if (!/\.[cm]?[jt]sx?$/.test(file) || /\.d\.[cm]?ts$/.test(file)) continue;
        const stem = file.replace(/\.[cm]?[jt]sx?$/, '').toLowerCase();
        if (stems.has(stem)) ambiguous.add(stem);
        stems.set(stem, file);
      }
      for (const stem of ambiguous) stems.delete(stem);
      this.#stemsInLowerCase = stems;
    }
    return this.#stemsInLowerCase.get(source.replace(/\.[cm]?[jt]sx?$/, '').toLowerCase());
  }
}
