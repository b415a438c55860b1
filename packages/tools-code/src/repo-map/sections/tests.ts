import path from 'node:path';
import { frameworkFor } from '../../project/related-tests.js';
import { isTestRunner, selectionArgv, type TestRunner } from '../../project/test-runners.js';

import type { SectionInput } from './section.js';

/** The tests section: the test files, their frameworks and how to run one file. */
export async function testsSection(input: SectionInput): Promise<void> {
  const { options, testFiles, profile, structured, sections } = input;
  const kept = testFiles.slice(0, options.maxResults);
  const frameworks = profile?.test_frameworks ?? [];
  const commands = (profile?.commands ?? []).filter((command) => command.kind === 'test');
  // How to run one test file, the first thing a newcomer wants after the list.
  const example = testFiles
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
    files: kept,
    frameworks,
    commands: commands.map((command) => command.command_id),
    ...(exampleArgv === undefined ? {} : { run_one_file: { path: example!.file, argv: exampleArgv } }),
  };
  sections.push(
    [
      '## tests',
      `${testFiles.length} test files; frameworks: ${frameworks.map((framework) => (framework.cwd === '.' ? framework.name : `${framework.name} in ${framework.cwd}`)).join(', ') || 'none detected'}; commands: ${commands.map((command) => command.command_id).join(', ') || 'none'}`,
      ...(exampleArgv === undefined
        ? []
        : [`one file: run_tests path=${example!.file} (runs ${exampleArgv.join(' ')})`]),
      ...kept.map((file) => `  ${file}`),
      ...(testFiles.length > kept.length
        ? [`  [${testFiles.length - kept.length} more: raise max_results]`]
        : []),
    ].join('\n'),
  );
}
