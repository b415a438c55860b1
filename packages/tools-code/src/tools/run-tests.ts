import { defineTool, invalidArguments } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { boundedCount, codeError } from '../errors.js';
import { buildWrittenModuleNotes } from '../project/build-written-files.js';
import type { CheckCommand } from '../project/project-profile.js';
import { findRelatedTests } from '../project/related-tests.js';
import { isInTestPaths } from '../project/runner-options.js';
import { runnerInvocation, type TestRunner } from '../project/test-runners.js';
import {
  confinedPaths,
  DEFAULT_TEST_TIMEOUT_SECONDS,
  formatCommand,
  loadProfile,
  locateBinary,
  MAX_TEST_TIMEOUT_SECONDS,
  mochaSelectionArgv,
  type PlannedRun,
  runnerOfCheck,
  runResult,
  selectedRunBase,
} from '../project/test-runs.js';
import { RunTestsParameters } from '../schemas.js';

/** run_tests: runs a check through the call context's process launcher (the host's sandbox). */
export function runTestsTool(context: CodeContext) {
  return defineTool({
    name: 'run_tests',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 26,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      "Runs a discovered project check by command_id, or the tests related to the supplied paths, symbol or test name, and reports pass/fail/skip counts from the runner's own report.",
    parameters: RunTestsParameters,
    effects: ['read', 'process'],
    execution: 'sequential',
    network: 'none',
    handler: async (
      { command_id, path: pathArgument, paths, symbol, test_name, timeout_seconds },
      { signal, reportProgress, processes, workspace, keepOutput },
    ) => {
      const timeoutSeconds = boundedCount(
        'timeout_seconds',
        timeout_seconds,
        DEFAULT_TEST_TIMEOUT_SECONDS,
        MAX_TEST_TIMEOUT_SECONDS,
      );
      const sources = await confinedPaths(context, pathArgument, paths);
      const testName = test_name === undefined || test_name.trim() === '' ? undefined : test_name;
      const bySymbol = symbol !== undefined && symbol.trim() !== '';
      const selects = sources.length > 0 || bySymbol;
      const subject = [...sources, ...(bySymbol ? [symbol] : [])].join(', ');
      const profile = await loadProfile(context, signal);
      let command: CheckCommand | undefined;
      if (command_id !== undefined) {
        command = profile.commands.find((candidate) => candidate.command_id === command_id);
        if (command === undefined) {
          throw codeError(
            'CHECK_NOT_FOUND',
            `No check command has the id "${command_id}". Known ids: ${profile.commands.map((candidate) => candidate.command_id).join(', ') || 'none'}.`,
            {
              details: { command_id, known: profile.commands.map((candidate) => candidate.command_id) },
            },
          );
        }
      }
      let planned: PlannedRun;
      // Related tests the run leaves out, said after the first line: "tests related to x" passing
      // must not read as all of them passing.
      const leftOut: string[] = [];
      if (selects) {
        const related = await findRelatedTests(context, {
          paths: sources,
          ...(bySymbol ? { symbol } : {}),
          signal,
        });
        let check: (typeof related.commands)[number] | undefined = related.commands[0];
        // The related check the run is made of (before a command_id renames it).
        let chosen: (typeof related.commands)[number] | undefined = check;
        if (command !== undefined) {
          const runner = await runnerOfCheck(context, command);
          if (runner === undefined) {
            throw invalidArguments(
              `${command.command_id} (${formatCommand(command)}) has no test runner that can be limited to some tests; run it without path, paths or symbol.`,
              [{ path: '/command_id', message: 'names a check that cannot be limited to some tests' }],
              { details: { command_id: command.command_id } },
            );
          }
          check = related.commands.find(
            (candidate) => candidate.framework === runner.runner && candidate.cwd === command!.cwd,
          );
          chosen = check;
          if (check !== undefined) {
            const base = selectedRunBase(command, runner);
            // Only the related tests the check itself runs: axios's `test:mocha` names test/unit,
            // and its karma specs (test/specs) are related to the same sources.
            const files = check.files.filter((file) => isInTestPaths(file, base.testPaths));
            if (files.length === 0)
              throw codeError(
                'CHECK_NOT_FOUND',
                `None of the tests related to ${subject} (${check.files.join(', ')}) is among the tests ${command.command_id} runs (${base.testPaths.join(' ')}).`,
                { details: { tests: check.files, test_paths: base.testPaths } },
              );
            const outside = check.files.filter((file) => !files.includes(file));
            if (outside.length > 0)
              leftOut.push(
                `${outside.join(', ')} (outside the tests ${command.command_id} runs: ${base.testPaths.join(' ')})`,
              );
            check = {
              ...check,
              files,
              command_id: command.command_id,
              base_argv: base.argv,
              env: { ...command.env, ...runner.env },
            };
          }
        }
        if (check === undefined) {
          throw codeError(
            'CHECK_NOT_FOUND',
            related.tests.length === 0
              ? `No tests related to ${subject} were found; run a check by command_id (see code_project_profile).`
              : command !== undefined
                ? `None of the tests related to ${subject} (${related.tests.map((test) => test.path).join(', ')}) runs under ${command.command_id}.`
                : `Related tests (${related.tests.map((test) => test.path).join(', ')}) have no known runner; run a check by command_id.`,
            { details: { tests: related.tests.map((test) => test.path) } },
          );
        }
        for (const test of related.unrun) leftOut.push(`${test.path} (${test.reason})`);
        // Tests of another runner (a project with vitest and pytest) are another check's.
        const otherChecks = related.commands.filter((other) => other !== chosen);
        for (const other of otherChecks)
          leftOut.push(
            `${other.files.join(', ')} (run by ${other.command_id}: run_tests command_id=${other.command_id} with the same path)`,
          );
        const runner = check.framework as TestRunner;
        const invocation = runnerInvocation(runner, check.base_argv, {
          files: check.files,
          ...(testName === undefined ? {} : { testName }),
        });
        planned = {
          command_id: check.command_id,
          kind: 'test',
          argv: invocation.argv,
          cwd: check.cwd,
          env: check.env ?? {},
          reason: `tests related to ${subject}`,
          format: invocation.format,
          runner,
          skippedSteps: [],
          files: check.files,
          ...(testName === undefined ? {} : { testName }),
        };
      } else {
        command ??=
          profile.commands.find((candidate) => candidate.kind === 'test' && candidate.cwd === '.') ??
          profile.commands.find((candidate) => candidate.kind === 'test');
        if (command === undefined)
          throw codeError(
            'CHECK_NOT_FOUND',
            'This project has no test command; give a command_id from code_project_profile.',
          );
        const runner = await runnerOfCheck(context, command);
        const reason = command_id === undefined ? "the project's main test command" : `command ${command_id}`;
        // Without a command_id the tests are what was asked for: the runner itself runs them and the
        // script's lint or build steps are named as left out; a command_id names the whole check.
        if (
          runner !== undefined &&
          (runner.otherSteps.length === 0 || testName !== undefined || command_id === undefined)
        ) {
          // The runner itself, with its machine-readable reporter: the same tests the check runs.
          const invocation = runnerInvocation(runner.runner, runner.argv, {
            files: [],
            ...(testName === undefined ? {} : { testName }),
          });
          planned = {
            command_id: command.command_id,
            kind: 'test',
            argv: invocation.argv,
            cwd: command.cwd,
            env: { ...command.env, ...runner.env },
            reason,
            format: invocation.format,
            runner: runner.runner,
            skippedSteps: runner.otherSteps,
            files: [],
            ...(testName === undefined ? {} : { testName }),
          };
        } else {
          if (testName !== undefined)
            throw invalidArguments(`${command.command_id} has no test runner that can filter by test name.`, [
              { path: '/test_name', message: 'is not supported by this check' },
            ]);
          planned = {
            command_id: command.command_id,
            kind: command.kind,
            argv: command.argv,
            cwd: command.cwd,
            env: command.env ?? {},
            reason,
            skippedSteps: [],
            files: [],
          };
        }
      }
      planned.argv = await locateBinary(context, planned.cwd, planned.argv);
      if (planned.runner === 'mocha' && planned.files.length > 0)
        planned.argv = await mochaSelectionArgv(context, planned.cwd, planned.argv);
      reportProgress({ progress: 0, message: `running ${formatCommand(planned)}` });
      const result = await processes.run(workspace, {
        argv: planned.argv,
        cwd: planned.cwd,
        timeoutMs: timeoutSeconds * 1_000,
        signal,
        // As the project's developer runs it at the checkout, without a terminal (no watch mode,
        // no colours; escapes are stripped from what is shown). Neither CI nor colour settings:
        // under CI=1 immutable-js's tests load the built dist/ (absent, or older than the edit),
        // and commander's colour tests failed under NO_COLOR and FORCE_COLOR.
        env: { PYTHONDONTWRITEBYTECODE: '1', ...planned.env },
        outputCap: 2_000_000,
        keepFullOutput: keepOutput,
      });
      return runResult(planned, result, timeoutSeconds, keepOutput, [
        ...(leftOut.length === 0 ? [] : [`Related tests not run: ${leftOut.join('; ')}.`]),
        ...(await buildWrittenModuleNotes(workspace, planned, result)),
      ]);
    },
  });
}
