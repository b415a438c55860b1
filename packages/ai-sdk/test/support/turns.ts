import { type ResolvedConnection, resolveTurn } from '@assistant-kit/settings-resolver';
import { type ClientSettings, createDefaultClientSettings } from '@assistant-kit/settings-schema';

/** The main connection that `resolveTurn` makes of an account's settings (real resolution, no hand-built objects). */
export function mainConnectionOf(
  account: Partial<ClientSettings>,
  request: Record<string, unknown> = {},
): ResolvedConnection {
  const settings = { ...createDefaultClientSettings(), ...account } as ClientSettings;
  return resolveTurn({ system: {}, account: settings, request }).connections.main;
}
