import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from '@assistant-kit/kernel';
import type {
  ApprovalAnswer,
  AuthorizationRequest,
  EffectClass,
  EffectRule,
  ToolPolicy,
} from '@assistant-kit/tool-core';
import { createEffectPolicy } from '@assistant-kit/tool-core';

export type { PermissionMode };

/** The permission modes of the settings schema (`permissionMode`), in its order (the kernel's list). */
export const PERMISSION_MODE_NAMES: readonly PermissionMode[] = PERMISSION_MODES;

/** Asked for every call whose rule is `ask`; resolve `true` to let it run. */
export type ApprovalCallback = (request: AuthorizationRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** How a permission mode treats each effect class and host execution. */
export interface PermissionRules {
  effects: Record<EffectClass, EffectRule>;
  /** Host execution of run_command, authorised on its own and never implied by an effect rule. */
  hostExecution: EffectRule;
  /** Whether the plan filter (only the plan tools are offered) applies. */
  planFilter: boolean;
}

/**
 * The rules of each permission mode while permissions are enabled (SPEC 5.6).
 *
 * - `ask`: reading runs; every other effect asks the host's approval callback; host execution asks.
 * - `auto`: reading, workspace writes, sandboxed processes, the browser's confined network reads
 *   (loopback servers and permitted URLs only) and its in-page actions run; host execution asks.
 * - `plan`: only the plan tools are offered (each tool's declared `planMode`), all of which only read;
 *   every other effect and host execution are refused.
 * - `full-access`: everything runs, host execution included (the mode grants it explicitly).
 */
export const PERMISSION_MODE_RULES: Readonly<Record<PermissionMode, PermissionRules>> = {
  ask: {
    effects: {
      read: 'allow',
      workspace_write: 'ask',
      process: 'ask',
      network_read: 'ask',
      external_mutation: 'ask',
    },
    hostExecution: 'ask',
    planFilter: false,
  },
  auto: {
    effects: {
      read: 'allow',
      workspace_write: 'allow',
      process: 'allow',
      network_read: 'allow',
      external_mutation: 'allow',
    },
    hostExecution: 'ask',
    planFilter: false,
  },
  plan: {
    effects: {
      read: 'allow',
      workspace_write: 'deny',
      process: 'deny',
      network_read: 'deny',
      external_mutation: 'deny',
    },
    hostExecution: 'deny',
    planFilter: true,
  },
  'full-access': {
    effects: {
      read: 'allow',
      workspace_write: 'allow',
      process: 'allow',
      network_read: 'allow',
      external_mutation: 'allow',
    },
    hostExecution: 'allow',
    planFilter: false,
  },
};

/**
 * The rules with `permissionsEnabled: false`: no prompts, every effect class runs, but host
 * execution still needs its own grant (it asks the approval callback, and is refused without
 * one). A plan-mode session keeps the plan filter, because plan is a way of working (investigate,
 * then propose) rather than a prompt.
 */
export function permissionRulesFor(mode: PermissionMode, permissionsEnabled: boolean): PermissionRules {
  const rules = PERMISSION_MODE_RULES[mode];
  if (rules === undefined) {
    throw new TypeError(
      `Unknown permission mode "${String(mode)}"; use one of ${PERMISSION_MODE_NAMES.join(', ')}.`,
    );
  }
  if (permissionsEnabled) return rules;
  if (rules.planFilter) return rules;
  return {
    effects: {
      read: 'allow',
      workspace_write: 'allow',
      process: 'allow',
      network_read: 'allow',
      external_mutation: 'allow',
    },
    hostExecution: mode === 'full-access' ? 'allow' : 'ask',
    planFilter: false,
  };
}

/** What {@link createPermissionPolicy} builds a policy from. */
export interface PermissionPolicyOptions {
  /** The account's mode (SPEC 8, `permissionMode`). */
  permissionMode: PermissionMode;
  /** False runs every call without asking, as the settings' `permissionsEnabled` (default true). */
  permissionsEnabled?: boolean;
  /** Asks a person about a call the mode's rules say `ask` for; without it such calls are refused. */
  approve?: ApprovalCallback;
  /**
   * Overrides the mode's rule for host execution (for example `deny` on a shared machine). It never
   * widens plan mode, which always refuses host execution.
   */
  hostExecution?: EffectRule;
}

/** Builds the tool-core policy of a permission mode. */
export function createPermissionPolicy(options: PermissionPolicyOptions): ToolPolicy {
  const rules = permissionRulesFor(options.permissionMode, options.permissionsEnabled ?? true);
  const hostExecution = rules.planFilter ? 'deny' : (options.hostExecution ?? rules.hostExecution);
  return createEffectPolicy({ effects: rules.effects, hostExecution, approve: options.approve });
}

export { isPermissionMode };
