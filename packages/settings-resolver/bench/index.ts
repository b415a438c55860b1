// `pnpm bench`: sanitize, validate and resolve a full settings profile, each compared with
// structuredClone of the same object in the same run. Writes reports/bench/settings-resolver.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolveSettings, resolveTurn } from '@assistant-kit/settings-resolver';
import { sanitizeSettings } from '@assistant-kit/settings-sanitizer';
import { createDefaultClientSettings, validateClientSettings } from '@assistant-kit/settings-schema';
import { type Measurement, measure } from './measure.js';

/** A realistic, complete profile: every field set, keys present, presets and servers filled in. */
function fullProfile() {
  const settings = createDefaultClientSettings();
  return {
    ...settings,
    mainProvider: 'anthropic' as const,
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-0123456789abcdef0123456789abcdef',
    searchApiKey: 'search-0123456789abcdef',
    codingProvider: 'openai' as const,
    codingModel: 'gpt-5',
    codingApiKey: 'sk-openai-0123456789abcdef0123456789',
    codingTemperature: 0.2,
    classifierProvider: 'ollama' as const,
    classifierModel: 'qwen3:8b',
    decisionsEnabled: true,
    decisionsProvider: 'google' as const,
    decisionsModel: 'gemini-2.5-flash',
    decisionsApiKey: 'AIza0123456789abcdef0123456789',
    decisionsAltBaseUrl: 'https://alt.example.test/v1',
    decisionsAltApiKey: 'sk-alt-0123456789',
    decisionsAltModel: 'alt-model',
    temperature: 0.7,
    maxOutputTokens: 32000,
    llmPresets: [
      { id: 'fast', name: 'Fast', provider: 'openai' as const, model: 'gpt-5-mini' },
      {
        id: 'deep',
        name: 'Deep',
        provider: 'anthropic' as const,
        model: 'claude-opus-4-1',
        reasoningEffort: 'max' as const,
      },
    ],
    providerConnectionMemory: { openai: { model: 'gpt-5' }, anthropic: { model: 'claude-sonnet-4-5' } },
    imageGeneration: {
      enabled: true,
      activeServerId: 'local',
      servers: [{ id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:7860', model: 'sdxl' }],
    },
    disabledConnectors: ['calendar', 'mail'],
  };
}

const system = createDefaultClientSettings();
const account = fullProfile();
const storedWithRetiredKeys = { ...account, reasoning: 'high', plannerModel: 'old' };
const request = {
  model: 'claude-opus-4-1',
  codingBaseUrl: 'https://proxy.example.test/v1',
  apiKey: 'sk-from-body',
};

if (!validateClientSettings(account).ok) throw new Error('benchmark profile is invalid');

const reference = measure('structuredClone(full profile)', () => structuredClone(account));
const rows: Array<{ measurement: Measurement; targetNanoseconds?: number }> = [
  {
    measurement: measure('sanitizeSettings(full profile + 2 retired keys)', () =>
      sanitizeSettings(storedWithRetiredKeys),
    ),
  },
  { measurement: measure('validateClientSettings(full profile)', () => validateClientSettings(account)) },
  {
    measurement: measure('resolveSettings(system, account, request)', () =>
      resolveSettings({ system, account, request }),
    ),
  },
  {
    measurement: measure('resolveTurn(system, account, request)', () =>
      resolveTurn({ system, account, request }),
    ),
    targetNanoseconds: 10_000,
  },
];

const formatOps = (ops: number) => `${Math.round(ops).toLocaleString('en-US')} ops/s`;
const formatMicroseconds = (nanoseconds: number) => `${(nanoseconds / 1000).toFixed(2)} µs`;
const meets = (measurement: Measurement, target: number | undefined) =>
  target === undefined ? null : measurement.medianCpuNanoseconds < target;

const table = rows.map(({ measurement, targetNanoseconds }) => ({
  name: measurement.name,
  value: `${formatOps(measurement.opsPerSecond)} (median ${formatMicroseconds(measurement.medianCpuNanoseconds)} CPU, ${formatMicroseconds(measurement.medianWallNanoseconds)} wall)`,
  reference: `${formatOps(reference.opsPerSecond)} (structuredClone)`,
  ratio: `${(measurement.opsPerSecond / reference.opsPerSecond).toFixed(2)}x`,
  target: targetNanoseconds === undefined ? '-' : `median < ${formatMicroseconds(targetNanoseconds)}`,
  met: targetNanoseconds === undefined ? '-' : meets(measurement, targetNanoseconds) ? 'yes' : 'NO',
}));

const load = os.loadavg()[0]!;
console.log(
  `settings-resolver benchmarks (Node ${process.version}, ${os.cpus().length} CPUs, load average ${load.toFixed(1)}); ` +
    'ops/s and targets use median CPU time per call; wall time also counts other processes holding the CPU',
);
console.table(table);

const reportDirectory = new URL('../../../reports/bench/', import.meta.url);
mkdirSync(reportDirectory, { recursive: true });
const toJson = (measurement: Measurement) => ({
  name: measurement.name,
  medianCpuNanoseconds: Math.round(measurement.medianCpuNanoseconds),
  medianWallNanoseconds: Math.round(measurement.medianWallNanoseconds),
  opsPerSecond: Math.round(measurement.opsPerSecond),
});
writeFileSync(
  new URL('settings-resolver.json', reportDirectory),
  `${JSON.stringify(
    {
      package: '@assistant-kit/settings-resolver',
      node: process.version,
      cpus: os.cpus().length,
      loadAverage: load,
      date: new Date().toISOString(),
      method: `median over ${reference.samples} batches of ${reference.batch} calls after warm-up; ops/s = 1e9 / median CPU ns per call`,
      reference: toJson(reference),
      results: rows.map(({ measurement, targetNanoseconds }) => ({
        ...toJson(measurement),
        ratioToReference: Number((measurement.opsPerSecond / reference.opsPerSecond).toFixed(3)),
        targetMedianNanoseconds: targetNanoseconds ?? null,
        met: meets(measurement, targetNanoseconds),
      })),
    },
    null,
    2,
  )}\n`,
);

if (rows.some(({ measurement, targetNanoseconds }) => meets(measurement, targetNanoseconds) === false)) {
  process.exitCode = 1;
}
