import type { Provider, ReasoningControl, ReasoningEffort } from '@assistant-kit/settings-schema';
import type { CapabilityEntry, ModelCapabilities, ThinkingMechanism } from './capabilities.js';
import type { ApiDialect } from './provider-endpoints.js';
import type { TurnWarning } from './warnings.js';

/** The user's thinking preference for one role, as saved (SPEC 4.3). */
export interface ThinkingPreference {
  readonly enabled: boolean;
  readonly control: ReasoningControl;
  readonly effort: ReasoningEffort;
}

/** What was decided for a connection's thinking. */
export interface ThinkingDecision {
  /**
   * `on` / `off`: fields were chosen to switch thinking on or off (or the model always thinks);
   * `provider-default`: nothing is sent and the provider decides.
   */
  readonly mode: 'on' | 'off' | 'provider-default';
  /** The model's mechanism, or `unknown` when no capability row matched. */
  readonly mechanism: ThinkingMechanism | 'unknown';
  /** The native effort value sent, when an effort was sent. */
  readonly effort?: string;
  /** The thinking budget sent, when a budget was sent. */
  readonly budgetTokens?: number;
}

/** Input of {@link resolveThinking}. */
export interface ThinkingInput {
  readonly provider: Provider;
  readonly dialect: ApiDialect;
  readonly model: string;
  /** Null for roles without thinking settings (classifier, decisions): the provider default applies. */
  readonly preference: ThinkingPreference | null;
  readonly capability: CapabilityEntry | undefined;
  readonly maxOutputTokens: number | null;
}

/** Result of {@link resolveThinking}. */
export interface ThinkingResolution {
  readonly decision: ThinkingDecision;
  /** Fields to merge into the provider request body. */
  readonly providerFields: Record<string, unknown>;
  /** Whether the model is thinking in this request (decides whether sampling parameters are accepted). */
  readonly thinkingActive: boolean;
  readonly warnings: Omit<TurnWarning, 'role'>[];
}

const EFFORT_RANK: Readonly<Record<string, number>> = {
  none: 0,
  off: 0,
  minimal: 1,
  low: 2,
  medium: 3,
  high: 4,
  xhigh: 5,
  max: 5,
};

/** Token budget per effort, before clamping into the model's range. */
const BUDGET_FOR_EFFORT: Readonly<Record<Exclude<ReasoningEffort, 'off' | 'max'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/** The model's effort value closest to the wanted one (ties go up); `max` is the model's highest. */
export function nearestEffort(wanted: ReasoningEffort, efforts: readonly string[]): string {
  const onEfforts = efforts.filter((effort) => (EFFORT_RANK[effort] ?? 3) > 0);
  const candidates = onEfforts.length > 0 ? onEfforts : efforts;
  if (wanted === 'max') return candidates[candidates.length - 1]!;
  const wantedRank = EFFORT_RANK[wanted]!;
  let best = candidates[0]!;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const effort of candidates) {
    const distance = Math.abs((EFFORT_RANK[effort] ?? 3) - wantedRank);
    if (distance <= bestDistance) {
      best = effort;
      bestDistance = distance;
    }
  }
  return best;
}

function effortFields(dialect: ApiDialect, effort: string): Record<string, unknown> | null {
  switch (dialect) {
    case 'openai':
      return { reasoning_effort: effort };
    case 'openrouter':
      return { reasoning: { effort } };
    case 'google':
      return { generationConfig: { thinkingConfig: { thinkingLevel: effort, includeThoughts: true } } };
    case 'anthropic':
      return null;
  }
}

function budgetFields(dialect: ApiDialect, budgetTokens: number): Record<string, unknown> | null {
  switch (dialect) {
    case 'anthropic':
      return { thinking: { type: 'enabled', budget_tokens: budgetTokens } };
    case 'google':
      return {
        generationConfig: { thinkingConfig: { thinkingBudget: budgetTokens, includeThoughts: true } },
      };
    case 'openrouter':
      return { reasoning: { max_tokens: budgetTokens } };
    case 'openai':
      return null;
  }
}

function toggleFields(dialect: ApiDialect, enabled: boolean): Record<string, unknown> | null {
  switch (dialect) {
    case 'openai':
      return { enable_thinking: enabled };
    case 'openrouter':
      return { reasoning: { enabled } };
    default:
      return null;
  }
}

/** Fields that switch thinking off, or null when the model or the dialect cannot. */
function offFields(dialect: ApiDialect, capabilities: ModelCapabilities): Record<string, unknown> | null {
  switch (capabilities.thinking) {
    case 'effort':
      return capabilities.offEffort === undefined ? null : effortFields(dialect, capabilities.offEffort);
    case 'budget':
      if (!capabilities.canDisable) return null;
      if (dialect === 'anthropic') return {}; // Claude does not think unless asked to.
      if (dialect === 'google') return { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } };
      if (dialect === 'openrouter') return { reasoning: { enabled: false } };
      return null;
    case 'toggle':
      return toggleFields(dialect, false);
    case 'none':
      return {};
    case 'always':
      return null;
  }
}

/** Nothing is sent; the provider's own default applies. */
function providerDefault(
  mechanism: ThinkingMechanism | 'unknown',
  warnings: Omit<TurnWarning, 'role'>[],
): ThinkingResolution {
  return {
    decision: { mode: 'provider-default', mechanism },
    providerFields: {},
    thinkingActive: mechanism === 'always',
    warnings,
  };
}

/** The model's mechanism exists but the provider's API has no field for it. */
function unsupportedByDialect(
  input: ThinkingInput,
  capabilities: ModelCapabilities,
  mechanism: ThinkingMechanism | 'unknown',
  warnings: Omit<TurnWarning, 'role'>[],
): ThinkingResolution {
  warnings.push({
    code: 'REASONING_CONTROL_UNSUPPORTED',
    message: `the ${input.dialect} API of provider "${input.provider}" has no field for ${capabilities.thinking} thinking; no thinking field was sent`,
  });
  return {
    decision: { mode: 'provider-default', mechanism },
    providerFields: {},
    thinkingActive: false,
    warnings,
  };
}

/**
 * Decides a connection's thinking fields from the saved preference and the model's capabilities
 * (SPEC 4.3): `auto` becomes the model's own mechanism, and only fields the model supports are sent.
 * A preference the model cannot use stays in the settings untouched; it only stays out of the request.
 */
export function resolveThinking(input: ThinkingInput): ThinkingResolution {
  const { model, preference, capability } = input;
  const warnings: Omit<TurnWarning, 'role'>[] = [];
  const capabilities = capability?.capabilities;
  const mechanism: ThinkingMechanism | 'unknown' = capabilities?.thinking ?? 'unknown';
  if (preference === null || preference.control === 'none' || model === '') {
    return providerDefault(mechanism, warnings);
  }

  const wantsOff = !preference.enabled || preference.effort === 'off';
  const effort = preference.effort === 'off' ? 'high' : preference.effort;

  if (capabilities === undefined) {
    // Unknown model: degrade, never fail. An explicit control is trusted; `auto` sends nothing.
    warnings.push({
      code: 'UNKNOWN_MODEL_CAPABILITIES',
      message: `no capability entry matches model "${model}"; ${
        preference.control === 'auto'
          ? 'no thinking field was sent (choose a reasoning control, or extend the capability table)'
          : `the chosen "${preference.control}" control was applied as is`
      }`,
    });
    if (preference.control === 'auto') return providerDefault(mechanism, warnings);
    const assumed: ModelCapabilities =
      preference.control === 'effort'
        ? { thinking: 'effort', efforts: ['minimal', 'low', 'medium', 'high'], offEffort: undefined }
        : preference.control === 'budget'
          ? { thinking: 'budget', budget: { min: 1024, max: 65536 }, canDisable: true }
          : { thinking: 'toggle' };
    return decide(input, assumed, 'unknown', wantsOff, effort, warnings);
  }

  const hasControl = capabilities.thinking !== 'none' && capabilities.thinking !== 'always';
  if (hasControl && preference.control !== 'auto' && preference.control !== capabilities.thinking) {
    warnings.push({
      code: 'REASONING_CONTROL_UNSUPPORTED',
      message: `model "${model}" takes thinking as ${capabilities.thinking}, not as the chosen "${preference.control}" control; no thinking field was sent (the preference is kept)`,
    });
    return providerDefault(mechanism, warnings);
  }
  return decide(input, capabilities, mechanism, wantsOff, effort, warnings);
}

function decide(
  input: ThinkingInput,
  capabilities: ModelCapabilities,
  mechanism: ThinkingMechanism | 'unknown',
  wantsOff: boolean,
  effort: Exclude<ReasoningEffort, 'off'>,
  warnings: Omit<TurnWarning, 'role'>[],
): ThinkingResolution {
  const { dialect, model } = input;

  if (capabilities.thinking === 'none') {
    return { decision: { mode: 'off', mechanism }, providerFields: {}, thinkingActive: false, warnings };
  }
  if (capabilities.thinking === 'always') {
    if (wantsOff) {
      warnings.push({
        code: 'THINKING_CANNOT_BE_DISABLED',
        message: `model "${model}" always thinks; thinking stays on`,
      });
    }
    return { decision: { mode: 'on', mechanism }, providerFields: {}, thinkingActive: true, warnings };
  }

  if (wantsOff) {
    const fields = offFields(dialect, capabilities);
    if (fields === null) {
      warnings.push({
        code: 'THINKING_CANNOT_BE_DISABLED',
        message: `model "${model}" cannot turn thinking off through the ${dialect} API; it thinks at its default level`,
      });
      return {
        decision: { mode: 'provider-default', mechanism },
        providerFields: {},
        thinkingActive: true,
        warnings,
      };
    }
    const sentEffort = capabilities.thinking === 'effort' ? capabilities.offEffort : undefined;
    return {
      decision: { mode: 'off', mechanism, ...(sentEffort === undefined ? {} : { effort: sentEffort }) },
      providerFields: fields,
      thinkingActive: false,
      warnings,
    };
  }

  switch (capabilities.thinking) {
    case 'effort': {
      const native = nearestEffort(effort, capabilities.efforts ?? ['low', 'medium', 'high']);
      if (native !== effort && effort !== 'max') {
        warnings.push({
          code: 'REASONING_EFFORT_ADJUSTED',
          message: `model "${model}" has no "${effort}" effort; "${native}" was sent`,
        });
      }
      const fields = effortFields(dialect, native);
      if (fields === null) return unsupportedByDialect(input, capabilities, mechanism, warnings);
      return {
        decision: { mode: 'on', mechanism, effort: native },
        providerFields: fields,
        thinkingActive: true,
        warnings,
      };
    }
    case 'budget': {
      const range = capabilities.budget ?? { min: 1024, max: 65536 };
      const wanted = effort === 'max' ? range.max : BUDGET_FOR_EFFORT[effort];
      let budgetTokens = Math.min(Math.max(wanted, range.min), range.max);
      // Anthropic counts thinking inside max_tokens, so the budget must stay below it.
      if (
        dialect === 'anthropic' &&
        input.maxOutputTokens !== null &&
        budgetTokens >= input.maxOutputTokens
      ) {
        budgetTokens = input.maxOutputTokens - 1;
        if (budgetTokens < range.min) {
          warnings.push({
            code: 'THINKING_BUDGET_TOO_SMALL',
            message: `maxOutputTokens ${input.maxOutputTokens} leaves no room for the minimum thinking budget of ${range.min} tokens of model "${model}"; thinking was not requested`,
          });
          return {
            decision: { mode: 'off', mechanism },
            providerFields: {},
            thinkingActive: false,
            warnings,
          };
        }
      }
      if (budgetTokens !== wanted) {
        warnings.push({
          code: 'THINKING_BUDGET_CLAMPED',
          message: `thinking budget for "${effort}" effort limited to ${budgetTokens} tokens for model "${model}"`,
        });
      }
      const fields = budgetFields(dialect, budgetTokens);
      if (fields === null) return unsupportedByDialect(input, capabilities, mechanism, warnings);
      return {
        decision: { mode: 'on', mechanism, budgetTokens },
        providerFields: fields,
        thinkingActive: true,
        warnings,
      };
    }
    case 'toggle': {
      const fields = toggleFields(dialect, true);
      if (fields === null) return unsupportedByDialect(input, capabilities, mechanism, warnings);
      return { decision: { mode: 'on', mechanism }, providerFields: fields, thinkingActive: true, warnings };
    }
  }
}
