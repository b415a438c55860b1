/**
 * The folders a Python project's packages are imported from when it is installed, for tests run
 * from a checkout that is not: ansible's units import `ansible`, which lives in `lib/` (pyproject:
 * `[tool.setuptools.packages.find] where = ["lib", "test/lib"]`), so `python3 -m pytest` from the
 * root failed every test module with "No module named 'ansible'". An IDE adds a project's source
 * roots to PYTHONPATH for the same reason; run_tests does it through the check's environment.
 */

/** The configuration texts of one Python folder, by file name (pyproject.toml, setup.cfg…). */
export type PythonConfigurations = ReadonlyMap<string, string>;

/** The TOML table `[name]`'s body, up to the next table header. */
export function tomlTable(text: string, name: string): string | undefined {
  const header = new RegExp(`^\\[${name.replace(/\./g, '\\.')}\\]\\s*$`, 'm').exec(text);
  if (header === null) return undefined;
  const rest = text.slice(header.index + header[0].length);
  const next = /^\[/m.exec(rest);
  return next === null ? rest : rest.slice(0, next.index);
}

function quotedStrings(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'/g)].map((match) => match[1] ?? match[2]!);
}

/** A relative folder as written in a configuration, or undefined for the folder itself or an escape. */
function plainFolder(value: string): string | undefined {
  const folder = value.trim().replace(/^\.\//, '').replace(/\/+$/, '');
  if (folder === '' || folder === '.' || folder.startsWith('/') || folder.split('/').includes('..'))
    return undefined;
  return folder;
}

/** Folders named by the packaging configuration, in the order it names them. */
function declaredRoots(configurations: PythonConfigurations): string[] {
  const roots: string[] = [];
  const pyproject = configurations.get('pyproject.toml');
  if (pyproject !== undefined) {
    // setuptools: packages.find's `where`, and package-dir's root entry ("" = "src").
    const find = tomlTable(pyproject, 'tool.setuptools.packages.find');
    const where = find === undefined ? undefined : /^\s*where\s*=\s*\[([^\]]*)\]/m.exec(find)?.[1];
    if (where !== undefined) roots.push(...quotedStrings(where));
    const setuptools = tomlTable(pyproject, 'tool.setuptools');
    const packageDir =
      setuptools === undefined ? undefined : /^\s*package-dir\s*=\s*\{([^}]*)\}/m.exec(setuptools)?.[1];
    const rootEntry =
      packageDir === undefined ? undefined : /(?:""|'')\s*=\s*["']([^"']+)["']/.exec(packageDir)?.[1];
    if (rootEntry !== undefined) roots.push(rootEntry);
    // Poetry: packages = [{ include = "x", from = "src" }].
    const poetry = tomlTable(pyproject, 'tool.poetry');
    for (const match of poetry?.matchAll(/\bfrom\s*=\s*["']([^"']+)["']/g) ?? []) roots.push(match[1]!);
    // Hatch: a wheel's packages = ["src/name"].
    const hatch = tomlTable(pyproject, 'tool.hatch.build.targets.wheel');
    const packages = hatch === undefined ? undefined : /^\s*packages\s*=\s*\[([^\]]*)\]/m.exec(hatch)?.[1];
    for (const entry of packages === undefined ? [] : quotedStrings(packages)) {
      const slash = entry.lastIndexOf('/');
      if (slash > 0) roots.push(entry.slice(0, slash));
    }
  }
  const setupCfg = configurations.get('setup.cfg');
  if (setupCfg !== undefined) {
    // [options] package_dir = =src (on its line or the next, indented).
    const match = /^\s*package_dir\s*=\s*(?:\n\s+)?=\s*(\S+)/m.exec(setupCfg);
    if (match !== null) roots.push(match[1]!);
  }
  return roots;
}

/**
 * The folders the packaging configuration names as where packages live (no src-layout guess,
 * which pyright's `autoSearchPaths` makes itself), as plain relative folders.
 */
export function declaredPythonSourceRoots(configurations: PythonConfigurations): string[] {
  const roots = new Set<string>();
  for (const declared of declaredRoots(configurations)) {
    const folder = plainFolder(declared);
    if (folder !== undefined) roots.add(folder);
  }
  return [...roots];
}

/** Whether pytest is told where to import from already (its `pythonpath` option). */
function pytestSetsPythonPath(configurations: PythonConfigurations): boolean {
  for (const [name, text] of configurations) {
    if (!['pyproject.toml', 'pytest.ini', 'setup.cfg', 'tox.ini'].includes(name)) continue;
    if (/^\s*pythonpath\s*=/m.test(text)) return true;
  }
  return false;
}

/**
 * The source roots of the Python project in a folder (relative to it), for PYTHONPATH: the folders
 * its packaging configuration names (setuptools, Poetry, Hatch, setup.cfg), else `src/` when a
 * package or module sits right below it (the src layout). Only folders holding a listed file
 * count. None when pytest's own `pythonpath` option says where to import from; the folder a test
 * runs in is importable already, so it is never named.
 *
 * @param files - the listed files below the folder, relative to it
 */
export function pythonSourceRoots(configurations: PythonConfigurations, files: readonly string[]): string[] {
  if (pytestSetsPythonPath(configurations)) return [];
  const holdsFiles = (folder: string) => files.some((file) => file.startsWith(`${folder}/`));
  const roots = new Set(declaredPythonSourceRoots(configurations).filter(holdsFiles));
  // src/ itself a package (src/__init__.py) is imported as `src`, from the folder itself.
  if (
    roots.size === 0 &&
    !files.includes('src/__init__.py') &&
    files.some((file) => /^src\/(?:[^/]+\/__init__|[^/]+)\.py$/.test(file))
  )
    roots.add('src');
  return [...roots];
}
