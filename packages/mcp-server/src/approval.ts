import type { ApprovalCallback } from '@assistant-kit/tool-catalog';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

function describeRequest(request: Parameters<ApprovalCallback>[0]): string {
  const where = request.hostExecution ? ' on the host, outside the sandbox' : '';
  const effects = request.effects.join(', ');
  return `Allow ${request.toolName}${where}? It is authorised under: ${effects}.\nArguments: ${JSON.stringify(request.arguments).slice(0, 2000)}`;
}

/**
 * Asks the MCP client's user through elicitation (a yes/no form). A client without the
 * elicitation capability cannot ask, so the call is refused with a message that says which
 * permission mode would let it run.
 */
export function elicitationApprover(server: Server): ApprovalCallback {
  return async (request) => {
    if (server.getClientCapabilities()?.elicitation === undefined) return false;
    try {
      const answer = await server.elicitInput({
        mode: 'form',
        message: describeRequest(request),
        requestedSchema: {
          type: 'object',
          properties: {
            approve: { type: 'boolean', title: 'Allow this call', default: false },
          },
          required: ['approve'],
        },
      });
      return answer.action === 'accept' && answer.content?.approve === true;
    } catch {
      return false;
    }
  };
}
