// Demo for `pnpm start` until the example server exists: resolves one turn and prints it, keys masked.

import { type ResolvedConnection, resolveTurn } from '@assistant-kit/settings-resolver';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';

/** Shows only that a key is present, never the key. */
function mask(key: string): string {
  return key === '' ? '(none)' : `set, ••••(${key.length} chars)`;
}

const system = createDefaultClientSettings();

const account = {
  ...createDefaultClientSettings(),
  mainProvider: 'anthropic',
  model: 'claude-sonnet-4-5',
  apiKey: 'sk-ant-account-key-0123456789',
  temperature: 0.7,
  reasoningEffort: 'medium',
  codingProvider: 'openai',
  codingModel: 'gpt-5',
  codingApiKey: 'sk-openai-account-key-0123456789',
  codingTemperature: 0.2,
  reasoning: 'high', // a retired key: dropped by the sanitizer
};

// The turn request tries to move the coding role to another server and to supply a key of its own.
const request = {
  codingBaseUrl: 'https://proxy.example.test/v1',
  apiKey: 'sk-from-the-request-body',
  model: 'claude-opus-4-1',
};

const turn = resolveTurn({ system, account, request });

const row = (connection: ResolvedConnection) => ({
  provider: connection.provider,
  baseUrl: connection.baseUrl || '(unset)',
  model: connection.model || '(unset)',
  apiKey: mask(connection.apiKey),
  temperature: connection.temperature ?? '-',
  thinking: connection.thinking.mode,
  providerFields: JSON.stringify(connection.providerFields),
});

console.log('Resolved turn (system defaults + account + request):\n');
console.table(
  Object.fromEntries(Object.entries(turn.connections).map(([role, connection]) => [role, row(connection)])),
);
console.log('\nField sources:', {
  model: turn.sources.model,
  apiKey: turn.sources.apiKey,
  codingBaseUrl: turn.sources.codingBaseUrl,
  themeId: turn.sources.themeId,
});
console.log('\nWarnings:');
for (const warning of turn.warnings) {
  console.log(`  ${warning.code}${warning.role ? ` [${warning.role}]` : ''}: ${warning.message}`);
}
