import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isToolError, ToolError } from '../errors.js';
import { sha256Hex } from '../hash.js';
import {
  type CheckedVersion,
  discardStagedFile,
  realPathOfDescriptor,
  type StagedFile,
  stageFile,
  standsAsChecked,
  writeFileAtomically,
} from './atomic-write.js';
import {
  createDirectoriesInside,
  type OpenedDirectory,
  openDirectoryInside,
} from './confined-directories.js';
import { ObservedFileLedger } from './observed-file-ledger.js';
import {
  isInsideDirectory,
  resolveLexically,
  resolveRealPath,
  toWorkspaceRelative,
} from './path-confinement.js';
import {
  HIDDEN_DIRECTORY_NAME,
  isUnreadableServiceArea,
  type PathProtection,
  protectedPathError,
  unreadableServiceAreaError,
  writeProtectionOf,
} from './protected-paths.js';
import {
  commitFilesInFolders,
  discardFilesInFolders,
  type FolderOpener,
  type StagedInFolder,
  stageFilesInFolders,
} from './staged-files.js';

/** How often the hidden folder is made again when it vanishes while being made (see ensureHiddenDirectory). */
const HIDDEN_DIRECTORY_ROUNDS = 5;

export { HIDDEN_DIRECTORY_NAME };

/**
 * How a workspace file is opened for reading: never through a symlink, and without waiting for a
 * writer should the path be (or have become) a FIFO; the descriptor is then refused as not a
 * regular file. O_NONBLOCK changes nothing for a regular file.
 */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What a confined path names on disk. */
export type WorkspacePathKind = 'file' | 'directory' | 'missing';

/** A path argument after confinement: where it really is and what is there. */
export interface WorkspacePath {
  /** The argument as given. */
  input: string;
  /** Real absolute path (symlinks inside the workspace resolved). */
  absolute: string;
  /** Workspace-relative path with '/' separators; '.' for the root. */
  relative: string;
  kind: WorkspacePathKind;
  /** Size in bytes for files. */
  size: number;
  /** Permission bits of an existing file. */
  mode: number;
}

/** How a {@link Workspace} is opened. */
export interface WorkspaceOptions {
  /** Refuse every change to the workspace (configuration R). */
  readOnly?: boolean;
}

/** Options of {@link Workspace.readFile}. */
export interface ReadWorkspaceFileOptions {
  /** Record the version in the observed-file ledger (default true). */
  observe?: boolean;
  /** Refuse files larger than this many bytes (default: no limit). */
  maxBytes?: number;
}

/** A file read through the {@link Workspace}: where it is, its bytes and their SHA-256 (hex). */
export interface WorkspaceFile {
  path: WorkspacePath;
  bytes: Buffer;
  hash: string;
}

/** One file of an all-or-nothing multi-file write. */
export interface WorkspaceFileChange {
  path: string;
  bytes: Uint8Array;
  /** Hash the file must still have on disk; omit to require the observed version. */
  expectedHash?: string;
}

/** A file a write through the {@link Workspace} has just put in place. */
export interface WrittenWorkspaceFile {
  /** Workspace-relative path with '/' separators. */
  path: string;
  /** The bytes the file now holds: the writer's own buffer, so a listener must not change it. */
  bytes: Uint8Array;
  /** The permission bits the file was given. */
  mode: number;
}

/**
 * One workspace root: every path argument is resolved and confined to it, reads and writes go
 * through it, and it holds the session's observed-file ledger.
 *
 * @example
 * const workspace = await Workspace.open('/srv/project');
 * const file = await workspace.readFile('src/app.ts');      // observed
 * await workspace.replaceFile('src/app.ts', newBytes);      // allowed: observed and unchanged
 */
export class Workspace {
  readonly root: string;
  readonly readOnly: boolean;
  readonly ledger = new ObservedFileLedger();
  readonly #beforeWrite = new Set<(relativePaths: readonly string[]) => Promise<void> | void>();
  readonly #afterWrite = new Set<(files: readonly WrittenWorkspaceFile[]) => void>();

  private constructor(root: string, options: WorkspaceOptions) {
    this.root = root;
    this.readOnly = options.readOnly ?? false;
  }

  /** Opens a workspace at an existing directory (its real path becomes the root). */
  static async open(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    let realRoot: string;
    try {
      realRoot = await realpath(path.resolve(root));
    } catch (error) {
      throw new ToolError('PATH_NOT_FOUND', `The workspace root "${root}" does not exist.`, { cause: error });
    }
    if (!(await stat(realRoot)).isDirectory()) {
      throw new ToolError('PATH_NOT_DIRECTORY', `The workspace root "${root}" is not a directory.`);
    }
    return new Workspace(realRoot, options);
  }

  /** A read-only view of the same root that shares nothing mutable with this one. */
  async asReadOnly(): Promise<Workspace> {
    return Workspace.open(this.root, { readOnly: true });
  }

  /**
   * Calls `listener` with the workspace-relative paths of every write, after its checks and
   * before any byte changes (undo checkpoints record the previous content from it); a listener
   * that throws stops the write. Returns a function that removes the listener.
   */
  onBeforeWrite(listener: (relativePaths: readonly string[]) => Promise<void> | void): () => void {
    this.#beforeWrite.add(listener);
    return () => this.#beforeWrite.delete(listener);
  }

  async #notifyBeforeWrite(relativePaths: readonly string[]): Promise<void> {
    for (const listener of this.#beforeWrite) await listener(relativePaths);
  }

  /**
   * Calls `listener`, synchronously, with the files a write has just put in place: the exact
   * bytes and permission bits each holds now. Undo checkpoints record a dispatch's result from
   * them, since by the time they look at the disk (after the host has answered) a person may
   * have saved over the file. A write that fails calls nothing (what its files hold then is
   * unknown). The write is done when it is called, so a listener must not throw. Returns a
   * function that removes the listener.
   */
  onAfterWrite(listener: (files: readonly WrittenWorkspaceFile[]) => void): () => void {
    this.#afterWrite.add(listener);
    return () => this.#afterWrite.delete(listener);
  }

  #notifyAfterWrite(files: readonly WrittenWorkspaceFile[]): void {
    for (const listener of this.#afterWrite) listener(files);
  }

  /** Absolute path of the hidden app folder (not created). */
  get hiddenDirectory(): string {
    return path.join(this.root, HIDDEN_DIRECTORY_NAME);
  }

  /**
   * Creates (if needed) a folder under the hidden app folder, which carries a `.gitignore` of `*`
   * so nothing in it becomes part of a deliverable. Returns its absolute path.
   */
  async ensureHiddenDirectory(...segments: string[]): Promise<string> {
    const directory = path.join(this.hiddenDirectory, ...segments);
    if (!isInsideDirectory(this.hiddenDirectory, directory)) {
      throw new ToolError('PATH_OUTSIDE_WORKSPACE', 'Hidden folder segments must stay inside it.');
    }
    const ignoreFile = path.join(this.hiddenDirectory, '.gitignore');
    // Until its `.gitignore` is there the folder is untracked and not ignored, so the user's
    // `git stash --include-untracked` or `git clean -d` running at that moment removes it (and the
    // stash keeps what it held). Made again until it stands with its `.gitignore`; a few rounds
    // at most, since a removal needs a git command in that window of microseconds.
    for (let round = 1; ; round += 1) {
      try {
        // Created component by component like every write's parents: a planted `.assistant-kit`
        // symlink cannot make the service create its folders outside the workspace.
        await createDirectoriesInside(this.root, this.hiddenDirectory, HIDDEN_DIRECTORY_NAME);
        try {
          writeFileSync(ignoreFile, '*\n', { flag: 'wx' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        await createDirectoriesInside(this.root, directory, toWorkspaceRelative(this.root, directory));
        lstatSync(ignoreFile);
        return directory;
      } catch (error) {
        if (round === HIDDEN_DIRECTORY_ROUNDS || (error as NodeJS.ErrnoException).code !== 'ENOENT')
          throw error;
      }
    }
  }

  /** Workspace-relative form of an absolute path inside the root. */
  relativePath(absolute: string): string {
    return toWorkspaceRelative(this.root, absolute);
  }

  /** True when an absolute path lies inside the workspace root (lexically). */
  contains(absolute: string): boolean {
    return isInsideDirectory(this.root, absolute);
  }

  /**
   * Resolves and confines a path argument (relative to the root, or absolute inside it).
   * Refuses NUL bytes, `..` escapes, absolute paths outside, prefix look-alikes, symlinks that
   * lead outside, and device files, FIFOs and sockets.
   */
  async resolve(input: string): Promise<WorkspacePath> {
    const lexical = resolveLexically(this.root, input);
    // The undo shadow repository is refused before anything is looked up: its config is read by
    // the service's own git, so a tool may neither read nor write it (issue 12).
    if (isUnreadableServiceArea(toWorkspaceRelative(this.root, lexical))) {
      throw unreadableServiceAreaError(toWorkspaceRelative(this.root, lexical));
    }
    const real = await resolveRealPath(this.root, lexical, input);
    if (isUnreadableServiceArea(toWorkspaceRelative(this.root, real))) {
      throw unreadableServiceAreaError(toWorkspaceRelative(this.root, real));
    }
    let kind: WorkspacePathKind = 'missing';
    let size = 0;
    let mode = 0o644;
    try {
      // Synchronous, as every Workspace call but fsync (see atomic-write.ts).
      const status = statSync(real, { throwIfNoEntry: false });
      if (status !== undefined) {
        if (status.isFile()) kind = 'file';
        else if (status.isDirectory()) kind = 'directory';
        else {
          throw new ToolError(
            'PATH_NOT_REGULAR_FILE',
            `"${input}" is a device, FIFO or socket, not a regular file or directory.`,
            { details: { path: input } },
          );
        }
        size = status.size;
        mode = status.mode & 0o777;
      }
    } catch (error) {
      if (isToolError(error)) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    return { input, absolute: real, relative: toWorkspaceRelative(this.root, real), kind, size, mode };
  }

  /** Resolves a path that must be an existing regular file. */
  async resolveFile(input: string): Promise<WorkspacePath> {
    const resolved = await this.resolve(input);
    if (resolved.kind === 'missing') {
      throw new ToolError('PATH_NOT_FOUND', `No file at "${input}" in the workspace.`, {
        details: { path: resolved.relative },
      });
    }
    if (resolved.kind === 'directory') {
      throw new ToolError('PATH_IS_DIRECTORY', `"${input}" is a directory, not a file.`, {
        details: { path: resolved.relative },
      });
    }
    return resolved;
  }

  /** Resolves a path that must be an existing directory. */
  async resolveDirectory(input: string): Promise<WorkspacePath> {
    const resolved = await this.resolve(input);
    if (resolved.kind === 'missing') {
      throw new ToolError('PATH_NOT_FOUND', `No directory at "${input}" in the workspace.`, {
        details: { path: resolved.relative },
      });
    }
    if (resolved.kind === 'file') {
      throw new ToolError('PATH_NOT_DIRECTORY', `"${input}" is a file, not a directory.`, {
        details: { path: resolved.relative },
      });
    }
    return resolved;
  }

  /**
   * Reads a whole file through a descriptor opened without following a final symlink and checked
   * to be inside the workspace, and (by default) records it in the observed-file ledger.
   */
  async readFile(input: string, options: ReadWorkspaceFileOptions = {}): Promise<WorkspaceFile> {
    const resolved = await this.resolveFile(input);
    if (options.maxBytes !== undefined && resolved.size > options.maxBytes) {
      throw new ToolError(
        'FILE_TOO_LARGE',
        `"${resolved.relative}" has ${resolved.size} bytes, more than the ${options.maxBytes} this call reads whole.`,
        { details: { path: resolved.relative, size: resolved.size, limit: options.maxBytes } },
      );
    }
    const bytes = await this.readBytesNoFollow(resolved);
    const hash = sha256Hex(bytes);
    if (options.observe ?? true) this.ledger.record(resolved.relative, { hash, size: bytes.length });
    return { path: { ...resolved, size: bytes.length }, bytes, hash };
  }

  /** Records a file version the caller has read by other means (for example by range). */
  observe(relativePath: string, version: { hash: string; size: number }): void {
    this.ledger.record(relativePath, version);
  }

  /**
   * Creates a new file exclusively (never replacing anything), creating parent folders inside
   * the workspace. Records the new version as observed.
   */
  async createFile(input: string, bytes: Uint8Array): Promise<WorkspacePath> {
    this.assertWritable();
    const resolved = await this.resolve(input);
    await this.#assertNotProtected(resolved);
    if (resolved.kind !== 'missing') {
      throw new ToolError('FILE_EXISTS', `"${resolved.relative}" already exists.`, {
        details: { path: resolved.relative },
      });
    }
    await this.#notifyBeforeWrite([resolved.relative]);
    const parent = await this.#openParentDirectory(resolved, true);
    try {
      // Staged in a temp file and hard-linked into place: link() fails when the name exists (an
      // exclusive create) and publishes the complete content at once, so a crash never leaves a
      // partly written new file. Both name the opened parent, never a path that could be swapped.
      const target = path.join(parent.path, path.basename(resolved.absolute));
      let staged: StagedFile;
      try {
        staged = await stageFile(this.root, target, bytes, resolved.relative, 0o644);
      } catch (error) {
        if (isToolError(error)) throw error;
        throw new ToolError('WRITE_FAILED', `Could not create "${resolved.relative}".`, { cause: error });
      }
      try {
        linkSync(staged.temporaryPath, target);
        // The new name survives a crash like a replaced file's (the content was flushed when staged).
        await parent.sync();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new ToolError('FILE_EXISTS', `"${resolved.relative}" already exists.`, { cause: error });
        }
        throw new ToolError('WRITE_FAILED', `Could not create "${resolved.relative}".`, { cause: error });
      } finally {
        await discardStagedFile(staged);
      }
    } finally {
      await parent.close();
    }
    this.ledger.record(resolved.relative, { hash: sha256Hex(bytes), size: bytes.length });
    this.#notifyAfterWrite([{ path: resolved.relative, bytes, mode: 0o644 }]);
    return { ...resolved, kind: 'file', size: bytes.length };
  }

  /**
   * Atomically replaces an existing file that this session observed and that has not changed
   * since (SPEC 7). Keeps the file's permission bits. Records the new version as observed, so
   * the same file can be replaced again right away.
   */
  async replaceFile(
    input: string,
    bytes: Uint8Array,
    options: { expectedHash?: string } = {},
  ): Promise<WorkspacePath> {
    this.assertWritable();
    const resolved = await this.resolveFile(input);
    await this.#assertNotProtected(resolved);
    const { bytes: current, version } = await this.readVersionNoFollow(resolved);
    this.assertCurrentVersion(resolved.relative, current, options.expectedHash);
    await this.#notifyBeforeWrite([resolved.relative]);
    const parent = await this.#openParentDirectory(resolved, false);
    try {
      const target = path.join(parent.path, path.basename(resolved.absolute));
      await writeFileAtomically(
        this.root,
        target,
        bytes,
        resolved.relative,
        resolved.mode,
        parent.sync,
        version,
      );
    } catch (error) {
      if (isToolError(error)) throw error;
      throw new ToolError('WRITE_FAILED', `Could not write "${resolved.relative}"; it is unchanged.`, {
        cause: error,
      });
    } finally {
      await parent.close();
    }
    this.ledger.record(resolved.relative, { hash: sha256Hex(bytes), size: bytes.length });
    this.#notifyAfterWrite([{ path: resolved.relative, bytes, mode: resolved.mode }]);
    return { ...resolved, size: bytes.length };
  }

  /**
   * Writes several files all-or-nothing: every file is checked against its expected version and
   * staged first; if any rename fails, the files already replaced get their old bytes back.
   * Files that do not exist yet are created.
   */
  async writeFiles(changes: readonly WorkspaceFileChange[]): Promise<WorkspacePath[]> {
    this.assertWritable();
    const prepared: {
      resolved: WorkspacePath;
      previous: Buffer | undefined;
      version: CheckedVersion | 'absent';
      change: WorkspaceFileChange;
    }[] = [];
    for (const change of changes) {
      const resolved = await this.resolve(change.path);
      await this.#assertNotProtected(resolved);
      if (resolved.kind === 'directory') {
        throw new ToolError('PATH_IS_DIRECTORY', `"${change.path}" is a directory, not a file.`);
      }
      let previous: Buffer | undefined;
      // A new file: nothing may stand there when it is renamed into place.
      let version: CheckedVersion | 'absent' = 'absent';
      if (resolved.kind === 'file') {
        ({ bytes: previous, version } = await this.readVersionNoFollow(resolved));
        this.assertCurrentVersion(resolved.relative, previous, change.expectedHash);
      }
      prepared.push({ resolved, previous, version, change });
    }
    await this.#notifyBeforeWrite(prepared.map(({ resolved }) => resolved.relative));
    // Staged and committed folder by folder with few descriptors open (staged-files.ts): each
    // folder is opened and checked again for the renames.
    const openFolder: FolderOpener = (folder, shownPath, create) => {
      if (!isInsideDirectory(this.root, folder)) {
        throw new ToolError('PATH_OUTSIDE_WORKSPACE', `"${shownPath}" is outside the workspace.`);
      }
      return openDirectoryInside(this.root, folder, shownPath, { create });
    };
    let staged: StagedInFolder[];
    try {
      // With more than one file, a later refusal puts back the earlier ones: each must still be
      // what this write made, which its staged version tells.
      staged = await stageFilesInFolders(
        this.root,
        prepared.map(({ resolved, change }) => ({
          target: resolved.absolute,
          bytes: change.bytes,
          mode: resolved.mode,
          shownPath: resolved.relative,
        })),
        openFolder,
        { keepWrittenVersion: prepared.length > 1 },
      );
    } catch (error) {
      throw isToolError(error)
        ? error
        : new ToolError('WRITE_FAILED', 'Could not prepare the writes; no file was changed.', {
            cause: error,
          });
    }
    const committed: number[] = [];
    try {
      await commitFilesInFolders(
        staged,
        prepared.map(({ version, resolved }) => ({ version, shownPath: resolved.relative })),
        openFolder,
        committed,
      );
    } catch (error) {
      const done = new Set(committed);
      await discardFilesInFolders(
        staged.filter((_entry, index) => !done.has(index)),
        openFolder,
      );
      const { leftAsSaved, notRestored } = await this.rollBack(prepared, staged, committed);
      const left = [
        ...leftAsSaved.map(
          (file) => ` "${file}" changed on disk after this write replaced it; it was left as it is.`,
        ),
        ...notRestored.map((file) => ` "${file}" could not be put back and holds this write's new content.`),
      ].join('');
      const outcome = left !== '' ? left : undefined;
      const extra = {
        ...(leftAsSaved.length > 0 && { leftAsSaved }),
        ...(notRestored.length > 0 && { notRestored }),
      };
      if (isToolError(error, 'FILE_CHANGED_SINCE_OBSERVED') || isToolError(error, 'FILE_EXISTS'))
        throw new ToolError(
          error.code,
          `${error.message}${outcome ?? ' No file of this write was changed.'}`,
          { details: { ...error.details, ...extra }, cause: error },
        );
      throw new ToolError(
        'WRITE_FAILED',
        outcome === undefined
          ? 'A write failed; every file was restored to its previous content.'
          : `A write failed; the other files were restored to their previous content.${outcome}`,
        { ...(outcome !== undefined && { details: extra }), cause: error },
      );
    }
    const written = prepared.map(({ resolved, change }) => {
      this.ledger.record(resolved.relative, { hash: sha256Hex(change.bytes), size: change.bytes.length });
      return { ...resolved, kind: 'file' as const, size: change.bytes.length };
    });
    this.#notifyAfterWrite(
      prepared.map(({ resolved, change }) => ({
        path: resolved.relative,
        bytes: change.bytes,
        mode: resolved.mode,
      })),
    );
    return written;
  }

  /**
   * Why a tool may not write this path, or undefined when it may: `.git` (any depth, any case),
   * any folder git would use as a git directory (gitdir targets of `.git` files, submodule
   * modules, worktrees, bare repositories) and the hidden app folder. Every write of this class
   * checks it; replace_in_files asks first so it can skip and list such files.
   */
  async writeProtection(input: string): Promise<PathProtection | undefined> {
    const resolved = await this.resolve(input);
    return writeProtectionOf(this.root, resolved.absolute, resolved.relative);
  }

  async #assertNotProtected(resolved: WorkspacePath): Promise<void> {
    const protection = await writeProtectionOf(this.root, resolved.absolute, resolved.relative);
    if (protection !== undefined) throw protectedPathError(protection, resolved.input);
  }

  /** Throws WORKSPACE_READ_ONLY when the workspace refuses changes. */
  assertWritable(): void {
    if (this.readOnly) {
      throw new ToolError('WORKSPACE_READ_ONLY', 'This workspace is read-only; no file can be changed.');
    }
  }

  /**
   * Puts back the files a multi-file write already replaced, newest first. Each must still be
   * the version this write made (its staged status): a file saved since is left as it is, and a
   * file the write created is removed only if it is still the write's own.
   */
  private async rollBack(
    prepared: { resolved: WorkspacePath; previous: Buffer | undefined }[],
    staged: readonly { written?: CheckedVersion }[],
    committedIndexes: number[],
  ): Promise<{ leftAsSaved: string[]; notRestored: string[] }> {
    const leftAsSaved: string[] = [];
    const notRestored: string[] = [];
    for (const index of [...committedIndexes].reverse()) {
      const { resolved, previous } = prepared[index]!;
      const written = staged[index]?.written;
      try {
        if (previous === undefined) {
          if (written !== undefined && !(await standsAsChecked(resolved.absolute, written)))
            leftAsSaved.push(resolved.relative);
          else unlinkSync(resolved.absolute);
        } else
          await writeFileAtomically(
            this.root,
            resolved.absolute,
            previous,
            resolved.relative,
            resolved.mode,
            undefined,
            written,
          );
      } catch (error) {
        const gone = (error as NodeJS.ErrnoException).code === 'ENOENT';
        // A file this write created and someone removed since is as it was before the write.
        if (gone && previous === undefined) continue;
        // Saved over, removed, or its folder removed since this write replaced it.
        if (gone || isToolError(error, 'FILE_CHANGED_SINCE_OBSERVED')) leftAsSaved.push(resolved.relative);
        else notRestored.push(resolved.relative);
      }
    }
    return { leftAsSaved: leftAsSaved.reverse(), notRestored: notRestored.reverse() };
  }

  private assertCurrentVersion(relative: string, current: Buffer, expectedHash: string | undefined): void {
    const currentHash = sha256Hex(current);
    if (expectedHash !== undefined) {
      if (currentHash !== expectedHash) {
        throw new ToolError(
          'FILE_CHANGED_SINCE_OBSERVED',
          `"${relative}" changed on disk since it was read; read it again before changing it.`,
          { details: { path: relative, currentSize: current.length } },
        );
      }
      return;
    }
    const observed = this.ledger.get(relative);
    if (observed === undefined) {
      throw new ToolError(
        'FILE_NOT_OBSERVED',
        `"${relative}" exists but was not read in this session; read it with read_file first, then replace it.`,
        { details: { path: relative } },
      );
    }
    if (observed.hash !== currentHash) {
      throw new ToolError(
        'FILE_CHANGED_SINCE_OBSERVED',
        `"${relative}" changed on disk since it was read (was ${observed.size} bytes, now ${current.length} bytes, different content); read it again before changing it.`,
        { details: { path: relative, observedSize: observed.size, currentSize: current.length } },
      );
    }
  }

  /**
   * Opens (and with `create`, creates) the parent folder of a write one component at a time,
   * relative to verified descriptors: a parent swapped for a symlink meanwhile can neither make
   * mkdir create a folder outside the workspace nor receive the staged temp file.
   */
  async #openParentDirectory(resolved: WorkspacePath, create: boolean): Promise<OpenedDirectory> {
    const parent = path.dirname(resolved.absolute);
    if (!isInsideDirectory(this.root, parent)) {
      throw new ToolError('PATH_OUTSIDE_WORKSPACE', `"${resolved.relative}" is outside the workspace.`);
    }
    return openDirectoryInside(this.root, parent, resolved.relative, { create });
  }

  private async readBytesNoFollow(resolved: WorkspacePath): Promise<Buffer> {
    return (await this.readVersionNoFollow(resolved)).bytes;
  }

  /** The file's bytes, and its status as read from the same descriptor (see CheckedVersion). */
  private async readVersionNoFollow(
    resolved: WorkspacePath,
  ): Promise<{ bytes: Buffer; version: CheckedVersion }> {
    let fd: number;
    try {
      fd = openSync(resolved.absolute, READ_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') {
        throw new ToolError(
          'PATH_OUTSIDE_WORKSPACE',
          `"${resolved.input}" became a symlink while it was read.`,
          {
            cause: error,
          },
        );
      }
      if (code === 'ENOENT') {
        throw new ToolError('PATH_NOT_FOUND', `No file at "${resolved.input}".`, { cause: error });
      }
      // Permissions or an I/O error: a code of its own, as openForReading gives.
      throw openFailure(resolved.input, error);
    }
    try {
      const status = fstatSync(fd, { bigint: true });
      if (!status.isFile()) {
        throw new ToolError('PATH_NOT_REGULAR_FILE', `"${resolved.input}" is not a regular file.`);
      }
      const actual = realPathOfDescriptor(fd);
      if (actual !== undefined && !isInsideDirectory(this.root, actual)) {
        throw new ToolError(
          'PATH_OUTSIDE_WORKSPACE',
          `"${resolved.input}" was redirected outside the workspace.`,
        );
      }
      // To the end of the file, as it is now: one that grew since the status was read is read whole.
      const bytes = readFileSync(fd);
      return { bytes, version: { ino: status.ino, size: status.size, mtimeNs: status.mtimeNs } };
    } finally {
      closeSync(fd);
    }
  }

  /** Opens a regular file inside the workspace for ranged reads (caller closes the handle). */
  async openForReading(
    input: string,
  ): Promise<{ path: WorkspacePath; handle: Awaited<ReturnType<typeof open>> }> {
    const resolved = await this.resolveFile(input);
    const handle = await open(resolved.absolute, READ_FLAGS).catch((error) => {
      throw openFailure(input, error);
    });
    // The descriptor's checks are synchronous (see atomic-write.ts); the handle is a FileHandle
    // because callers stream from it.
    const status = fstatSync(handle.fd);
    const actual = realPathOfDescriptor(handle.fd);
    if (!status.isFile() || (actual !== undefined && !isInsideDirectory(this.root, actual))) {
      await handle.close();
      throw new ToolError('PATH_NOT_REGULAR_FILE', `"${input}" is not a regular file inside the workspace.`);
    }
    return { path: { ...resolved, size: status.size }, handle };
  }
}

/**
 * What an open that passed confinement failed with. Only a link swapped in since the check
 * (O_NOFOLLOW's ELOOP) is a confinement refusal; a vanished file, missing permissions or an I/O
 * error get their own codes, so a model is not told the path is outside the workspace.
 */
function openFailure(input: string, error: unknown): ToolError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ELOOP':
      return new ToolError(
        'PATH_OUTSIDE_WORKSPACE',
        `"${input}" became a symbolic link while it was opened; it was not read.`,
        { cause: error },
      );
    case 'ENOENT':
      return new ToolError('PATH_NOT_FOUND', `"${input}" was removed while it was opened.`, { cause: error });
    case 'EACCES':
    case 'EPERM':
      return new ToolError('PATH_ACCESS_DENIED', `"${input}" is not readable: its permissions deny access.`, {
        cause: error,
      });
    default:
      return new ToolError('READ_FAILED', `"${input}" could not be opened (${code ?? 'unknown error'}).`, {
        cause: error,
      });
  }
}
