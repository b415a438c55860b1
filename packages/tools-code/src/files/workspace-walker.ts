import { throwIfCancelled } from '../errors.js';
import {
  type IgnoreLayer,
  loadIgnoreLayer,
  scanFolder,
  type WalkedFile,
  yieldToEventLoop,
} from './folder-scan.js';

export type { WalkedFile } from './folder-scan.js';

/** Entries listed between two yields to the event loop. */
const YIELD_EVERY_ENTRIES = 2_000;

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

/** Default cap on the files one walk collects. */
export const DEFAULT_WALK_FILE_CAP = 100_000;

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
    const layer = loadIgnoreLayer(root, relativeFolder);
    if (layer !== undefined) rootLayers.push(layer);
  }

  let sinceYield = 0;
  async function visit(relativeFolder: string, inherited: IgnoreLayer[]): Promise<void> {
    if (truncated) return;
    throwIfCancelled(options.signal);
    const scan = scanFolder(root, relativeFolder, inherited);
    if (scan === undefined) return;
    for (const file of scan.files) {
      if (files.length >= maxFiles) {
        truncated = true;
        break;
      }
      files.push(file);
    }
    sinceYield += scan.files.length + 1;
    if (sinceYield >= YIELD_EVERY_ENTRIES) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
    for (const folder of scan.folders) await visit(folder, scan.layers);
  }

  await visit(scope, rootLayers);
  files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  return { files, truncated };
}
