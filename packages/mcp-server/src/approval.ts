import type { ApprovalCallback } from '@assistant-kit/tool-catalog';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

function describeRequest(request: Parameters<ApprovalCallback>[0]): string {
  const where = request.hostExecution ? ' on the host, outside the sandbox' : '';
  const effects = request.effects.join(', ');
  return `Allow ${request.toolName}${where}? It is authorised under: ${effects}.\nArguments: ${JSON.stringify(request.arguments).slice(0, 2000)}`;
}

/** The refusal when the client has no way to ask its user: says what happened and how to allow it. */
export function noElicitationReason(toolName: string): string {
  return (
    `${toolName} needs approval in ask mode, but this MCP client cannot ask its user (it does not support ` +
    'elicitation), so nobody was asked and the call did not run. To allow such calls, start the server with ' +
    '--permission-mode auto (or full-access), or use a client that supports elicitation.'
  );
}

/**
 * Asks the MCP client's user through elicitation (a yes/no form). A client without the
 * elicitation capability cannot ask, so the call is refused with a message that says nobody was
 * asked and which permission mode would let it run.
 */
export function elicitationApprover(server: Server): ApprovalCallback {
  return async (request) => {
    if (server.getClientCapabilities()?.elicitation === undefined) {
      return { approved: false, reason: noElicitationReason(request.toolName) };
    }
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
    } catch (error) {
      return {
        approved: false,
        reason: `Asking the user to approve ${request.toolName} failed (${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}), so the call did not run.`,
      };
    }
  };
}
