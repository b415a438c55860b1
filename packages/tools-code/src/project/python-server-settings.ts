import path from 'node:path';
import type { Workspace } from '@assistant-kit/tool-core';
import type { LanguageServerRegistration } from '../lsp/registrations.js';
import { readWorkspaceText } from './project-profile.js';
import { declaredPythonSourceRoots } from './python-source-roots.js';

/**
 * Settings for a Python language server started on `workspace`: its registration's, with
 * `python.analysis.extraPaths` naming the source roots the root's packaging declares (ansible:
 * `lib`, `test/lib`), so that files outside them (tests, scripts) resolve the project's own imports.
 * Without them pyright found 8 of the 10 files using ansible's `parse_kv`, and a rename left the
 * tests' imports behind. Undefined (the registration's own settings) for another server, when the
 * registration names extraPaths itself, or when nothing is declared.
 */
export async function pythonServerSettings(
  workspace: Workspace,
  registration: LanguageServerRegistration,
): Promise<Record<string, unknown> | undefined> {
  if (!registration.languageIds.includes('python')) return undefined;
  const settings = registration.settings ?? {};
  const python = (settings.python ?? {}) as Record<string, unknown>;
  const analysis = (python.analysis ?? {}) as Record<string, unknown>;
  if (analysis.extraPaths !== undefined) return undefined;
  const configurations = new Map<string, string>();
  for (const name of ['pyproject.toml', 'setup.cfg']) {
    const text = await readWorkspaceText(workspace, name);
    if (text !== undefined) configurations.set(name, text);
  }
  const roots: string[] = [];
  for (const folder of declaredPythonSourceRoots(configurations)) {
    // Through the Workspace: a declared folder that is a link out of it is not named.
    const found = await workspace.resolveDirectory(folder).then(
      () => true,
      () => false,
    );
    if (found) roots.push(path.join(workspace.root, folder));
  }
  if (roots.length === 0) return undefined;
  return { ...settings, python: { ...python, analysis: { ...analysis, extraPaths: roots } } };
}
