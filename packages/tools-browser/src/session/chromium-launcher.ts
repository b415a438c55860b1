import { access, constants } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { browserError, describePlaywrightError } from '../errors.js';
import { loadPlaywright } from '../playwright-loader.js';

// A loopback port nobody serves: any request that escapes page routing and is not bypassed fails here.
const DEAD_PROXY = 'http://127.0.0.1:1';

/**
 * Chromium flags: headless without GPU, no background traffic of its own (updates, sync, safe
 * browsing, DNS prefetch, network prediction), WebRTC kept off the network, and two network
 * layers under the page routing: every host name except loopback and the permitted hosts
 * resolves to nothing, and every request that is not loopback or permitted goes to a dead proxy.
 */
export function chromiumArguments(permittedHosts: readonly string[], extra: readonly string[]): string[] {
  const reachableHosts = ['localhost', '127.0.0.1', '[::1]', ...permittedHosts];
  const hostRules = ['MAP * ~NOTFOUND', ...reachableHosts.map((host) => `EXCLUDE ${host}`)].join(', ');
  return [
    '--headless',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--disable-features=NetworkPrediction,OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,InterestFeedContentSuggestions',
    '--dns-prefetch-disable',
    '--no-pings',
    '--no-first-run',
    '--no-default-browser-check',
    '--metrics-recording-only',
    '--force-webrtc-ip-handling-policy',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--host-resolver-rules=${hostRules}`,
    `--proxy-server=${DEAD_PROXY}`,
    `--proxy-bypass-list=${reachableHosts.join(';')}`,
    ...extra,
  ];
}

/** Launches Chromium (with a fresh temporary profile, which Playwright creates and removes). */
export async function launchChromium(
  chromiumPath: string,
  permittedHosts: readonly string[],
  extra: readonly string[],
): Promise<Browser> {
  try {
    await access(chromiumPath, constants.X_OK);
  } catch (error) {
    throw browserError(
      'BROWSER_UNAVAILABLE',
      `No Chromium executable at ${chromiumPath}: install Debian's chromium package (apt-get install chromium) or pass chromiumPath.`,
      { cause: error },
    );
  }
  const { chromium } = await loadPlaywright();
  try {
    return await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArguments(permittedHosts, extra),
      // Playwright's own handlers kill Chromium when the host process exits or is interrupted.
      handleSIGINT: true,
      handleSIGTERM: true,
      handleSIGHUP: true,
      timeout: 60_000,
    });
  } catch (error) {
    throw browserError('BROWSER_LAUNCH_FAILED', `Chromium did not start: ${describePlaywrightError(error)}`, {
      cause: error,
    });
  }
}
