import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeProvider,
  startFakeProvider,
} from '../../../packages/ai-sdk/test/support/fake-providers.js';
import { createSettingsServer, type SettingsServer } from '../src/app.js';
import { AccountWorkspaces } from '../src/turns/account-workspaces.js';

const KEY = 'sk-chat-panel-5a6b7c8d9e0f1a2b';
let directory: string;
let server: SettingsServer;
let origin: string;
let provider: FakeProvider;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
// Waiting for the page to settle is not a timing assertion: the bound only stops a hung run.
const WAIT = { timeout: 30_000, interval: 50 };

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-chat-panel-'));
  provider = await startFakeProvider('chat-completions', [
    {
      reasoning: 'The user wants a greeting file.',
      toolCalls: [{ id: 'call_1', name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }],
    },
    { text: 'I created hello.txt.' },
  ]);
  server = await createSettingsServer({
    dataDirectory: directory,
    logger: false,
    turns: { providerRetries: 0 },
  });
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
  page = await (await browser.newContext()).newPage();
  // A CSP violation (an inline script or style) shows up as a console error.
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await provider?.close();
  await rm(directory, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('chat panel in headless Chromium', () => {
  it('saves settings, runs a turn that writes a file, shows the tool call and the answer, then undoes it', async () => {
    await page.goto(`${origin}/login`);
    await page.fill('#usernameInput', server.demo.username);
    await page.fill('#passwordInput', server.demo.password);
    await page.click('#signInButton');
    await page.waitForURL(`${origin}/settings`);
    await page.waitForSelector('body[data-ready="true"]');
    const account = await page.evaluate(async () => (await (await fetch('/api/session')).json()).account);
    const workspace = join(directory, 'workspaces', AccountWorkspaces.folderNameOf(account));

    // Save the main connection through the page, as a person would.
    await page.selectOption('#mainProviderSelect', 'custom');
    await page.fill('#baseUrlInput', provider.baseUrl);
    await page.fill('#modelInput', 'gpt-5.1');
    await page.fill('#apiKeyInput', KEY);
    await page.click('#saveButton');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Saved');

    // The panel filled its mount point.
    await page.waitForSelector('#chat-panel:not([hidden]) #chatInput');
    await page.fill('#chatInput', 'Create hello.txt that says hello');
    await page.click('#chatSendButton');
    await expect.poll(() => page.textContent('#chatStatus'), WAIT).toBe('Done (1 tool call).');

    const entries = await page.$$eval('#chatLog > li', (items) =>
      items.map((item) => ({ kind: item.className, text: item.textContent ?? '' })),
    );
    expect(entries.map((entry) => entry.kind)).toEqual([
      'chat-entry chat-user',
      'chat-entry chat-meta',
      'chat-entry chat-thinking',
      'chat-entry chat-tool tool-ok',
      'chat-entry chat-assistant',
    ]);
    expect(entries[2]!.text).toContain('The user wants a greeting file.');
    expect(entries[3]!.text).toContain('write_file');
    expect(entries[3]!.text).toContain('hello.txt');
    expect(entries[4]!.text).toBe('I created hello.txt.');
    expect(await readFile(join(workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    // The key went to the provider, never into the page.
    expect(provider.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    // The panel's instructions reach the model as the system prompt.
    expect((provider.requests[0]!.body.messages as { role: string }[])[0]!.role).toBe('system');
    expect(await page.content()).not.toContain(KEY);

    await page.click('#chatUndoButton');
    await expect.poll(() => page.textContent('#chatStatus'), WAIT).toBe('Last turn undone.');
    expect(await exists(join(workspace, 'hello.txt'))).toBe(false);
    expect(consoleErrors.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
  });
});
