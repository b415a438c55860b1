import path from 'node:path';
import type { Workspace } from '@assistant-kit/tool-core';
import { foldersUp, inFolder } from '../files/relative-folders.js';
import { parseJsonc } from './module-resolver.js';
import { type ListedVersion, readWorkspaceText } from './project-profile.js';

/**
 * Settings TypeScript could not read for a check: a tsconfig's `extends` that names a package the
 * checkout has not installed, or a file that is not there. TypeScript then checks with its own
 * defaults (ES5, no `strict`), and on a fresh clone of ky (`"extends": "@sindresorhus/tsconfig"`,
 * no node_modules) code_diagnostics answered 83 errors for one clean file, every one of them from
 * the missing settings.
 */
export interface UnreadSetting {
  /** The config file that names it. */
  config: string;
  /** The `extends` entry as written. */
  extends: string;
  /** What stands in the way. */
  reason: 'not installed' | 'not found';
}

const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];

/**
 * The unread settings of the configs that govern `files` (each file's nearest tsconfig.json or
 * jsconfig.json among the listed paths, as tsserver finds it), each config read once.
 */
export async function unreadTypeScriptSettings(
  workspace: Workspace,
  files: readonly string[],
  listed: ReadonlyMap<string, ListedVersion>,
): Promise<UnreadSetting[]> {
  const exists = async (relative: string) => {
    try {
      return (await workspace.resolve(relative)).kind !== 'missing';
    } catch {
      // Refused (a link out of the workspace): something is there, TypeScript may read it.
      return true;
    }
  };
  const configs = new Set<string>();
  const nearest = new Map<string, string | undefined>();
  for (const file of files) {
    const folder = path.posix.dirname(file);
    if (!nearest.has(folder)) {
      let found: string | undefined;
      for (const candidate of foldersUp(folder)) {
        found = CONFIG_NAMES.map((name) => inFolder(candidate, name)).find((config) => listed.has(config));
        if (found !== undefined) break;
      }
      nearest.set(folder, found);
    }
    const config = nearest.get(folder);
    if (config !== undefined) configs.add(config);
  }
  const unread: UnreadSetting[] = [];
  for (const config of configs) {
    // At the version listed: a later call reads it again only once it changed.
    const text = await readWorkspaceText(workspace, config, listed.get(config));
    const parsed = text === undefined ? undefined : parseJsonc(text);
    const entries = parsed?.extends;
    const specifiers = (Array.isArray(entries) ? entries : [entries]).filter(
      (entry): entry is string => typeof entry === 'string' && entry !== '',
    );
    const folder = path.posix.dirname(config);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = inFolder(folder, specifier);
        if (target.startsWith('..') || specifier.startsWith('/')) continue;
        if (!(await exists(target)) && !(await exists(`${target}.json`)))
          unread.push({ config, extends: specifier, reason: 'not found' });
        continue;
      }
      let installed = false;
      for (const candidate of foldersUp(folder)) {
        const target = inFolder(candidate, `node_modules/${specifier}`);
        if ((await exists(target)) || (await exists(`${target}.json`))) {
          installed = true;
          break;
        }
      }
      if (!installed) unread.push({ config, extends: specifier, reason: 'not installed' });
    }
  }
  return unread;
}
