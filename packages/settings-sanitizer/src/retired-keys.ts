/**
 * Keys that older versions wrote into settings objects and that are no longer inputs (SPEC 2.3). The
 * sanitizer drops them from every settings object it reads. The former derived reasoning override
 * (`reasoning`) and the client-side capability copies are among them: thinking is resolved on the
 * server from the model's capabilities (SPEC 4.3).
 */
export const RETIRED_SETTINGS_KEYS = [
  'plannerProvider',
  'plannerBaseUrl',
  'plannerApiKey',
  'plannerModel',
  'plannerSettings',
  'maxPlannerPasses',
  'presencePenalty',
  'presencePenaltyModels',
  'codingPresencePenalty',
  'reasoning',
  'reasoningCapabilities',
  'codingReasoningCapabilities',
] as const;

/** Name of a retired settings key. */
export type RetiredSettingsKey = (typeof RETIRED_SETTINGS_KEYS)[number];

const retiredKeySet: ReadonlySet<string> = new Set(RETIRED_SETTINGS_KEYS);

/** Whether `name` is one of the retired keys of SPEC 2.3. */
export function isRetiredSettingsKey(name: string): name is RetiredSettingsKey {
  return retiredKeySet.has(name);
}
