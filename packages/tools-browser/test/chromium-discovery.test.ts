import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolError } from '@assistant-kit/tool-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChromiumDiscoveryHost, findChromium } from '../src/index.js';
import { currentHost } from '../src/session/chromium-discovery.js';

let root: string;

async function executable(relative: string): Promise<string> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '#!/bin/sh\nexit 0\n');
  await chmod(file, 0o755);
  return file;
}

/** The real file system, with an environment and home folder of the test's choosing. */
function hostWith(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = 'linux',
): ChromiumDiscoveryHost {
  return { ...currentHost, platform, env, homeDirectory: path.join(root, 'home') };
}

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

function triedPaths(error: ToolError): string[] {
  const tried = (error.details?.tried ?? []) as { path: string }[];
  return tried.map((candidate) => candidate.path);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-browser-discovery-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('Chromium discovery', () => {
  it('finds the Debian chromium of this machine with no configuration', async () => {
    const found = await findChromium(undefined);
    expect(found.path).toMatch(/chromium/);
  });

  it('uses an explicit option or ASSISTANT_KIT_CHROMIUM, and refuses a wrong one without falling back', async () => {
    const chosen = await executable('custom/chrome');
    expect(await findChromium(chosen, hostWith({}))).toEqual({ source: 'option', path: chosen });
    expect(await findChromium(undefined, hostWith({ ASSISTANT_KIT_CHROMIUM: chosen }))).toEqual({
      source: 'environment',
      path: chosen,
    });
    const error = await refusal(
      findChromium(path.join(root, 'missing/chrome'), hostWith({ PATH: path.dirname(chosen) })),
    );
    expect(error.code).toBe('BROWSER_UNAVAILABLE');
    expect(error.message).toContain('missing/chrome');
    expect(error.details?.tried).toEqual([{ source: 'option', path: path.join(root, 'missing/chrome') }]);
  });

  it('prefers the newest Playwright-installed Chromium over PATH', async () => {
    const cache = path.join(root, 'pw-browsers');
    await executable('pw-browsers/chromium-1100/chrome-linux/chrome');
    const newest = await executable('pw-browsers/chromium-1169/chrome-linux/chrome');
    await executable('pw-browsers/chromium_headless_shell-1200/chrome-linux/headless_shell');
    const onPath = await executable('bin/google-chrome');
    const host = hostWith({ PLAYWRIGHT_BROWSERS_PATH: cache, PATH: path.dirname(onPath) });
    expect(await findChromium(undefined, host)).toEqual({ source: 'playwright', path: newest });
    // Playwright's default cache under the home folder, when the variable is unset.
    const inHome = await executable('home/.cache/ms-playwright/chromium-1000/chrome-linux/chrome');
    expect(await findChromium(undefined, hostWith({ PATH: path.dirname(onPath) }))).toEqual({
      source: 'playwright',
      path: inHome,
    });
  });

  it('finds Chrome or Chromium by its usual names on PATH', async () => {
    const folder = path.join(root, 'path-only');
    const chrome = await executable('path-only/google-chrome-stable');
    const host = hostWith({
      PATH: `${path.join(root, 'nothing-here')}:${folder}`,
      XDG_CACHE_HOME: path.join(root, 'no-cache'),
    });
    expect(await findChromium(undefined, host)).toEqual({ source: 'path', path: chrome });
  });

  it('lists every place it tried, macOS and Windows locations included, with a stable code', async () => {
    const mac = await refusal(
      findChromium(undefined, hostWith({ PATH: path.join(root, 'empty') }, 'darwin')),
    );
    expect(mac.code).toBe('BROWSER_UNAVAILABLE');
    const macTried = triedPaths(mac);
    expect(macTried).toContain('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    expect(macTried).toContain('/Applications/Chromium.app/Contents/MacOS/Chromium');
    expect(macTried).toContain(
      path.join(
        root,
        'home/Library/Caches/ms-playwright/chromium-<revision>/chrome-mac/Chromium.app/Contents/MacOS/Chromium',
      ),
    );
    expect(mac.message).toContain('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');

    const windows = await refusal(
      findChromium(undefined, hostWith({ Path: 'C:\\Tools', PROGRAMFILES: 'C:\\Program Files' }, 'win32')),
    );
    const windowsTried = triedPaths(windows);
    expect(windowsTried).toContain('C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe');
    expect(windowsTried).toContain('C:\\Tools\\chrome.exe');
  });
});
