/**
 * Lists and calls the workspace tools over MCP stdio:
 *
 *   pnpm --filter @assistant-kit/example-mcp-client start -- ./my-project add
 */
import { statSync } from 'node:fs';
import { connectToWorkspaceTools, exploreWorkspace } from './mcp-client.js';

const USAGE = `Usage: pnpm --filter @assistant-kit/example-mcp-client start -- [WORKSPACE-DIR] [SYMBOL]
Starts the MCP server read-only (configuration R) on WORKSPACE-DIR (default .), lists its tools and
looks SYMBOL (default main) up with the code tools.
`;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = args.find((arg) => arg.startsWith('-'));
const [workspace = '.', symbol = 'main', ...extra] = args;
const isFolder = (() => {
  try {
    return statSync(workspace).isDirectory();
  } catch {
    return false;
  }
})();
const problem =
  unknown !== undefined
    ? `unknown option ${unknown}.`
    : extra.length > 0
      ? `too many arguments: ${extra.join(' ')}.`
      : !isFolder
        ? `${workspace} is not a folder.`
        : undefined;
if (problem !== undefined) {
  process.stderr.write(`mcp-client: ${problem}\n\n${USAGE}`);
  process.exit(2);
}
const { client, close } = await connectToWorkspaceTools({ workspace, configuration: 'R', from: 'source' });
try {
  for (const line of await exploreWorkspace(client, symbol)) process.stdout.write(`${line}\n\n`);
} finally {
  await close();
}
