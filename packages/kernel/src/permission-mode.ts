/**
 * Permission modes, least to most authority. The settings group stores one per account
 * (`permissionMode`); the tool catalogue maps it to effect classes: `ask` asks before every
 * non-read effect; `auto` runs reads, workspace writes and sandboxed processes and asks before
 * external mutation; `plan` is read-only; `full-access` runs everything, host execution included.
 * Both groups import it from here, so neither imports the other.
 */
export const PERMISSION_MODES = ['ask', 'auto', 'plan', 'full-access'] as const;
/** One of {@link PERMISSION_MODES}. */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** True for the four permission mode names. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value);
}
