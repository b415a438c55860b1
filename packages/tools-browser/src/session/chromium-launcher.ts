import type { Browser } from 'playwright-core';
import { browserError, describePlaywrightError } from '../errors.js';
import { loadPlaywright } from '../playwright-loader.js';

/**
 * Chromium flags: headless without GPU, no background traffic of its own (updates, sync, safe
 * browsing, DNS prefetch, network prediction), WebRTC kept off the network, every host name
 * resolving to nothing (only the proxy's own loopback address is left), and every request,
 * loopback included, sent through the family's guard proxy (`<-loopback>` removes Chromium's
 * implicit loopback bypass), which checks each one, redirect hops included.
 */
export function chromiumArguments(guardProxyUrl: string, extra: readonly string[]): string[] {
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
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    `--proxy-server=${guardProxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    ...extra,
  ];
}

/**
 * Launches Chromium (with a fresh temporary profile, which Playwright creates and removes).
 * `chromiumPath` is the executable findChromium (chromium-discovery.ts) found.
 */
export async function launchChromium(
  chromiumPath: string,
  guardProxyUrl: string,
  extra: readonly string[],
): Promise<Browser> {
  const { chromium } = await loadPlaywright();
  try {
    return await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArguments(guardProxyUrl, extra),
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
