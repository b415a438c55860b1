import { request } from 'node:http';
import { isToolError } from '@assistant-kit/tool-core';
import { sleep } from '../cancellation.js';
import { browserError } from '../errors.js';
import type { AppProcess } from './start-app-process.js';

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = request(url, { method: 'GET', timeout: 2_000 }, (response) => {
      response.resume();
      resolve(true);
    });
    probe.on('timeout', () => probe.destroy());
    probe.on('error', () => resolve(false));
    probe.end();
  });
}

/**
 * Waits until the app answers HTTP on its bridged port (any status counts: the server is up), the
 * process exits (APP_START_FAILED with its last output), or the deadline passes.
 */
export async function waitUntilAppAnswers(
  app: AppProcess,
  url: string,
  timeoutMs: number,
  signal: AbortSignal,
  onWaiting: (elapsedMs: number) => void,
): Promise<void> {
  let exited = false;
  app.exited.then(
    () => {
      exited = true;
    },
    () => {
      exited = true;
    },
  );
  const started = Date.now();
  let delay = 50;
  while (true) {
    if (await answers(url)) return;
    if (exited) {
      const output = app.recentOutput();
      throw browserError(
        'APP_START_FAILED',
        `The app exited before it answered on its port.${output === '' ? '' : ` Its last output:\n${output.slice(-2_000)}`}`,
      );
    }
    const elapsed = Date.now() - started;
    if (elapsed >= timeoutMs) {
      const output = app.recentOutput();
      throw browserError(
        'APP_START_FAILED',
        `The app did not answer within ${Math.round(timeoutMs / 1000)} s. Check that it listens on the port of its manifest (the PORT variable).${output === '' ? '' : ` Its last output:\n${output.slice(-2_000)}`}`,
      );
    }
    onWaiting(elapsed);
    try {
      await sleep(Math.min(delay, timeoutMs - elapsed), signal);
    } catch (error) {
      if (isToolError(error)) throw browserError('CANCELLED', 'Starting the app was cancelled.');
      throw error;
    }
    delay = Math.min(delay * 2, 500);
  }
}
