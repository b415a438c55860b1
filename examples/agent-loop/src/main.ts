/**
 * Runs the agent loop from the command line:
 *
 *   OPENAI_API_KEY=... node --conditions=@assistant-kit/source --import tsx examples/agent-loop/src/main.ts \
 *     --workspace ./my-project --base-url http://127.0.0.1:8080/v1 --model my-model "Fix the failing test"
 */
import { parseArgs } from 'node:util';
import { createToolCatalog, isPermissionMode } from '@assistant-kit/tool-catalog';
import { runAgentLoop } from './agent-loop.js';

const { values, positionals } = parseArgs({
  options: {
    workspace: { type: 'string' },
    'base-url': { type: 'string' },
    model: { type: 'string' },
    configuration: { type: 'string', default: 'U' },
    'permission-mode': { type: 'string', default: 'auto' },
  },
  allowPositionals: true,
});
const prompt = positionals.join(' ');
if (!values.workspace || !values['base-url'] || !values.model || prompt === '') {
  process.stderr.write(
    'Usage: main.ts --workspace DIR --base-url URL --model NAME [--configuration W|U|R] "task"\n',
  );
  process.exit(2);
}
const permissionMode = values['permission-mode'];
if (!isPermissionMode(permissionMode)) throw new Error(`Unknown permission mode ${permissionMode}`);
const catalog = await createToolCatalog({
  configuration: values.configuration as 'W' | 'U' | 'R',
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
