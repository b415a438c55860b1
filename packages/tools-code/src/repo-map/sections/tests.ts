import path from 'node:path';
import { frameworkFor } from '../../project/related-tests.js';
import { isTestRunner, selectionArgv, type TestRunner } from '../../project/test-runners.js';
import { formatCommand } from '../../project/test-runs.js';

import type { SectionInput } from './section.js';

/** Folders named like test folders: a test file's group ends there, or one folder below. */
const TEST_FOLDER = /^(?:tests?|__tests__|specs?|e2e|testing)$/;

/** Test folders named on the section's `folders:` line. */
const FOLDERS_SHOWN = 8;

/**
 * The folder a test file is counted under: the path through its first test folder and the folder
 * below that (`test/units`, `packages/core/test`), else its first two folders (tests beside
 * their source).
 */
function testFolderOf(file: string): string {
  const folders = file.split('/').slice(0, -1);
  const testFolder = folders.findIndex((name) => TEST_FOLDER.test(name));
  if (testFolder === -1) return folders.length === 0 ? '.' : folders.slice(0, 2).join('/');
  return folders.slice(0, Math.min(testFolder + 2, folders.length)).join('/');
}

/**
 * The test files by folder, the folder with most first (then by path), each folder's files in
 * path order: a large repository's first test files in path order came all from its smallest,
 * least typical folder (ansible's 63 integration-target helpers before its 256 unit tests).
 */
function groupByTestFolder(testFiles: readonly string[]): { folder: string; files: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const file of testFiles) {
    const folder = testFolderOf(file);
    const files = groups.get(folder);
    if (files === undefined) groups.set(folder, [file]);
    else files.push(file);
  }
  return [...groups]
    .map(([folder, files]) => ({ folder, files }))
    .sort((a, b) => b.files.length - a.files.length || (a.folder < b.folder ? -1 : 1));
}

/** The tests section: the test files, their frameworks and how to run one file. */
export async function testsSection(input: SectionInput): Promise<void> {
  const { options, testFiles, profile, structured, sections } = input;
  const groups = input.derived('test folders', () => groupByTestFolder(testFiles));
  const ordered = groups.flatMap((group) => group.files);
  const kept = ordered.slice(0, options.maxResults);
  const frameworks = profile?.test_frameworks ?? [];
  const commands = (profile?.commands ?? []).filter((command) => command.kind === 'test');
  // How to run one test file, the first thing a newcomer wants after the list: one from the
  // folder with most tests.
  const example = ordered
    .map((file) => ({ file, command: profile === undefined ? undefined : frameworkFor(file, profile) }))
    .find((entry) => entry.command !== undefined && isTestRunner(entry.command.framework));
  const exampleArgv =
    example === undefined
      ? undefined
      : selectionArgv(example.command!.framework as TestRunner, example.command!.argv, {
          files: [
            example.command!.cwd === '.'
              ? example.file
              : path.posix.relative(example.command!.cwd, example.file),
          ],
        });
  structured.tests = {
    total: testFiles.length,
    folders: groups.map((group) => ({ path: group.folder, files: group.files.length })),
    files: kept,
    frameworks,
    commands: commands.map((command) => command.command_id),
    ...(exampleArgv === undefined
      ? {}
      : {
          run_one_file: {
            path: example!.file,
            argv: exampleArgv,
            ...(example!.command!.env === undefined ? {} : { env: example!.command!.env }),
          },
        }),
  };
  sections.push(
    [
      '## tests',
      `${testFiles.length} test files; frameworks: ${frameworks.map((framework) => (framework.cwd === '.' ? framework.name : `${framework.name} in ${framework.cwd}`)).join(', ') || 'none detected'}; commands: ${commands.map((command) => command.command_id).join(', ') || 'none'}`,
      ...(groups.length < 2
        ? []
        : [
            `folders: ${groups
              .slice(0, FOLDERS_SHOWN)
              .map((group) => `${group.folder} (${group.files.length})`)
              .join(
                ', ',
              )}${groups.length > FOLDERS_SHOWN ? `, and ${groups.length - FOLDERS_SHOWN} more` : ''}`,
          ]),
      ...(exampleArgv === undefined
        ? []
        : [
            `one file: run_tests path=${example!.file} (runs ${formatCommand({ argv: exampleArgv, cwd: example!.command!.cwd, env: example!.command!.env })})`,
          ]),
      ...kept.map((file) => `  ${file}`),
      ...(testFiles.length > kept.length
        ? [`  [${testFiles.length - kept.length} more: raise max_results]`]
        : []),
    ].join('\n'),
  );
}
