/**
 * Lists and calls the workspace tools over MCP stdio:
 *
 *   node --conditions=@assistant-kit/source --import tsx examples/mcp-client/src/main.ts ./my-project add
 */
import { connectToWorkspaceTools, exploreWorkspace } from './mcp-client.js';

const [workspace = '.', symbol = 'main'] = process.argv.slice(2);
const { client, close } = await connectToWorkspaceTools({ workspace, configuration: 'R', from: 'source' });
try {
  for (const line of await exploreWorkspace(client, symbol)) process.stdout.write(`${line}\n\n`);
} finally {
  await close();
}
