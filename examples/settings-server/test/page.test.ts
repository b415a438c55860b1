import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLIENT_SETTINGS_FIELDS } from '@assistant-kit/settings-schema';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsServer, type SettingsServer } from '../src/app.js';

const SECRET = 'sk-page-test-1a2b3c4d5e6f7a8b9c0d';
const CODING_SECRET = 'sk-page-coding-9f8e7d6c5b4a';
let directory: string;
let server: SettingsServer;
let origin: string;
let browser: Browser;
let page: Page;
const responseBodies: string[] = [];
// Waiting for the page to settle is not a timing assertion: the bound only stops a hung run.
const WAIT = { timeout: 30_000, interval: 50 };

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-page-'));
  server = await createSettingsServer({ dataDirectory: directory, logger: false });
  origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const context = await browser.newContext();
  page = await context.newPage();
  page.on('response', async (response) => {
    try {
      responseBodies.push(await response.text());
    } catch {
      // redirects have no body
    }
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

async function ready(): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]');
}

async function expectNoSecretInDom(): Promise<void> {
  const html = await page.content();
  const values = await page.$$eval('input', (inputs) =>
    inputs.map((input) => (input as HTMLInputElement).value).join('\n'),
  );
  for (const secret of [SECRET, CODING_SECRET]) {
    expect(html).not.toContain(secret);
    expect(values).not.toContain(secret);
  }
}

describe('settings page in headless Chromium', () => {
  it('signs in and shows every SPEC 2.1 control with its exact id', async () => {
    await page.goto(`${origin}/settings`);
    await page.waitForURL(`${origin}/login`);
    await page.fill('#usernameInput', server.demo.username);
    await page.fill('#passwordInput', server.demo.password);
    await page.click('#signInButton');
    await page.waitForURL(`${origin}/settings`);
    await ready();
    for (const field of CLIENT_SETTINGS_FIELDS) {
      if (field.control) expect(await page.locator(field.control).count(), field.control).toBe(1);
    }
    expect(await page.inputValue('#defaultPermissionModeSelect')).toBe('auto');
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Not set');
  });

  it('edits several controls, saves, reloads, and never shows a key', async () => {
    await page.selectOption('#defaultPermissionModeSelect', 'ask');
    await page.uncheck('#completionSoundToggle');
    await page.fill('#maxParallelAgentsInput', '6');
    await page.fill('#temperatureInput', '0.5');
    await page.fill('#baseUrlInput', 'http://127.0.0.1:9/v1');
    await page.fill('#apiKeyInput', SECRET);
    await page.fill('#codingApiKeyInput', CODING_SECRET);
    await page.fill('#chatDirectoryInput', './data/my-chats');
    await page.click('#saveButton');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Saved');
    await expectNoSecretInDom();
    expect(await page.inputValue('#apiKeyInput')).toBe('');
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Set');

    await page.reload();
    await ready();
    expect(await page.inputValue('#defaultPermissionModeSelect')).toBe('ask');
    expect(await page.isChecked('#completionSoundToggle')).toBe(false);
    expect(await page.inputValue('#maxParallelAgentsInput')).toBe('6');
    expect(await page.inputValue('#temperatureInput')).toBe('0.5');
    expect(await page.inputValue('#chatDirectoryInput')).toBe('./data/my-chats');
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Set');
    expect(await page.textContent('#codingApiKeyInputStatus')).toBe('Set');
    await expectNoSecretInDom();
  });

  it('removes a key on request and shows invalid input as problems without saving', async () => {
    await page.click('[data-remove-for="codingApiKeyInput"]');
    await page.click('#saveButton');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Saved');
    expect(await page.textContent('#codingApiKeyInputStatus')).toBe('Not set');
    await page.fill('#maxParallelAgentsInput', '');
    await page.click('#saveButton');
    await expect.poll(() => page.textContent('#status'), WAIT).toMatch(/^Not saved/);
    // The message sits next to its field, which is marked invalid and takes the focus.
    expect(await page.textContent('#maxParallelAgentsInputError')).not.toBe('');
    expect(await page.getAttribute('#maxParallelAgentsInput', 'aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('maxParallelAgentsInput');
    await page.reload();
    await ready();
    expect(await page.inputValue('#maxParallelAgentsInput')).toBe('6');
  });

  it('saves thinking controls from their change handlers and keeps them across a model switch', async () => {
    await page.fill('#modelInput', 'gpt-5.1');
    await page.click('#saveButton');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Saved');
    await page.selectOption('#reasoningEffortSelect', 'low');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Thinking preference saved');
    await page.selectOption('#codingReasoningControlSelect', 'effort');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Thinking preference saved');
    // Saved by the change handlers alone, before any click on Save.
    const stored = await page.evaluate(() =>
      fetch('/api/system-settings/client-defaults').then((response) => response.json()),
    );
    expect(stored).toMatchObject({ reasoningEffort: 'low', codingReasoningControl: 'effort' });

    // A model without thinking: the controls grey out, their values stay.
    await page.fill('#modelInput', 'gpt-5-chat-latest');
    await page.dispatchEvent('#modelInput', 'change');
    await expect.poll(() => page.isDisabled('#reasoningEffortSelect'), WAIT).toBe(true);
    expect(await page.inputValue('#reasoningEffortSelect')).toBe('low');
    await page.click('#saveButton');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Saved');

    await page.reload();
    await ready();
    expect(await page.inputValue('#modelInput')).toBe('gpt-5-chat-latest');
    expect(await page.isDisabled('#reasoningEffortSelect')).toBe(true);
    expect(await page.inputValue('#reasoningEffortSelect')).toBe('low');
    expect(await page.inputValue('#codingReasoningControlSelect')).toBe('effort');

    await page.fill('#modelInput', 'gpt-5.1');
    await page.dispatchEvent('#modelInput', 'change');
    await expect.poll(() => page.isDisabled('#reasoningEffortSelect'), WAIT).toBe(false);
    expect(await page.inputValue('#reasoningEffortSelect')).toBe('low');
  });

  it('no network response carried a key', () => {
    expect(responseBodies.length).toBeGreaterThan(10);
    for (const body of responseBodies) {
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain(CODING_SECRET);
    }
  });
});
