// Type-level guarantees of issue 18, checked by test/typecheck.test.ts: every `@ts-expect-error`
// below must stay an error. If a constraint is loosened (an open `string` code, optional facts),
// TypeScript reports the directive as unused and the type check fails.

import {
  SettingsError,
  type SettingsErrorCodeTable,
  settingsErrorFactory,
} from '@assistant-kit/settings-schema';

export const settingsCore = new SettingsError('NOT_AN_OBJECT', 'not an object');
// @ts-expect-error STORAGE_FAILED belongs to settings-store: raise it with settingsStoreError.
export const settingsMisplaced = new SettingsError('STORAGE_FAILED', 'disk');
const storeLike = settingsErrorFactory<'STORAGE_FAILED'>();
export const stored = storeLike('STORAGE_FAILED', 'disk');
// @ts-expect-error A settings factory accepts its own codes and the core's only.
export const storedOther = storeLike('SAVE_CONFLICT', 'conflict');

// Every settings code has an HTTP status in its table.
export const withStatus = { A: { description: 'a', status: 400 } } satisfies SettingsErrorCodeTable<'A'>;
// @ts-expect-error A settings code without a status does not compile.
export const withoutStatus = { A: { description: 'a' } } satisfies SettingsErrorCodeTable<'A'>;
