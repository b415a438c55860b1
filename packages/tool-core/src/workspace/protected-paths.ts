import { lstatSync } from 'node:fs';
import path from 'node:path';
import { quoteArgument } from '../bounded-quote.js';
import { ToolError } from '../errors.js';
import { isInsideDirectory } from './path-confinement.js';

/** Name of the app's hidden folder inside a workspace (shots, logs, undo checkpoints). */
export const HIDDEN_DIRECTORY_NAME = '.assistant-kit';

/**
 * Folders under the hidden app folder that no tool may even read: the undo shadow repository
 * (its config is read by the service's own git) and nothing else for now.
 */
export const UNREADABLE_SERVICE_AREAS: readonly string[] = ['undo'];

/** Why a path is protected. */
export type PathProtectionKind = 'version-control' | 'service-state';

/** Why a path may not be written: its kind, the refused path and a message for the model. */
export interface PathProtection {
  kind: PathProtectionKind;
  /** Workspace-relative path that was refused. */
  path: string;
  message: string;
}

// Segments are compared case-insensitively on every file system: on a case-insensitive one
// (macOS, Windows, ext4 casefold folders) `.GIT` *is* `.git`, and probing each folder's case
// behaviour would cost a syscall per write for no legitimate gain — nobody needs to write `.GIT/`.
const GIT_SEGMENT = '.git';

function segmentsOf(relative: string): string[] {
  return relative === '.' || relative === '' ? [] : relative.split('/');
}

function sameName(segment: string, name: string): boolean {
  return segment.toLowerCase() === name;
}

function describe(kind: PathProtectionKind, relative: string): string {
  return kind === 'version-control'
    ? `"${relative}" is version-control metadata (a git directory); tools may not write it. Change the project's files instead, or run git through run_command.`
    : `"${relative}" is the service's own state (the hidden ${HIDDEN_DIRECTORY_NAME}/ folder); tools may not write it.`;
}

/**
 * The protection of a workspace-relative path by its name alone: any `.git` segment (a `.git`
 * folder at any depth, nested repositories included, or a `.git` file that names a gitdir) and
 * the hidden app folder at the root.
 */
export function protectionByName(relative: string): PathProtection | undefined {
  const segments = segmentsOf(relative);
  if (segments.some((segment) => sameName(segment, GIT_SEGMENT))) {
    return { kind: 'version-control', path: relative, message: describe('version-control', relative) };
  }
  if (segments.length > 0 && sameName(segments[0]!, HIDDEN_DIRECTORY_NAME)) {
    return { kind: 'service-state', path: relative, message: describe('service-state', relative) };
  }
  return undefined;
}

/** True when a workspace-relative path is inside (or is) an area of the hidden folder no tool reads. */
export function isUnreadableServiceArea(relative: string): boolean {
  const segments = segmentsOf(relative);
  return (
    segments.length >= 2 &&
    sameName(segments[0]!, HIDDEN_DIRECTORY_NAME) &&
    UNREADABLE_SERVICE_AREAS.some((area) => sameName(segments[1]!, area))
  );
}

// Synchronous, as every Workspace call but fsync (see atomic-write.ts). A missing entry is the
// common answer, so it is not thrown.
function isDirectory(absolute: string): boolean {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

function isFile(absolute: string): boolean {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * True when a directory is one git would accept as a git directory: a `HEAD` file beside an
 * `objects` folder or a `commondir` file (linked worktrees). This finds the targets of `.git`
 * files (`gitdir: ../elsewhere`), `modules/<name>` of submodules, `worktrees/<name>` and bare
 * repositories, whatever they are called.
 */
export async function looksLikeGitDirectory(directory: string): Promise<boolean> {
  if (!isFile(path.join(directory, 'HEAD'))) return false;
  return isDirectory(path.join(directory, 'objects')) || isFile(path.join(directory, 'commondir'));
}

/**
 * True when writing below `directory` through its child `child` would complete a git directory:
 * `HEAD` beside an existing `objects/` or `commondir`, or `objects/…` or `commondir` beside an
 * existing `HEAD`. Without it, a tool could build a bare repository (config first, markers
 * last) that git would use when someone runs git inside it.
 */
function wouldCompleteGitDirectory(directory: string, child: string): boolean {
  const name = child.toLowerCase();
  if (name === 'head') {
    return isDirectory(path.join(directory, 'objects')) || isFile(path.join(directory, 'commondir'));
  }
  if (name === 'objects' || name === 'commondir') return isFile(path.join(directory, 'HEAD'));
  return false;
}

/**
 * The protection of a real absolute path inside `realRoot`: by name first, then by content —
 * any existing ancestor folder (the root included) that is a git directory, or would become one
 * through this write, protects everything below it. Costs one or two `lstat`s per ancestor, only
 * for writes.
 */
export async function writeProtectionOf(
  realRoot: string,
  absolute: string,
  relative: string,
): Promise<PathProtection | undefined> {
  const byName = protectionByName(relative);
  if (byName !== undefined) return byName;
  let child = path.basename(absolute);
  let directory = path.dirname(absolute);
  for (;;) {
    if ((await looksLikeGitDirectory(directory)) || wouldCompleteGitDirectory(directory, child)) {
      return { kind: 'version-control', path: relative, message: describe('version-control', relative) };
    }
    if (directory === realRoot) return undefined;
    const parent = path.dirname(directory);
    if (parent === directory || !isInsideDirectory(realRoot, parent)) return undefined;
    child = path.basename(directory);
    directory = parent;
  }
}

/** The error a refused write or read of a protected path carries. */
export function protectedPathError(protection: PathProtection, input: string): ToolError {
  return new ToolError('PATH_PROTECTED', protection.message, {
    details: { path: protection.path, protection: protection.kind, requested: quoteArgument(input) },
  });
}

/** The error of a read inside an area of the hidden folder that no tool reads. */
export function unreadableServiceAreaError(relative: string): ToolError {
  return new ToolError(
    'PATH_PROTECTED',
    `"${relative}" is the service's own state (the undo shadow repository); tools may not read or write it.`,
    { details: { path: relative, protection: 'service-state' } },
  );
}
