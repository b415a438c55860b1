import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { describe, expect, it } from 'vitest';
import { resolveSettings, resolveTurn } from '../src/index.js';

describe('stored layers passed the wrong way fail loudly', () => {
  it('refuses a store load result ({ settings, revision, sanitized }) as the account layer', () => {
    // What `account: await store.load(userId)` passes: it used to resolve silently to model "".
    const loadResult = {
      settings: { ...createDefaultClientSettings(), model: 'gpt-5.1' },
      revision: 4,
      sanitized: { changed: false, removed: [] },
    };
    expect(() => resolveTurn({ system: {}, account: loadResult })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/load result/) }),
    );
    expect(() => resolveSettings({ system: loadResult })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('refuses credential references that were never resolved to keys', () => {
    const account = {
      ...createDefaultClientSettings(),
      apiKey: 'akref1.apiKey.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB',
    };
    expect(() => resolveTurn({ system: {}, account })).toThrow(
      expect.objectContaining({ code: 'UNRESOLVED_CREDENTIAL_REFERENCE' }),
    );
    const skill = {
      ...createDefaultClientSettings(),
      skillMatcherSettings: {
        ...createDefaultClientSettings().skillMatcherSettings,
        apiKey: 'akref1.skill.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB',
      },
    };
    expect(() => resolveTurn({ system: {}, account: skill })).toThrow(/skillMatcherSettings\.apiKey/);
  });

  it('still resolves plain settings whose credentials are keys', () => {
    const turn = resolveTurn({
      system: {},
      account: { ...createDefaultClientSettings(), model: 'gpt-5.1', apiKey: 'sk-real' },
    });
    expect(turn.connections.main.model).toBe('gpt-5.1');
    expect(turn.settings.apiKey).toBe('sk-real');
  });
});
