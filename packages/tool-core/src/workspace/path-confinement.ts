import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInsideDirectory } from '@assistant-kit/kernel';
import { quoteArgument } from '../bounded-quote.js';
import { ToolError } from '../errors.js';

export { isInsideDirectory };

/** Longest path argument accepted, in bytes; longer ones are refused before touching the disk. */
export const MAX_PATH_BYTES = 4096;

/** A high surrogate with no low one after it, or a low one with no high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Converts an absolute path inside `root` to the workspace-relative, '/'-separated form. */
export function toWorkspaceRelative(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

/**
 * Lexically resolves a path argument against the workspace root and refuses anything that is not
 * a usable path inside it. Symlinks are checked separately by {@link resolveRealPath}.
 */
export function resolveLexically(root: string, input: string): string {
  if (typeof input !== 'string') {
    throw new ToolError('PATH_INVALID', 'A path must be a string.');
  }
  if (input.includes('\0')) {
    throw new ToolError('PATH_INVALID', 'The path contains a NUL byte; give a plain workspace path.');
  }
  // A lone surrogate reaches the file system as U+FFFD, so it would name another file (or none):
  // it is how a name that is not UTF-8 reads when decoded without loss (kernel's decodeNameBytes).
  if (LONE_SURROGATE.test(input)) {
    throw new ToolError(
      'PATH_INVALID',
      'The path holds a lone UTF-16 surrogate, so it names no file here. A file name that is not UTF-8 (shown quoted with octal escapes, like "caf\\351.txt") cannot be given as a path; rename it with a command first.',
    );
  }
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new ToolError('PATH_INVALID', `The path is longer than ${MAX_PATH_BYTES} bytes.`);
  }
  const absolute = path.resolve(root, input === '' ? '.' : input);
  if (!isInsideDirectory(root, absolute)) {
    throw new ToolError(
      'PATH_OUTSIDE_WORKSPACE',
      `The path "${quoteArgument(input)}" resolves outside the workspace; use a path inside the workspace root.`,
      { details: { path: quoteArgument(input) } },
    );
  }
  for (const segment of path.relative(root, absolute).split(path.sep)) {
    if (Buffer.byteLength(segment) > 255) {
      throw new ToolError('PATH_INVALID', 'A path segment is longer than 255 bytes.', {
        details: { path: quoteArgument(input) },
      });
    }
  }
  return absolute;
}

/**
 * Resolves symlinks of the deepest existing ancestor of `absolute` (the path itself when it
 * exists) and refuses the path when that real location is outside the real workspace root.
 * Returns the real path of the target (the not-yet-existing tail appended unchanged).
 */
export async function resolveRealPath(realRoot: string, absolute: string, input: string): Promise<string> {
  // Most paths exist: one realpath answers them. Only a missing path (or a dangling symlink)
  // walks up to its deepest existing ancestor. Synchronous calls, as every Workspace call but
  // fsync (see atomic-write.ts).
  try {
    return assertRealPathInside(realRoot, realpathSync.native(absolute), input);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ENAMETOOLONG' && code !== 'ELOOP') throw error;
  }
  let existing = absolute;
  const missingTail: string[] = [];
  for (;;) {
    try {
      // A missing entry, the usual answer here, is told without making an error.
      if (lstatSync(existing, { throwIfNoEntry: false }) !== undefined) break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENAMETOOLONG') {
        throw new ToolError('PATH_INVALID', 'The path is too long for the file system.', { cause: error });
      }
      if (code !== 'ENOTDIR') throw error;
    }
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missingTail.unshift(path.basename(existing));
    existing = parent;
  }
  let realExisting: string;
  try {
    realExisting = realpathSync.native(existing);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') {
      // A dangling or looping symlink: refuse, it can be re-pointed anywhere later.
      throw new ToolError(
        'PATH_OUTSIDE_WORKSPACE',
        `The path "${quoteArgument(input)}" goes through a broken or looping symlink.`,
        { cause: error, details: { path: quoteArgument(input) } },
      );
    }
    throw error;
  }
  assertRealPathInside(realRoot, realExisting, input);
  return missingTail.length === 0 ? realExisting : path.join(realExisting, ...missingTail);
}

function assertRealPathInside(realRoot: string, real: string, input: string): string {
  if (!isInsideDirectory(realRoot, real)) {
    throw new ToolError(
      'PATH_OUTSIDE_WORKSPACE',
      `The path "${quoteArgument(input)}" goes through a symlink that leads outside the workspace.`,
      { details: { path: quoteArgument(input) } },
    );
  }
  return real;
}
