import type { Workspace } from '@assistant-kit/tool-core';
import type { Page } from 'playwright-core';
import { browserError, describePlaywrightError } from './errors.js';
import { writeServiceStateFile } from './storage/service-state-file.js';

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

let shotCounter = 0;

/**
 * Captures the page as PNG and saves it: by default in the hidden shots folder (the service's own
 * state: git-ignored, allowed even in a read-only workspace, written durably by the allow-listed
 * service-state writer), or at a `.png` path, which is a deliverable written through the
 * Workspace like any tool's write: confined, atomic and fsynced, refused in a read-only
 * workspace (WORKSPACE_READ_ONLY) and in protected places such as `.git/` or the hidden folder
 * itself (PATH_PROTECTED).
 */
export async function captureScreenshot(
  page: Page,
  workspace: Workspace,
  requestedPath: string | undefined,
  fullPage: boolean,
): Promise<SavedScreenshot> {
  let target: { relative: string; exists: boolean } | undefined;
  if (requestedPath !== undefined) {
    if (!/\.png$/i.test(requestedPath)) {
      throw browserError(
        'SCREENSHOT_PATH_INVALID',
        `"${requestedPath}" must end in .png: screenshots are PNG files.`,
        { details: { path: requestedPath } },
      );
    }
    const resolved = await workspace.resolve(requestedPath);
    if (resolved.kind === 'directory') {
      throw browserError('SCREENSHOT_PATH_INVALID', `"${requestedPath}" is a directory.`, {
        details: { path: resolved.relative },
      });
    }
    // Refuse before capturing (read-only workspace, .git, the hidden folder); writeFiles checks again.
    workspace.assertWritable();
    const protection = await workspace.writeProtection(resolved.relative);
    if (protection !== undefined) {
      throw browserError('PATH_PROTECTED', protection.message, {
        details: { path: protection.path, protection: protection.kind },
      });
    }
    target = { relative: resolved.relative, exists: resolved.kind === 'file' };
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
    const absolute = await writeServiceStateFile(directory, name, bytes);
    return { path: workspace.relativePath(absolute), deliverable: false, replaced: false, bytes, ...size };
  }
  const expectedHash = target.exists
    ? (await workspace.readFile(target.relative, { observe: false })).hash
    : undefined;
  await workspace.writeFiles([
    { path: target.relative, bytes, ...(expectedHash === undefined ? {} : { expectedHash }) },
  ]);
  return { path: target.relative, deliverable: true, replaced: target.exists, bytes, ...size };
}
