import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { largePage } from './fixtures/test-app.js';
import { createHarness, errorCode, structured, textOf } from './helpers.js';

describe('snapshot bounds', () => {
  it('cuts a 5,000-element page at the cap and says how much was left out', async () => {
    const harness = await createHarness(
      { snapshotCharacterCap: 8_000 },
      { files: { 'large.html': largePage(5_000) } },
    );
    try {
      structured(await harness.runtime.call('browser_open', { target: 'large.html' }));
      const result = await harness.runtime.call('browser_snapshot', {});
      const text = textOf(result);
      const facts = structured(result);
      expect(facts.truncated).toBe(true);
      expect(text.length).toBeLessThanOrEqual(8_000 + 400);
      expect(facts.omittedElements as number).toBeGreaterThan(4_000);
      expect(facts.omittedActionableElements as number).toBeGreaterThan(1_000);
      expect(text).toMatch(
        /\[snapshot cut at its cap of 8000 characters: \d+ more elements \(\d+ actionable\) were not shown/,
      );
      expect(text).toContain('button "Button 0" -> ');
    } finally {
      await harness.close();
    }
  });
});

describe('read-only workspaces (configuration R)', () => {
  it('browses and keeps app state in the hidden folder, but never writes a workspace file', async () => {
    const harness = await createHarness({}, { readOnly: true });
    try {
      structured(await harness.runtime.call('browser_open', { target: 'index.html' }));
      const hidden = structured(await harness.runtime.call('browser_screenshot', { full_page: false }));
      expect(hidden.deliverable).toBe(false);
      expect(errorCode(await harness.runtime.call('browser_screenshot', { path: 'preview.png' }))).toBe(
        'WORKSPACE_READ_ONLY',
      );
      const visible = (await readdir(harness.root)).filter((name) => !name.startsWith('.'));
      expect(visible.sort()).toEqual(['app.js', 'data', 'index.html', 'style.css', 'sub']);
    } finally {
      await harness.close();
    }
  });
});

describe('session lifecycle', () => {
  it('records an HTTP error entrypoint, replaces the session on a new open, and closes idempotently', async () => {
    const harness = await createHarness(
      {},
      { files: { 'broken.html': '<!doctype html><title>Broken</title><script src="missing.js"></script>' } },
    );
    try {
      const first = structured(await harness.runtime.call('browser_open', { target: 'broken.html' }));
      const errors = structured(await harness.runtime.call('browser_errors', {}));
      expect((errors.errors as { counts: { http_error: number } }).counts.http_error).toBe(1);
      expect((errors.entrypointVisit as { valid: boolean; reasons: string[] }).reasons[0]).toContain(
        '1 HTTP error response',
      );

      const second = structured(
        await harness.runtime.call('browser_open', { target: 'sub/page2.html', wait_until: 'networkidle0' }),
      );
      expect(second.sessionId).not.toBe(first.sessionId);
      // A new session starts with an empty ledger and its own log file.
      const fresh = structured(await harness.runtime.call('browser_errors', {}));
      expect((fresh.entrypointVisit as { valid: boolean }).valid).toBe(true);
      const logs = await readdir(path.join(harness.root, '.assistant-kit/browser/logs'));
      expect(logs).toHaveLength(2);

      structured(await harness.runtime.call('browser_close', {}));
      expect(structured(await harness.runtime.call('browser_close', {})).closed).toBe(false);
      // Opening again after close relaunches Chromium (idleBrowserMs 0 closed it).
      expect(structured(await harness.runtime.call('browser_open', { target: 'index.html' })).title).toBe(
        'Test App',
      );
    } finally {
      await harness.close();
      await harness.close();
    }
  });

  it('reports a navigation that does not reach its wait condition in time, and keeps the session', async () => {
    const busy =
      '<!doctype html><title>Busy</title><script>setInterval(() => fetch("data/info.json?" + Math.random()), 50)</script>';
    const harness = await createHarness({}, { files: { 'busy.html': busy } });
    try {
      const result = await harness.runtime.call('browser_open', {
        target: 'busy.html',
        wait_until: 'networkidle0',
        timeout_seconds: 2,
      });
      expect(errorCode(result)).toBe('NAVIGATION_FAILED');
      expect(textOf(result)).toContain('did not reach "networkidle0" within 2 s');
      expect(textOf(await harness.runtime.call('browser_snapshot', {}))).toContain('Page: "Busy"');
      const loaded = await harness.runtime.call('browser_navigate', {
        target: 'busy.html',
        wait_until: 'load',
      });
      expect(textOf(loaded)).toContain('Navigated to');
    } finally {
      await harness.close();
    }
  });
});
