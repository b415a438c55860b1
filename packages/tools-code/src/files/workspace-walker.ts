import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { throwIfCancelled } from '../errors.js';

/** One regular file found by a walk. */
export interface WalkedFile {
  /** Workspace-relative path with '/' separators. */
  relative: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: WalkedFile[];
  /** True when the walk stopped at `maxFiles`. */
  truncated: boolean;
}

export interface WalkOptions {
  /** Folder to walk, workspace-relative ('.' for the root). */
  scope?: string;
  maxFiles?: number;
  signal?: AbortSignal;
}

/** Folders never walked: version-control data, installed dependencies, the app's own folder. */
const ALWAYS_SKIPPED = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.assistant-kit',
  '__pycache__',
  '.venv',
]);

/** Default cap on the files one walk collects. */
export const DEFAULT_WALK_FILE_CAP = 100_000;

interface IgnoreLayer {
  /** Workspace-relative folder the .gitignore lives in ('' for the root). */
  base: string;
  rules: Ignore;
}

async function loadIgnoreLayer(
  absoluteFolder: string,
  relativeFolder: string,
): Promise<IgnoreLayer | undefined> {
  try {
    const text = await readFile(path.join(absoluteFolder, '.gitignore'), 'utf8');
    return { base: relativeFolder, rules: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function isIgnored(layers: readonly IgnoreLayer[], relative: string, isDirectory: boolean): boolean {
  for (const layer of layers) {
    const inside = layer.base === '' ? relative : relative.slice(layer.base.length + 1);
    if (layer.rules.ignores(isDirectory ? `${inside}/` : inside)) return true;
  }
  return false;
}

/**
 * Lists the regular files under the workspace root (or a scope folder inside it), honouring every
 * `.gitignore` on the way and never following symlinks, so nothing outside the root is reached.
 */
export async function walkWorkspace(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const maxFiles = options.maxFiles ?? DEFAULT_WALK_FILE_CAP;
  const files: WalkedFile[] = [];
  let truncated = false;
  const scope = options.scope === undefined || options.scope === '.' ? '' : options.scope.replace(/\/+$/, '');
  const rootLayers: IgnoreLayer[] = [];
  // .gitignore files of the folders above a scope apply inside it too.
  const scopeParts = scope === '' ? [] : scope.split('/');
  for (let depth = 0; depth <= scopeParts.length - 1; depth++) {
    const relativeFolder = scopeParts.slice(0, depth).join('/');
    const layer = await loadIgnoreLayer(path.join(root, relativeFolder), relativeFolder);
    if (layer !== undefined) rootLayers.push(layer);
  }

  async function visit(relativeFolder: string, inherited: IgnoreLayer[]): Promise<void> {
    if (truncated) return;
    throwIfCancelled(options.signal);
    const absoluteFolder = path.join(root, relativeFolder);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(absoluteFolder, { withFileTypes: true });
    } catch {
      return;
    }
    const own = await loadIgnoreLayer(absoluteFolder, relativeFolder);
    const layers = own === undefined ? inherited : [...inherited, own];
    const folders: string[] = [];
    const found: Promise<void>[] = [];
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = relativeFolder === '' ? entry.name : `${relativeFolder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(layers, relative, true)) continue;
        folders.push(relative);
      } else if (entry.isFile()) {
        if (isIgnored(layers, relative, false)) continue;
        if (files.length + found.length >= maxFiles) {
          truncated = true;
          break;
        }
        const absolute = path.join(root, relative);
        found.push(
          stat(absolute).then(
            (status) => {
              files.push({ relative, absolute, size: status.size, mtimeMs: status.mtimeMs });
            },
            () => {},
          ),
        );
      }
    }
    await Promise.all(found);
    for (const folder of folders) await visit(folder, layers);
  }

  await visit(scope, rootLayers);
  files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return { files, truncated };
}
