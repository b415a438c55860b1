/**
 * Runs the agent loop from the command line:
 *
 *   OPENAI_API_KEY=... pnpm --filter @assistant-kit/example-agent-loop start -- \
 *     --workspace ./my-project --base-url http://127.0.0.1:8080/v1 --model my-model "Fix the failing test"
 */
import { parseArgs } from 'node:util';
import {
  createToolCatalog,
  isConfiguration,
  isPermissionMode,
  PERMISSION_MODE_NAMES,
} from '@assistant-kit/tool-catalog';
import { runAgentLoop } from './agent-loop.js';

const USAGE = `Usage: pnpm --filter @assistant-kit/example-agent-loop start -- --workspace DIR --base-url URL --model NAME [--configuration W|U|R] [--permission-mode ${PERMISSION_MODE_NAMES.join('|')}] "task"
The API key, if the endpoint needs one, comes from OPENAI_API_KEY.
`;

/** A bad command line ends with the reason and the usage, never a stack trace. */
function usageError(reason: string): never {
  process.stderr.write(`agent-loop: ${reason}\n\n${USAGE}`);
  process.exit(2);
}

const options = {
  workspace: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  configuration: { type: 'string', default: 'U' },
  'permission-mode': { type: 'string', default: 'auto' },
  help: { type: 'boolean' },
} as const;
let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
try {
  parsed = parseArgs({ options, allowPositionals: true });
} catch (error) {
  usageError((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const prompt = positionals.join(' ');
if (!values.workspace || !values['base-url'] || !values.model || prompt === '') {
  usageError('--workspace, --base-url, --model and a task are required.');
}
const permissionMode = values['permission-mode'];
if (!isPermissionMode(permissionMode)) usageError(`unknown permission mode "${permissionMode}".`);
const configuration = values.configuration;
if (!isConfiguration(configuration)) usageError(`--configuration must be W, U or R, not "${configuration}".`);
const catalog = await createToolCatalog({
  configuration,
  workspace: values.workspace,
  permissionMode,
});
try {
  const result = await runAgentLoop({
    catalog,
    baseUrl: values['base-url'],
    model: values.model,
    apiKey: process.env.OPENAI_API_KEY,
    messages: [
      {
        role: 'system',
        content: 'You are a coding agent. Use the tools to inspect and change the workspace.',
      },
      { role: 'user', content: prompt },
    ],
    onEvent: (event) => {
      if (event.type === 'tool_result') process.stderr.write(`${event.isError ? '✗' : '✓'} ${event.name}\n`);
    },
  });
  process.stdout.write(`${result.finalText ?? '(no answer)'}\n`);
} finally {
  await catalog.close();
}
