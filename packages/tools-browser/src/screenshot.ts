import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HIDDEN_DIRECTORY_NAME, type Workspace } from '@assistant-kit/tool-core';
import type { Page } from 'playwright-core';
import { browserError, describePlaywrightError } from './errors.js';

/** Folder of default screenshots inside the app's hidden folder. */
export const SHOTS_DIRECTORY = 'shots';

export interface SavedScreenshot {
  /** Workspace-relative path. */
  path: string;
  /** False in the hidden folder (kept out of deliverables), true elsewhere in the workspace. */
  deliverable: boolean;
  replaced: boolean;
  bytes: Buffer;
  width: number;
  height: number;
}

function pngSize(bytes: Buffer): { width: number; height: number } {
  // IHDR is the first chunk: width and height are big-endian at bytes 16 and 20.
  return bytes.length >= 24
    ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
    : { width: 0, height: 0 };
}

async function writeAtomically(absolute: string, bytes: Buffer): Promise<void> {
  const staging = `${absolute}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(staging, bytes, { flag: 'wx', mode: 0o644 });
    await rename(staging, absolute);
  } catch (error) {
    await unlink(staging).catch(() => {});
    throw error;
  }
}

let shotCounter = 0;

/**
 * Captures the page as PNG and saves it: by default in the hidden shots folder (git-ignored,
 * allowed even in a read-only workspace since it is the app's own state), or at a `.png` path in
 * the workspace, which becomes part of the deliverable (refused in a read-only workspace).
 */
export async function captureScreenshot(
  page: Page,
  workspace: Workspace,
  requestedPath: string | undefined,
  fullPage: boolean,
): Promise<SavedScreenshot> {
  if (requestedPath !== undefined && !/\.png$/i.test(requestedPath)) {
    throw browserError(
      'SCREENSHOT_PATH_INVALID',
      `"${requestedPath}" must end in .png: screenshots are PNG files.`,
      {
        details: { path: requestedPath },
      },
    );
  }
  let target: { relative: string; absolute: string; deliverable: boolean; exists: boolean } | undefined;
  if (requestedPath !== undefined) {
    const resolved = await workspace.resolve(requestedPath);
    if (resolved.kind === 'directory') {
      throw browserError('SCREENSHOT_PATH_INVALID', `"${requestedPath}" is a directory.`, {
        details: { path: resolved.relative },
      });
    }
    const hidden =
      resolved.relative === HIDDEN_DIRECTORY_NAME ||
      resolved.relative.startsWith(`${HIDDEN_DIRECTORY_NAME}/`);
    if (!hidden) workspace.assertWritable();
    target = {
      relative: resolved.relative,
      absolute: resolved.absolute,
      deliverable: !hidden,
      exists: resolved.kind === 'file',
    };
  }
  let bytes: Buffer;
  try {
    bytes = await page.screenshot({ type: 'png', fullPage, timeout: 30_000 });
  } catch (error) {
    throw browserError('INTERACTION_FAILED', `The screenshot failed: ${describePlaywrightError(error)}`, {
      cause: error,
    });
  }
  const size = pngSize(bytes);
  if (target === undefined) {
    const directory = await workspace.ensureHiddenDirectory(SHOTS_DIRECTORY);
    shotCounter += 1;
    const name = `shot-${new Date().toISOString().replace(/[:.]/g, '-')}-${shotCounter}.png`;
    const absolute = path.join(directory, name);
    await writeAtomically(absolute, bytes);
    return { path: workspace.relativePath(absolute), deliverable: false, replaced: false, bytes, ...size };
  }
  if (target.deliverable) {
    const expectedHash = target.exists
      ? (await workspace.readFile(target.relative, { observe: false })).hash
      : undefined;
    await workspace.writeFiles([
      { path: target.relative, bytes, ...(expectedHash === undefined ? {} : { expectedHash }) },
    ]);
  } else {
    await workspace.ensureHiddenDirectory(...path.posix.dirname(target.relative).split('/').slice(1));
    await writeAtomically(target.absolute, bytes);
  }
  return { path: target.relative, deliverable: target.deliverable, replaced: target.exists, bytes, ...size };
}
