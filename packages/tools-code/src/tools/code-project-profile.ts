import { defineTool, textResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { joinCapped } from '../output/format.js';
import { detectProjectProfile } from '../project/project-profile.js';
import { formatCommand } from '../project/test-runs.js';
import { CodeProjectProfileParameters } from '../schemas.js';

/** code_project_profile. */
export function codeProjectProfileTool(context: CodeContext) {
  return defineTool({
    name: 'code_project_profile',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 24,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Detects project languages, manifests, tests and runnable check commands.',
    parameters: CodeProjectProfileParameters,
    effects: ['read'],
    network: 'none',
    handler: async (_args, { signal }) => {
      // The syntax index's listing (kept current by watchers), not a walk of its own: on a
      // 27,700-file repository a walk per call took about 0.6 s, the profile of a listing
      // already made and unchanged since takes a few milliseconds.
      const walk = await context.syntax.refresh({ signal, analyze: false });
      const profile = await detectProjectProfile(context.workspace, walk.files, walk.pathsKey);
      const lines = [
        `Project ${profile.name}: ${walk.files.length} files${walk.truncated ? ' (walk capped)' : ''}.`,
        `Languages: ${profile.languages.map((language) => `${language.name} (${language.files})`).join(', ') || 'none detected'}`,
        `Manifests: ${profile.manifests.join(', ') || 'none'}`,
        `Package managers: ${profile.package_managers.join(', ') || 'none'}`,
        `Test frameworks: ${profile.test_frameworks.map((framework) => `${framework.name}${framework.cwd === '.' ? '' : ` in ${framework.cwd}`}`).join(', ') || 'none detected'}; ${profile.test_files} test files`,
        'Check commands (run with run_tests command_id):',
        ...profile.commands.map(
          (command) =>
            `  ${command.command_id} [${command.kind}${command.framework === undefined ? '' : `, ${command.framework}`}]: ${formatCommand(command)}`,
        ),
      ];
      if (profile.commands.length === 0) lines.push('  (none found)');
      return textResult(joinCapped(lines).text, {
        ...profile,
        files: walk.files.length,
        truncated: walk.truncated,
      });
    },
  });
}
