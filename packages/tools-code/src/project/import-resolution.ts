import path from 'node:path';
import { foldersUp } from '../files/relative-folders.js';
import { RUST_MODULE_IMPORT } from '../syntax/extract-rust.js';

const SCRIPT_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const PROBE_EXTENSIONS = [...SCRIPT_EXTENSIONS, '.css', '.scss', '.html', '.json', '.vue', '.svelte'];

/**
 * Resolves an import specifier written in `fromFile` to a workspace file, or undefined for
 * packages and files that do not exist. Understands relative paths, extensionless imports,
 * folder index files, TypeScript's `.js` → `.ts` mapping, HTML/CSS/Markdown links and Python
 * modules (relative and dotted).
 */
export function resolveImport(
  fromFile: string,
  specifier: string,
  files: ReadonlySet<string>,
): string | undefined {
  const directory = path.posix.dirname(fromFile);
  const extension = path.posix.extname(fromFile);
  if (extension === '.py' || extension === '.pyi') return resolvePythonImport(directory, specifier, files);
  if (extension === '.rs') return resolveRustModule(fromFile, specifier, files);
  const linkLike = ['.html', '.htm', '.css', '.scss', '.md', '.markdown'].includes(extension);
  let base: string;
  // `.` and `..` name a folder, as `./` does: Express's tests `require('..')`, its root index.js.
  if (isRelativeSpecifier(specifier)) base = path.posix.join(directory, specifier);
  else if (specifier.startsWith('/')) base = specifier.slice(1);
  else if (linkLike) base = path.posix.join(directory, specifier);
  else return undefined;
  // A trailing slash names the folder (`require('../')`), as the bare name does.
  base = path.posix.normalize(base).replace(/(.)\/$/, '$1');
  if (base.startsWith('..')) return undefined;
  if (base === '.' || base === '') {
    // The workspace's own root folder: only its index file can be meant.
    for (const probe of PROBE_EXTENSIONS) if (files.has(`index${probe}`)) return `index${probe}`;
    return linkLike && files.has('index.html') ? 'index.html' : undefined;
  }
  if (files.has(base)) return base;
  const withoutScriptExtension = base.replace(/\.(m|c)?jsx?$/, '');
  for (const candidateBase of withoutScriptExtension === base ? [base] : [withoutScriptExtension, base]) {
    for (const probe of PROBE_EXTENSIONS) if (files.has(candidateBase + probe)) return candidateBase + probe;
    for (const probe of PROBE_EXTENSIONS)
      if (files.has(`${candidateBase}/index${probe}`)) return `${candidateBase}/index${probe}`;
  }
  if (linkLike && files.has(`${base}/index.html`)) return `${base}/index.html`;
  return undefined;
}

/**
 * The file of a Rust module a file declares (`mod backtrace;`, written `mod:backtrace` by the
 * extractor), where rustc looks for it: beside a crate root or a `mod.rs` (`src/lib.rs` declares
 * `src/backtrace.rs` or `src/backtrace/mod.rs`), and in the folder named after any other file
 * (`src/fmt.rs` declares `src/fmt/inner.rs`). Other imports (`use` paths) are not resolved.
 */
function resolveRustModule(
  fromFile: string,
  specifier: string,
  files: ReadonlySet<string>,
): string | undefined {
  if (!specifier.startsWith(RUST_MODULE_IMPORT)) return undefined;
  const name = specifier.slice(RUST_MODULE_IMPORT.length);
  const base = path.posix.basename(fromFile, '.rs');
  const directory = path.posix.dirname(fromFile);
  const folder = ['mod', 'lib', 'main'].includes(base) ? directory : path.posix.join(directory, base);
  return [`${folder}/${name}.rs`, `${folder}/${name}/mod.rs`]
    .map((candidate) => path.posix.normalize(candidate))
    .find((candidate) => files.has(candidate));
}

/** `./x`, `../x`, `.` and `..`: a specifier Node resolves from the importing file's folder. */
export function isRelativeSpecifier(specifier: string): boolean {
  return /^\.{1,2}(\/|$)/.test(specifier);
}

function resolvePythonImport(
  directory: string,
  specifier: string,
  files: ReadonlySet<string>,
): string | undefined {
  const leadingDots = /^\.*/.exec(specifier)![0].length;
  const modulePath = specifier.slice(leadingDots).replace(/\./g, '/');
  const roots: string[] = [];
  if (leadingDots > 0) {
    let base = directory;
    for (let level = 1; level < leadingDots; level++) base = path.posix.dirname(base);
    roots.push(base === '.' ? '' : base);
  } else {
    roots.push('', 'src');
    // An absolute import finds a sibling module only where the folder itself is on sys.path: a
    // script's or a test's folder, never a package's. In pytest's src/_pytest/ (a package),
    // `import warnings` and `import pathlib` are the standard library's, not _pytest/warnings.py
    // and _pytest/pathlib.py, which the map counted as imported by every file that did so.
    const folder = directory === '.' ? '' : directory;
    if (!files.has(folder === '' ? '__init__.py' : `${folder}/__init__.py`)) roots.push(folder);
  }
  for (const root of roots) {
    const joined = modulePath === '' ? root : root === '' ? modulePath : `${root}/${modulePath}`;
    for (const candidate of [`${joined}.py`, `${joined}/__init__.py`])
      if (files.has(candidate)) return candidate;
  }
  return undefined;
}

/** The module path a go.mod declares (`module example.com/router`), or undefined when it declares none. */
export function goModulePath(goMod: string): string | undefined {
  const match = /^[ \t]*module[ \t]+(?:"([^"\s]+)"|([^\s"/][^\s"]*))[ \t]*(?:\/\/.*)?$/m.exec(goMod);
  return match?.[1] ?? match?.[2];
}

/**
 * The workspace folder a Go import path names ('.' for the root), or undefined for the standard
 * library and modules from elsewhere. `modules` maps each folder holding a go.mod to the module path
 * it declares: the import resolves below the nearest go.mod above the importing file when the path
 * starts with that module's path, else below the workspace's other module with the longest path it
 * starts with (a repository of several modules). `github.com/go-chi/chi/v5/middleware` imported
 * under the go.mod of `github.com/go-chi/chi/v5` names `middleware`.
 */
export function goImportFolder(
  fromFile: string,
  importPath: string,
  modules: ReadonlyMap<string, string>,
): string | undefined {
  if (modules.size === 0) return undefined;
  const below = (folder: string, modulePath: string): string | undefined => {
    if (importPath === modulePath) return folder;
    if (!importPath.startsWith(`${modulePath}/`)) return undefined;
    const rest = importPath.slice(modulePath.length + 1);
    const joined = path.posix.normalize(folder === '.' ? rest : `${folder}/${rest}`);
    return joined.startsWith('..') ? undefined : joined;
  };
  const nearest = foldersUp(path.posix.dirname(fromFile)).find((folder) => modules.has(folder));
  if (nearest !== undefined) {
    const target = below(nearest, modules.get(nearest)!);
    if (target !== undefined) return target;
  }
  let best: { folder: string; length: number } | undefined;
  for (const [folder, modulePath] of modules) {
    const target = below(folder, modulePath);
    if (target !== undefined && (best === undefined || modulePath.length > best.length))
      best = { folder: target, length: modulePath.length };
  }
  return best?.folder;
}
