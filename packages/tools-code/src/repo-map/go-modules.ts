import path from 'node:path';
import type { Workspace } from '@assistant-kit/tool-core';
import { foldersUp, inFolder } from '../files/relative-folders.js';
import { goModulePath } from '../project/import-resolution.js';
import { type ListedVersion, readWorkspaceText } from '../project/project-profile.js';

/**
 * The Go modules a map's files import from: each folder holding a go.mod ('.' for the root) → the
 * module path it declares. Empty without Go files. Read through the Workspace, a go.mod at the
 * version the walk listed is read once (readWorkspaceText); a map scoped below a module's folder
 * also reads the go.mod files above the scope, so imports between the scope's own packages resolve.
 */
export async function goModulesOf(
  workspace: Workspace,
  files: readonly string[],
  listed: { get(relative: string): ListedVersion | undefined },
  scope: string | undefined,
): Promise<Map<string, string>> {
  const modules = new Map<string, string>();
  if (!files.some((file) => file.endsWith('.go'))) return modules;
  const goMods = files.filter((file) => file === 'go.mod' || file.endsWith('/go.mod'));
  if (scope !== undefined)
    for (const folder of foldersUp(path.posix.dirname(scope))) goMods.push(inFolder(folder, 'go.mod'));
  for (const goMod of goMods) {
    const text = await readWorkspaceText(workspace, goMod, listed.get(goMod));
    const modulePath = text === undefined ? undefined : goModulePath(text);
    if (modulePath !== undefined) modules.set(path.posix.dirname(goMod), modulePath);
  }
  return modules;
}
