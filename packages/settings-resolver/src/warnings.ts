/**
 * Stable warning codes of a resolved turn. Warnings never contain credential values; they name fields,
 * roles and URL origins only.
 */
export type TurnWarningCode =
  /** A role's key was not sent because the turn's endpoint differs from the one the key was saved for. */
  | 'KEY_WITHHELD_ENDPOINT_CHANGED'
  /** The request body carried a credential; the account's value was used instead (SPEC 4.2). */
  | 'REQUEST_CREDENTIAL_IGNORED'
  /** The request body carried something that is not a settings field (or a retired key); it was ignored. */
  | 'REQUEST_FIELD_IGNORED'
  /** A stored value failed validation; the field's shipped default was used for this turn. */
  | 'STORED_SETTING_INVALID'
  /** Stored settings held retired keys (SPEC 2.3); they were dropped. */
  | 'RETIRED_SETTINGS_REMOVED'
  /** No capability row matches the model; thinking fields were chosen without knowing the model. */
  | 'UNKNOWN_MODEL_CAPABILITIES'
  /** The chosen reasoning control does not fit the model or the provider's API; no thinking field was sent. */
  | 'REASONING_CONTROL_UNSUPPORTED'
  /** Thinking is off in the settings but the model cannot turn it off. */
  | 'THINKING_CANNOT_BE_DISABLED'
  /** The chosen effort is not one of the model's; the nearest one was sent. */
  | 'REASONING_EFFORT_ADJUSTED'
  /** The thinking budget was limited by the model's range or by maxOutputTokens. */
  | 'THINKING_BUDGET_CLAMPED'
  /** maxOutputTokens leaves no room for the model's minimum thinking budget; thinking was not requested. */
  | 'THINKING_BUDGET_TOO_SMALL'
  /** The model rejects temperature (always, or while thinking); it was left out of the request. */
  | 'TEMPERATURE_DROPPED';

/** The roles a turn can call a model for. */
export type ConnectionRole = 'main' | 'coding' | 'classifier' | 'decisions' | 'decisionsAlt' | 'skillMatcher';

/** One warning about a resolved turn. */
export interface TurnWarning {
  readonly code: TurnWarningCode;
  /** The connection concerned, when the warning is about one. */
  readonly role?: ConnectionRole;
  /** The settings field concerned (a field name, or `skillMatcherSettings.apiKey`). */
  readonly field?: string;
  /** A readable explanation; never contains a credential value. */
  readonly message: string;
}
