import type { Workspace } from '@assistant-kit/tool-core';
import { inFolder } from '../files/relative-folders.js';
import { readWorkspaceText } from './project-profile.js';
import { tomlTable } from './python-source-roots.js';
import type { PlannedRun } from './test-runs.js';

/**
 * Files a Python project's build writes and its checkout lacks: setuptools-scm's and hatch-vcs's
 * version files (pytest's `src/_pytest/_version.py`). Run from a checkout that was never built or
 * installed, its tests stop at once with "No module named '_pytest._version'", which reads like a
 * missing dependency; run_tests says which file is missing and what writes it.
 */

/** A file the build writes, relative to the project folder, and the setting that names it. */
export interface BuildWrittenFile {
  path: string;
  setting: string;
}

const WRITERS = [
  { table: 'tool.setuptools_scm', keys: ['version_file', 'write_to'] },
  { table: 'tool.hatch.build.hooks.vcs', keys: ['version-file'] },
] as const;

/** The files pyproject.toml says the build writes (setuptools-scm, hatch-vcs). */
export function buildWrittenFiles(pyproject: string): BuildWrittenFile[] {
  const files: BuildWrittenFile[] = [];
  for (const { table, keys } of WRITERS) {
    const body = tomlTable(pyproject, table);
    if (body === undefined) continue;
    for (const key of keys) {
      const value = new RegExp(`^\\s*${key}\\s*=\\s*["']([^"']+)["']`, 'm').exec(body)?.[1];
      const relative = value?.trim().replace(/^\.\//, '');
      if (relative === undefined || relative.startsWith('/') || relative.split('/').includes('..')) continue;
      files.push({ path: relative, setting: `pyproject.toml [${table}] ${key}` });
      break;
    }
  }
  return files;
}

/**
 * The build-written file behind a "No module named 'x.y'" in a run's output, when it is one of
 * `written` and absent: the module's path (`x/y.py`) ends the file's path.
 */
export async function missingBuildWrittenModule(
  output: string,
  written: readonly BuildWrittenFile[],
  exists: (relative: string) => Promise<boolean>,
): Promise<BuildWrittenFile | undefined> {
  for (const match of output.matchAll(/No module named '([\w.]+)'/g)) {
    const modulePath = `${match[1]!.replaceAll('.', '/')}.py`;
    const file = written.find((entry) => entry.path === modulePath || entry.path.endsWith(`/${modulePath}`));
    if (file !== undefined && !(await exists(file.path))) return file;
  }
  return undefined;
}

/**
 * A Python run that failed because a module the project's build writes is missing (a checkout
 * never built: setuptools-scm's version file) says so, with the setting that names the file.
 * Only a file the output failed to import and the workspace lacks is named.
 */
export async function buildWrittenModuleNotes(
  workspace: Workspace,
  planned: Pick<PlannedRun, 'runner' | 'cwd'>,
  result: { exitCode: number | null; stdout: string; stderr: string },
): Promise<string[]> {
  if (result.exitCode === 0 || (planned.runner !== 'pytest' && planned.runner !== 'unittest')) return [];
  const output = `${result.stdout}\n${result.stderr}`;
  if (!output.includes('No module named')) return [];
  const inProject = (relative: string) => inFolder(planned.cwd, relative);
  const pyproject = await readWorkspaceText(workspace, inProject('pyproject.toml'));
  if (pyproject === undefined) return [];
  const missing = await missingBuildWrittenModule(output, buildWrittenFiles(pyproject), async (relative) => {
    try {
      return (await workspace.resolve(inProject(relative))).kind !== 'missing';
    } catch {
      return true;
    }
  });
  if (missing === undefined) return [];
  return [
    `Note: ${inProject(missing.path)} is not in the workspace: the project's build writes it (${missing.setting}), so until it exists the package cannot be imported from source. Write that file (a version module) or build the project, then run the tests again.`,
  ];
}
