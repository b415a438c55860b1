import { EFFECT_CLASSES, type EffectClass } from '../effects.js';

/** What the runtime asks the policy before running a call. */
export interface AuthorizationRequest {
  toolName: string;
  effects: readonly EffectClass[];
  arguments: Record<string, unknown>;
  /** The call asks to run on the host, outside the sandbox (run_command `execution_context: host`). */
  hostExecution: boolean;
}

/**
 * A policy's answer for one call: allowed, or refused with a reason the model reads and the code
 * the refusal carries (`HOST_EXECUTION_DENIED` when only host execution was refused).
 */
export type AuthorizationDecision =
  | { allowed: true }
  | { allowed: false; reason: string; code?: 'PERMISSION_DENIED' | 'HOST_EXECUTION_DENIED' };

/** Decides whether a call may run. Hosts supply one; the catalogue builds one per permission mode. */
export interface ToolPolicy {
  /** Decides one call from its tool, effect classes and host-execution need; may ask a person. */
  authorize(request: AuthorizationRequest): AuthorizationDecision | Promise<AuthorizationDecision>;
}

/** How a policy treats an effect class (or host execution). */
export type EffectRule = 'allow' | 'ask' | 'deny';

/** Rules of {@link createEffectPolicy}: one per effect class, and one for host execution. */
export interface EffectPolicyOptions {
  /** Rule per effect class; classes not named are denied. */
  effects: Partial<Record<EffectClass, EffectRule>>;
  /** Rule for host execution, decided separately and never implied by any effect (default deny). */
  hostExecution?: EffectRule;
  /** Asked for every `ask` rule; without it, `ask` means deny. */
  approve?: (request: AuthorizationRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
}

/**
 * An approver's answer: `true` runs the call, `false` means the user was asked and declined. When
 * nobody could be asked (a client without a way to ask its user), the approver says so with a
 * reason, so the refusal never claims a decision nobody made.
 */
export type ApprovalAnswer = boolean | { approved: false; reason: string };

/**
 * A policy from a rule per effect class: a call runs only when every one of its effects is
 * allowed, or asked and approved. Host execution needs its own rule.
 */
export function createEffectPolicy(options: EffectPolicyOptions): ToolPolicy {
  const hostRule = options.hostExecution ?? 'deny';
  return {
    async authorize(request) {
      let needsApproval = false;
      for (const effect of request.effects) {
        const rule = options.effects[effect] ?? 'deny';
        if (rule === 'deny') {
          return {
            allowed: false,
            code: 'PERMISSION_DENIED',
            reason: `The permission mode does not allow the "${effect}" effect of ${request.toolName}.`,
          };
        }
        if (rule === 'ask') needsApproval = true;
      }
      if (request.hostExecution) {
        if (hostRule === 'deny') {
          return {
            allowed: false,
            code: 'HOST_EXECUTION_DENIED',
            reason:
              'Host execution (running outside the sandbox) is turned off here, so the command did not run and no one was asked. Leave out execution_context to run it in the sandbox, or ask whoever runs these tools to allow host execution (for the MCP server: --host-execution ask or allow).',
          };
        }
        if (hostRule === 'ask') needsApproval = true;
      }
      if (!needsApproval) return { allowed: true };
      if (options.approve === undefined) {
        return {
          allowed: false,
          code: request.hostExecution && hostRule === 'ask' ? 'HOST_EXECUTION_DENIED' : 'PERMISSION_DENIED',
          reason: `${request.toolName} needs approval and no approver is configured.`,
        };
      }
      const answer = await options.approve(request);
      if (answer === true) return { allowed: true };
      return {
        allowed: false,
        code: request.hostExecution ? 'HOST_EXECUTION_DENIED' : 'PERMISSION_DENIED',
        reason: answer === false ? `The user did not approve ${request.toolName}.` : answer.reason,
      };
    },
  };
}

/**
 * The default policy when a host supplies none: every effect class is allowed (commands still
 * run sandboxed without network), host execution is denied.
 */
export const defaultToolPolicy: ToolPolicy = createEffectPolicy({
  effects: Object.fromEntries(EFFECT_CLASSES.map((effect) => [effect, 'allow'])),
  hostExecution: 'deny',
});
