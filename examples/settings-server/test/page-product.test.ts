// The settings page as a user meets it, in headless Chromium: themes, a conflict with a second
// session, credential rows, keyboard-only use and an axe-core scan in light and dark.

import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSettingsServer, type SettingsServer } from '../src/app.js';

const SECRET = 'sk-product-test-0a1b2c3d4e5f6a7b';
let directory: string;
let server: SettingsServer;
let origin: string;
let browser: Browser;
// Waiting for the page to settle is not a timing assertion: the bound only stops a hung run.
const WAIT = { timeout: 30_000, interval: 50 };
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'ak-product-'));
  server = await createSettingsServer({ dataDirectory: directory, logger: false });
  origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

/** Signs in with the keyboard only: type, Tab, type, Enter. */
async function signInByKeyboard(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/login`);
  await page.focus('#usernameInput');
  await page.keyboard.type(server.demo.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(server.demo.password);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${origin}/settings`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

const colorScheme = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
const background = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);

async function saveAndWait(page: Page, status: string | RegExp = 'Saved'): Promise<void> {
  await page.click('#saveButton');
  await expect.poll(() => page.textContent('#status'), WAIT).toMatch(status);
}

async function axeViolations(page: Page) {
  await page.addScriptTag({ path: AXE_SOURCE });
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation: { id: string; impact: string; nodes: unknown[] }) => ({
      id: violation.id,
      impact: violation.impact,
      nodes: violation.nodes.length,
    }));
  });
}

describe('settings page as a product', () => {
  it('is dark by default, honours themeId across a reload, and follows the system when asked', async () => {
    const context = await browser.newContext({ colorScheme: 'light' });
    const page = await signInByKeyboard(context);
    expect(await page.getAttribute('html', 'data-theme')).toBe('app-dark');
    expect(await colorScheme(page)).toBe('dark');
    const dark = await background(page);
    await page.selectOption('#themeSelect', 'app-light');
    expect(await colorScheme(page)).toBe('light'); // previewed at once
    await saveAndWait(page);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.getAttribute('html', 'data-theme')).toBe('app-light');
    expect(await colorScheme(page)).toBe('light');
    expect(await background(page)).not.toBe(dark);
    // "system" follows the browser's preference: light here, dark in a dark context.
    await page.selectOption('#themeSelect', 'system');
    await saveAndWait(page);
    expect(await colorScheme(page)).toBe('light');
    const darkContext = await browser.newContext({ colorScheme: 'dark' });
    const darkPage = await signInByKeyboard(darkContext);
    expect(await darkPage.getAttribute('html', 'data-theme')).toBe('system');
    expect(await colorScheme(darkPage)).toBe('dark');
    await context.close();
    await darkContext.close();
  });

  it('shows unsaved changes in the save bar, and discards them on request', async () => {
    const context = await browser.newContext();
    const page = await signInByKeyboard(context);
    expect(await page.getAttribute('#saveBar', 'data-dirty')).toBe('false');
    await page.fill('#maxParallelAgentsInput', '7');
    await page.fill('#chatDirectoryInput', './elsewhere');
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('2 unsaved changes');
    expect(await page.getAttribute('#saveBar', 'data-dirty')).toBe('true');
    expect(await page.locator('.row.changed').count()).toBe(2);
    await page.click('#discardButton');
    expect(await page.getAttribute('#saveBar', 'data-dirty')).toBe('false');
    expect(await page.inputValue('#maxParallelAgentsInput')).not.toBe('7');
    await context.close();
  });

  it('credential rows: set / not set, remove named per field and disabled when nothing is set', async () => {
    const context = await browser.newContext();
    const page = await signInByKeyboard(context);
    const remove = page.getByRole('button', { name: 'Remove API key', exact: true });
    expect(await remove.count()).toBe(1);
    expect(await remove.isDisabled()).toBe(true);
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Not set');
    await page.fill('#apiKeyInput', SECRET);
    await saveAndWait(page);
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Set');
    expect(await remove.isDisabled()).toBe(false);
    expect(await page.content()).not.toContain(SECRET);
    await remove.click();
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Will be removed');
    // The same button now undoes the removal, and says so.
    expect(await page.getByRole('button', { name: 'Keep API key' }).count()).toBe(1);
    await saveAndWait(page);
    expect(await page.textContent('#apiKeyInputStatus')).toBe('Not set');
    expect(await remove.isDisabled()).toBe(true);
    await context.close();
  });

  it('a save from a page loaded before another session saved fails with a clear conflict, then reloads', async () => {
    const first = await browser.newContext();
    const second = await browser.newContext();
    const pageA = await signInByKeyboard(first);
    const pageB = await signInByKeyboard(second);
    await pageB.fill('#chatDirectoryInput', './from-b');
    await saveAndWait(pageB);
    await pageA.fill('#maxParallelAgentsInput', '9');
    await saveAndWait(pageA, /^Not saved: Another session saved/);
    expect(await pageA.isVisible('#reloadButton')).toBe(true);
    await pageA.click('#reloadButton');
    await expect.poll(() => pageA.inputValue('#chatDirectoryInput'), WAIT).toBe('./from-b');
    await pageA.fill('#maxParallelAgentsInput', '9');
    await saveAndWait(pageA);
    await pageB.reload();
    await pageB.waitForSelector('body[data-ready="true"]');
    expect(await pageB.inputValue('#maxParallelAgentsInput')).toBe('9');
    expect(await pageB.inputValue('#chatDirectoryInput')).toBe('./from-b');
    await first.close();
    await second.close();
  });

  it('works with the keyboard alone: reach a field, change it, save with Enter', async () => {
    const context = await browser.newContext();
    const page = await signInByKeyboard(context);
    await page.keyboard.press('Tab'); // the skip link comes first
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to settings');
    let reached = false;
    for (let step = 0; step < 20 && !reached; step += 1) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id === 'permissionsEnabledToggle');
    }
    expect(reached).toBe(true);
    const before = await page.isChecked('#permissionsEnabledToggle');
    await page.keyboard.press('Space');
    expect(await page.isChecked('#permissionsEnabledToggle')).toBe(!before);
    await page.focus('#chatDirectoryInput');
    await page.keyboard.press('Enter'); // Enter in a text field submits the form
    await expect.poll(() => page.textContent('#status'), WAIT).toBe('Saved');
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.isChecked('#permissionsEnabledToggle')).toBe(!before);
    await context.close();
  });

  for (const theme of ['app-dark', 'app-light'] as const) {
    it(`has no serious or critical axe-core violations in ${theme}`, async () => {
      // axe is injected as a script; the page's own CSP would (rightly) refuse it.
      const context = await browser.newContext({ bypassCSP: true });
      const page = await signInByKeyboard(context);
      await page.selectOption('#themeSelect', theme);
      await page.fill('#maxParallelAgentsInput', '0');
      await page.click('#saveButton'); // shows a validation message, part of what is scanned
      await expect.poll(() => page.textContent('#status'), WAIT).toMatch(/^Not saved/);
      const violations = await axeViolations(page);
      const serious = violations.filter((violation: { impact: string }) =>
        ['serious', 'critical'].includes(violation.impact),
      );
      expect(serious, JSON.stringify(violations)).toEqual([]);
      await page.goto(`${origin}/login`);
      const login = (await axeViolations(page)).filter((violation: { impact: string }) =>
        ['serious', 'critical'].includes(violation.impact),
      );
      expect(login).toEqual([]);
      await context.close();
    });
  }
});
