/** Folders of installed dependencies and tool caches that checkpoints never record. */
export const DEFAULT_EXCLUDED_FOLDERS = [
  'node_modules',
  'bower_components',
  'jspm_packages',
  '.pnpm-store',
  '.yarn/cache',
  '.venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.gradle',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.assistant-kit',
] as const;

/**
 * Folders the exclude file names (`name/` lines match at any depth; a line with a slash is
 * anchored at the root). Checkpoints record nothing below one while it is ignored, which a
 * workspace `.gitignore` can undo (`!node_modules/`), so the end asks git whether each still is.
 * A package install changes thousands of folders there and none the bound needs.
 */
const EXCLUDED_NAMES: ReadonlySet<string> = new Set(
  DEFAULT_EXCLUDED_FOLDERS.filter((folder) => !folder.includes('/')),
);
const EXCLUDED_FROM_THE_ROOT = DEFAULT_EXCLUDED_FOLDERS.filter((folder) => folder.includes('/'));

/**
 * Of a folder (workspace-relative, `.` the root): `git` when it is in a `.git` folder (git never
 * lists what one holds), the outermost excluded folder it is in or is, or undefined.
 */
export function excludedAbove(folder: string): string | undefined {
  const names = folder.split('/');
  if (names.includes('.git')) return 'git';
  const anchored = EXCLUDED_FROM_THE_ROOT.find((root) => folder === root || folder.startsWith(`${root}/`));
  const index = names.findIndex((name) => EXCLUDED_NAMES.has(name));
  const byName = index === -1 ? undefined : names.slice(0, index + 1).join('/');
  if (anchored === undefined) return byName;
  if (byName === undefined) return anchored;
  return byName.length < anchored.length ? byName : anchored;
}
