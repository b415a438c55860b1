// node:fs on purpose (allow-listed low-level module): Chromium discovery probes the host's own
// install locations (PATH, Playwright's browser cache, /Applications...), never workspace files.
import { access, constants, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { browserError } from '../errors.js';

/** Environment variable naming the Chromium (or Chrome) executable to use. */
export const CHROMIUM_PATH_VARIABLE = 'ASSISTANT_KIT_CHROMIUM';

/** Where a candidate came from, in the order they are tried. */
export type ChromiumSource =
  | 'option'
  | 'environment'
  | 'chrome-path-variable'
  | 'playwright'
  | 'path'
  | 'install-location';

/** A path discovery tried, and where it came from (listed in BROWSER_UNAVAILABLE when none works). */
export interface ChromiumCandidate {
  source: ChromiumSource;
  path: string;
}

/** The host facts discovery reads; tests pass their own to check other platforms' candidates. */
export interface ChromiumDiscoveryHost {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  homeDirectory: string;
  /** True when `candidate` is a file this process may execute. */
  isExecutable(candidate: string): Promise<boolean>;
  /** Names in a folder; empty when it does not exist. */
  listDirectory(folder: string): Promise<string[]>;
}

/** The real host: this process's platform, environment, home folder and file system. */
export const currentHost: ChromiumDiscoveryHost = {
  platform: process.platform,
  env: process.env,
  homeDirectory: homedir(),
  async isExecutable(candidate) {
    try {
      if (!(await stat(candidate)).isFile()) return false;
      // Windows has no execute bit; existence of the .exe is the test there.
      if (process.platform !== 'win32') await access(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  async listDirectory(folder) {
    return readdir(folder).catch(() => []);
  },
};

/** Names Chrome and Chromium are installed under on PATH, most specific first. */
const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

function pathOf(platform: NodeJS.Platform) {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Playwright's browser cache: PLAYWRIGHT_BROWSERS_PATH, else its per-platform default. */
function playwrightCacheFolders(host: ChromiumDiscoveryHost): string[] {
  const configured = host.env.PLAYWRIGHT_BROWSERS_PATH;
  // "0" means browsers inside node_modules/playwright-core/.local-browsers (hermetic installs).
  if (configured !== undefined && configured !== '' && configured !== '0') return [configured];
  const join = pathOf(host.platform).join;
  if (host.platform === 'darwin') return [join(host.homeDirectory, 'Library', 'Caches', 'ms-playwright')];
  if (host.platform === 'win32') {
    const local = host.env.LOCALAPPDATA ?? join(host.homeDirectory, 'AppData', 'Local');
    return [join(local, 'ms-playwright')];
  }
  return [join(host.env.XDG_CACHE_HOME ?? join(host.homeDirectory, '.cache'), 'ms-playwright')];
}

/** Executables inside one `chromium-<revision>` folder, by the layouts Playwright has used. */
function playwrightExecutables(platform: NodeJS.Platform, folder: string, headlessShell: boolean): string[] {
  const join = pathOf(platform).join;
  if (headlessShell) {
    if (platform === 'win32')
      return [
        join(folder, 'chrome-win', 'headless_shell.exe'),
        join(folder, 'chrome-headless-shell-win64', 'chrome-headless-shell.exe'),
      ];
    if (platform === 'darwin')
      return ['chrome-mac', 'chrome-headless-shell-mac-arm64', 'chrome-headless-shell-mac-x64'].flatMap(
        (sub) => [join(folder, sub, 'headless_shell'), join(folder, sub, 'chrome-headless-shell')],
      );
    return [
      join(folder, 'chrome-linux', 'headless_shell'),
      join(folder, 'chrome-headless-shell-linux64', 'chrome-headless-shell'),
    ];
  }
  if (platform === 'win32')
    return [join(folder, 'chrome-win', 'chrome.exe'), join(folder, 'chrome-win64', 'chrome.exe')];
  if (platform === 'darwin')
    return [
      join(folder, 'chrome-mac', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'),
      ...['chrome-mac-arm64', 'chrome-mac-x64', 'chrome-mac'].map((sub) =>
        join(folder, sub, 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'),
      ),
    ];
  return [join(folder, 'chrome-linux', 'chrome'), join(folder, 'chrome-linux64', 'chrome')];
}

async function playwrightCandidates(host: ChromiumDiscoveryHost): Promise<string[]> {
  const join = pathOf(host.platform).join;
  const found: string[] = [];
  for (const cache of playwrightCacheFolders(host)) {
    const names = await host.listDirectory(cache);
    // Newest revision first; full Chromium before the headless shell (both run headless).
    const revisions = (prefix: string) =>
      names
        .filter((name) => new RegExp(`^${prefix}-\\d+$`).test(name))
        .sort(
          (left, right) => Number(right.slice(prefix.length + 1)) - Number(left.slice(prefix.length + 1)),
        );
    for (const name of revisions('chromium'))
      found.push(...playwrightExecutables(host.platform, join(cache, name), false));
    for (const name of revisions('chromium_headless_shell'))
      found.push(...playwrightExecutables(host.platform, join(cache, name), true));
    if (names.length === 0)
      found.push(...playwrightExecutables(host.platform, join(cache, 'chromium-<revision>'), false));
  }
  return found;
}

function pathCandidates(host: ChromiumDiscoveryHost): string[] {
  const platform = host.platform;
  const variable = platform === 'win32' ? (host.env.Path ?? host.env.PATH ?? '') : (host.env.PATH ?? '');
  const folders = variable.split(platform === 'win32' ? ';' : ':').filter((folder) => folder !== '');
  const names = platform === 'win32' ? PATH_NAMES.map((name) => `${name}.exe`) : PATH_NAMES;
  const join = pathOf(platform).join;
  return names.flatMap((name) => folders.map((folder) => join(folder, name)));
}

function installLocations(host: ChromiumDiscoveryHost): string[] {
  if (host.platform === 'darwin') {
    const bundles = [
      ['Google Chrome.app', 'Google Chrome'],
      ['Chromium.app', 'Chromium'],
      ['Google Chrome for Testing.app', 'Google Chrome for Testing'],
      ['Google Chrome Canary.app', 'Google Chrome Canary'],
    ];
    return ['/Applications', path.posix.join(host.homeDirectory, 'Applications')].flatMap((folder) =>
      bundles.map(([bundle, binary]) => path.posix.join(folder, bundle!, 'Contents', 'MacOS', binary!)),
    );
  }
  if (host.platform === 'win32') {
    const join = path.win32.join;
    const roots = [
      host.env.PROGRAMFILES ?? 'C:\\Program Files',
      host.env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)',
      host.env.LOCALAPPDATA ?? join(host.homeDirectory, 'AppData', 'Local'),
    ];
    return roots.flatMap((root) => [
      join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'),
      join(root, 'Chromium', 'Application', 'chrome.exe'),
    ]);
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/usr/lib/chromium/chromium',
    '/opt/google/chrome/chrome',
    '/snap/bin/chromium',
  ];
}

function unavailable(tried: ChromiumCandidate[], why: string): never {
  const list = tried.map((candidate) => `  ${candidate.source}: ${candidate.path}`).join('\n');
  throw browserError(
    'BROWSER_UNAVAILABLE',
    `${why} Tried, in order:\n${list}\nInstall Chromium or Chrome (Debian/Ubuntu: apt-get install chromium; macOS: install Google Chrome; or \`npx playwright install chromium\`), or name the executable with the chromiumPath option or the ${CHROMIUM_PATH_VARIABLE} environment variable.`,
    { details: { tried } },
  );
}

/**
 * Finds the Chromium (or Chrome) executable the way users have one: the `chromiumPath` option,
 * then ASSISTANT_KIT_CHROMIUM (both explicit: when set and not executable, that is the error, no
 * silent fallback), then CHROME_PATH, Playwright's installed browsers (newest revision first),
 * the names Chrome and Chromium have on PATH, and the platform's usual install locations
 * (Linux packages, macOS /Applications bundles, Windows Program Files). BROWSER_UNAVAILABLE
 * lists every path tried.
 */
export async function findChromium(
  explicitPath: string | undefined,
  host: ChromiumDiscoveryHost = currentHost,
): Promise<ChromiumCandidate> {
  const tried: ChromiumCandidate[] = [];
  const explicit: ChromiumCandidate | undefined =
    explicitPath !== undefined
      ? { source: 'option', path: explicitPath }
      : host.env[CHROMIUM_PATH_VARIABLE]
        ? { source: 'environment', path: host.env[CHROMIUM_PATH_VARIABLE]! }
        : undefined;
  if (explicit !== undefined) {
    if (await host.isExecutable(explicit.path)) return explicit;
    unavailable(
      [explicit],
      `No executable Chromium at ${explicit.path} (named by ${explicit.source === 'option' ? 'the chromiumPath option' : CHROMIUM_PATH_VARIABLE}).`,
    );
  }
  const ordered: ChromiumCandidate[] = [];
  if (host.env.CHROME_PATH) ordered.push({ source: 'chrome-path-variable', path: host.env.CHROME_PATH });
  for (const candidate of await playwrightCandidates(host))
    ordered.push({ source: 'playwright', path: candidate });
  for (const candidate of pathCandidates(host)) ordered.push({ source: 'path', path: candidate });
  for (const candidate of installLocations(host))
    ordered.push({ source: 'install-location', path: candidate });
  const seen = new Set<string>();
  for (const candidate of ordered) {
    if (seen.has(candidate.path)) continue;
    seen.add(candidate.path);
    tried.push(candidate);
    if (await host.isExecutable(candidate.path)) return candidate;
  }
  unavailable(tried, 'No Chromium or Chrome executable was found.');
}
