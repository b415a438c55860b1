import path from 'node:path';
import { throwIfCancelled } from '../errors.js';
import { type FSWatcher, lstatOrUndefined, watchableFolderLimit, watchFolder } from './confined-fs.js';
import {
  ALWAYS_SKIPPED,
  childPath,
  excludeFileText,
  excludeLayerOf,
  type IgnoreLayer,
  isIgnored,
  loadIgnoreLayer,
  sameFileVersion,
  scanFolder,
  type WalkedFile,
  yieldToEventLoop,
} from './folder-scan.js';
import { scopeFolder } from './relative-folders.js';
import { DEFAULT_WALK_FILE_CAP, namesLeftOut, type WalkResult } from './workspace-walker.js';

/** Folders watched at most; a larger tree is listed by walking it on every call instead. */
export const MAX_WATCHED_FOLDERS = watchableFolderLimit();

/**
 * Folders whose mtime one update compares, in rotation: the sweep is a safety net for watch
 * events the kernel dropped, so a large tree spreads it over several calls instead of paying an
 * lstat per folder (13,000 folders: about 40 ms) on every call.
 */
export const SWEEP_FOLDERS_PER_UPDATE = 2_000;

interface FolderNode {
  relative: string;
  /** Layers inherited from the folders above (the folder's own .gitignore not included). */
  inherited: IgnoreLayer[];
  /** Layers in force inside the folder. */
  layers: IgnoreLayer[];
  files: Map<string, WalkedFile>;
  /** Names of the subfolders kept. */
  folders: Set<string>;
  /** Files and folders left out because their name is not UTF-8 (see FolderScan). */
  namesNotUtf8: string[];
  mtimeMs: number;
  inode: number;
  watcher: FSWatcher | undefined;
}

/** What one {@link WorkspaceTree.update} changed. */
export interface TreeChanges {
  /** Files whose content may differ from the last update (added, changed, or reported by a watcher). */
  touched: Set<string>;
  /** Files that are gone. */
  removed: Set<string>;
}

export interface WorkspaceTreeOptions {
  /** Files tracked at most; a larger workspace is walked on every call instead. */
  maxFiles?: number;
  maxWatchedFolders?: number;
}

function parentOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash === -1 ? '' : relative.slice(0, slash);
}

/**
 * The workspace's file list kept current by watching every walked folder (`fs.watch` on each
 * folder, not recursive: Node 20's recursive mode on Linux watches every file, follows into
 * ignored folders like node_modules and scans synchronously). A call then costs only the folders
 * that reported changes, instead of a stat of every file.
 *
 * Freshness: before answering, {@link update} lets the event loop run a full poll phase, so every
 * change the kernel reported before the call began is seen. Each folder's mtime is also compared
 * on every call (one stat per folder), which catches added, removed and renamed entries even if
 * watch events were lost (the kernel's event queue can overflow, and Node does not report that).
 * When a watch cannot be set up (inotify limits, file systems without notifications) or a watcher
 * fails, the tree reports itself unusable and callers walk the workspace with stats instead.
 */
export class WorkspaceTree {
  readonly root: string;
  readonly #maxFiles: number;
  readonly #maxWatchedFolders: number;
  readonly #folders = new Map<string, FolderNode>();
  /** Folder → names reported by its watcher since the last update ('*' for the whole folder). */
  readonly #pending = new Map<string, Set<string>>();
  #fileCount = 0;
  #state: 'unbuilt' | 'watching' | 'unusable' = 'unbuilt';
  /** The first build under way, shared by every caller, with the signal of the call that started it. */
  #building: { done: Promise<void>; signal: AbortSignal | undefined } | undefined;
  #version = 0;
  #membershipVersion = 0;
  /** Names left out in all folders (see FolderScan.namesNotUtf8): 0 spares list() a look. */
  #namesNotUtf8Count = 0;
  /** A rescan changed what some folder leaves out: the next update counts as a change. */
  #namesNotUtf8Changed = false;
  #closed = false;
  /** Where the next mtime sweep of a large tree starts. */
  #sweepCursor = 0;
  /**
   * Cached listing of the whole tree in walk order, valid while `#version` is unchanged; while
   * only `#membershipVersion` is, the files touched since are swapped in by position.
   */
  #listing:
    | { version: number; membershipVersion: number; files: WalkedFile[]; positionOf: Map<string, number> }
    | undefined;
  /** The text of `.git/info/exclude` the tree was built with (not watched: read on every update). */
  #excludeText: string | undefined;
  /** Files touched since the cached listing was made. */
  readonly #touchedSinceListing = new Set<string>();

  constructor(root: string, options: WorkspaceTreeOptions = {}) {
    this.root = root;
    this.#maxFiles = options.maxFiles ?? DEFAULT_WALK_FILE_CAP;
    this.#maxWatchedFolders = options.maxWatchedFolders ?? MAX_WATCHED_FOLDERS;
  }

  /** Increases whenever a file is added, removed, or may have changed. */
  get version(): number {
    return this.#version;
  }

  /** Increases whenever a file is added or removed (not when one only changes). */
  get membershipVersion(): number {
    return this.#membershipVersion;
  }

  /** False once watching failed or the workspace is too large to watch. */
  get usable(): boolean {
    return this.#state !== 'unusable' && !this.#closed;
  }

  /**
   * Brings the tree up to date (building it on first use) and returns what changed, or undefined
   * when the tree cannot be used and the caller must walk instead. `onFirstFound` sees each file
   * as the first build lists it (a caller can start work on it before the build ends).
   */
  async update(
    signal?: AbortSignal,
    onFirstFound?: (file: WalkedFile) => void,
  ): Promise<TreeChanges | undefined> {
    const changes: TreeChanges = { touched: new Set(), removed: new Set() };
    if (!this.usable) return undefined;
    if (this.#state === 'unbuilt') {
      for (;;) {
        if (this.#building === undefined) {
          const started = {
            done: this.#build(signal, onFirstFound).finally(() => {
              if (this.#building === started) this.#building = undefined;
            }),
            signal,
          };
          this.#building = started;
        }
        const building = this.#building;
        try {
          await building.done;
          break;
        } catch (error) {
          // Cancelled by the call that started it: this call was not, so it builds again.
          if (signal?.aborted || building.signal?.aborted !== true) throw error;
        }
      }
      return this.usable ? changes : undefined;
    }
    // Two turns of the event loop: the first may run in the current loop iteration's check
    // phase, the second only after a full poll phase has delivered pending watch events.
    await yieldToEventLoop();
    await yieldToEventLoop();
    throwIfCancelled(signal);
    // Folder mtimes, taken before any change is applied: a change made while this update runs
    // leaves a newer mtime behind and is picked up by the next call.
    const folderTimes = new Map<string, number>();
    for (const node of this.#sweepSlice()) {
      const status = lstatOrUndefined(path.join(this.root, node.relative));
      if (status === undefined || status.ino !== node.inode) this.#mark(node.relative, '*');
      else {
        folderTimes.set(node.relative, status.mtimeMs);
        if (status.mtimeMs !== node.mtimeMs) this.#mark(node.relative, '*');
      }
    }
    // .git is neither watched nor walked: a changed exclude file re-reads the whole tree.
    const rootNode = this.#folders.get('');
    const excludeChanged = rootNode !== undefined && excludeFileText(this.root) !== this.#excludeText;
    if (this.#pending.size === 0 && !excludeChanged) return changes;
    const fileCountBefore = this.#fileCount;
    const pending = [...this.#pending];
    this.#pending.clear();
    if (excludeChanged) {
      this.#rebuildSubtree(rootNode, changes);
      if (!this.usable) return undefined;
      this.#touchReported(pending, changes);
    }
    for (const [folder, names] of excludeChanged ? [] : pending) {
      const node = this.#folders.get(folder);
      if (node === undefined) continue;
      // A name with U+FFFD may be one Node could not decode: the folder is read again as bytes.
      if (names.has('*') || names.has('.gitignore') || [...names].some((name) => name.includes('\uFFFD'))) {
        this.#rescanFolder(node, changes);
        this.#touchReported([[folder, names]], changes);
      } else {
        for (const name of names) this.#refreshEntry(node, name, changes);
        const time = folderTimes.get(folder);
        if (time !== undefined && this.#folders.get(folder) === node) node.mtimeMs = time;
      }
      if (!this.usable) return undefined;
    }
    if (changes.touched.size > 0 || changes.removed.size > 0 || this.#namesNotUtf8Changed) this.#version++;
    this.#namesNotUtf8Changed = false;
    if (this.#listing !== undefined)
      for (const relative of changes.touched) this.#touchedSinceListing.add(relative);
    // Nothing removed and as many files as before: every touched file was there already.
    if (changes.removed.size > 0 || this.#fileCount !== fileCountBefore) this.#membershipVersion++;
    return changes;
  }

  /**
   * Files of the tree (or of a folder in it) in walk order, at most `maxFiles`, or undefined
   * when that folder is not part of the tree (ignored, skipped or missing).
   */
  list(scope: string | undefined, maxFiles: number): WalkResult | undefined {
    const start = scopeFolder(scope);
    if (!this.#folders.has(start)) return undefined;
    const cached = this.#listing;
    if (start === '' && cached !== undefined && cached.files.length <= maxFiles) {
      if (cached.version === this.#version)
        return { files: cached.files, truncated: false, ...this.#namesNotUtf8Under('') };
      if (cached.membershipVersion === this.#membershipVersion) {
        // The same files, some changed: a copy with their new versions, no walk and no sort.
        const files = cached.files.slice();
        for (const relative of this.#touchedSinceListing) {
          const position = cached.positionOf.get(relative);
          const current = this.#fileAt(relative);
          if (position !== undefined && current !== undefined) files[position] = current;
        }
        this.#listing = { ...cached, version: this.#version, files };
        this.#touchedSinceListing.clear();
        return { files, truncated: false, ...this.#namesNotUtf8Under('') };
      }
    }
    const files: WalkedFile[] = [];
    let truncated = false;
    const visit = (relative: string): void => {
      const node = this.#folders.get(relative);
      if (node === undefined || truncated) return;
      for (const file of node.files.values()) {
        if (files.length >= maxFiles) {
          truncated = true;
          return;
        }
        files.push(file);
      }
      for (const name of [...node.folders].sort()) visit(childPath(relative, name));
    };
    visit(start);
    files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
    if (start === '' && !truncated) {
      this.#listing = {
        version: this.#version,
        membershipVersion: this.#membershipVersion,
        files,
        positionOf: new Map(files.map((file, index) => [file.relative, index])),
      };
      this.#touchedSinceListing.clear();
    }
    return { files, truncated, ...this.#namesNotUtf8Under(start) };
  }

  /** The names left out in a folder of the tree and below it, as a WalkResult field. */
  #namesNotUtf8Under(start: string): { namesNotUtf8?: string[] } {
    if (this.#namesNotUtf8Count === 0) return {};
    const prefix = start === '' ? '' : `${start}/`;
    const paths: string[] = [];
    for (const node of this.#folders.values())
      if (node.relative === start || node.relative.startsWith(prefix)) paths.push(...node.namesNotUtf8);
    return namesLeftOut(paths);
  }

  /** The listed version of a file of the tree, if it is in it. */
  #fileAt(relative: string): WalkedFile | undefined {
    const slash = relative.lastIndexOf('/');
    return this.#folders.get(slash < 0 ? '' : relative.slice(0, slash))?.files.get(relative.slice(slash + 1));
  }

  /** The next folders whose mtime to compare: all of a small tree, a rotating slice of a large one. */
  #sweepSlice(): FolderNode[] {
    const nodes = [...this.#folders.values()];
    if (nodes.length <= SWEEP_FOLDERS_PER_UPDATE) return nodes;
    const start = this.#sweepCursor % nodes.length;
    this.#sweepCursor = start + SWEEP_FOLDERS_PER_UPDATE;
    const slice = nodes.slice(start, start + SWEEP_FOLDERS_PER_UPDATE);
    if (slice.length < SWEEP_FOLDERS_PER_UPDATE)
      slice.push(...nodes.slice(0, SWEEP_FOLDERS_PER_UPDATE - slice.length));
    return slice;
  }

  /** Stops every watcher. */
  close(): void {
    this.#closed = true;
    this.#unwatchAll();
  }

  async #build(
    signal: AbortSignal | undefined,
    onFound: ((file: WalkedFile) => void) | undefined,
  ): Promise<void> {
    let sinceYield = 0;
    const pendingFolders: { relative: string; inherited: IgnoreLayer[] }[] = [
      { relative: '', inherited: this.#rootLayers() },
    ];
    while (pendingFolders.length > 0) {
      if (this.#closed) return;
      if (signal?.aborted) {
        // A cancelled first build leaves nothing half-built behind; the next call starts over.
        this.#unwatchAll();
        this.#state = 'unbuilt';
        throwIfCancelled(signal);
      }
      const next = pendingFolders.pop()!;
      const node = this.#addFolder(next.relative, next.inherited);
      if (!this.usable) return;
      if (node === undefined) continue;
      if (onFound !== undefined) for (const file of node.files.values()) onFound(file);
      sinceYield += node.files.size + 1;
      if (sinceYield >= 2_000) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
      for (const name of [...node.folders].reverse())
        pendingFolders.push({ relative: childPath(node.relative, name), inherited: node.layers });
    }
    if (this.usable) this.#state = 'watching';
  }

  /** Watches and scans one folder (watch first, so changes during the scan are not missed). */
  #addFolder(relative: string, inherited: IgnoreLayer[]): FolderNode | undefined {
    if (this.#folders.size >= this.#maxWatchedFolders) {
      this.#giveUp();
      return undefined;
    }
    let watcher: FSWatcher;
    try {
      watcher = watchFolder(path.join(this.root, relative), (name) =>
        this.#mark(relative, name !== null && name !== '' ? name : '*'),
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A folder that vanished meanwhile is simply not part of the tree.
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      this.#giveUp();
      return undefined;
    }
    watcher.on('error', () => this.#giveUp());
    const scan = scanFolder(this.root, relative, inherited);
    if (scan === undefined) {
      watcher.close();
      return undefined;
    }
    const node: FolderNode = {
      relative,
      inherited,
      layers: scan.layers,
      files: new Map(scan.files.map((file) => [path.posix.basename(file.relative), file])),
      folders: new Set(scan.folders.map((folder) => path.posix.basename(folder))),
      namesNotUtf8: scan.namesNotUtf8,
      mtimeMs: scan.mtimeMs,
      inode: scan.inode,
      watcher,
    };
    this.#folders.set(relative, node);
    this.#fileCount += node.files.size;
    if (node.namesNotUtf8.length > 0) {
      this.#namesNotUtf8Count += node.namesNotUtf8.length;
      this.#namesNotUtf8Changed = true;
    }
    if (this.#fileCount > this.#maxFiles) this.#giveUp();
    return node;
  }

  #mark(folder: string, name: string): void {
    let names = this.#pending.get(folder);
    if (names === undefined) {
      names = new Set();
      this.#pending.set(folder, names);
    }
    names.add(name);
  }

  /** Re-reads one folder's entries (its .gitignore may have changed: then its subtree too). */
  #rescanFolder(node: FolderNode, changes: TreeChanges): void {
    const ownBefore = node.layers.length > node.inherited.length ? node.layers.at(-1)!.text : undefined;
    const ownAfter = loadIgnoreLayer(this.root, node.relative)?.text;
    if (ownBefore !== ownAfter) {
      this.#rebuildSubtree(node, changes);
      return;
    }
    const scan = scanFolder(this.root, node.relative, node.inherited);
    if (scan === undefined) {
      this.#removeSubtree(node.relative, changes);
      return;
    }
    node.mtimeMs = scan.mtimeMs;
    node.inode = scan.inode;
    if (node.namesNotUtf8.join('\0') !== scan.namesNotUtf8.join('\0')) {
      this.#namesNotUtf8Count += scan.namesNotUtf8.length - node.namesNotUtf8.length;
      node.namesNotUtf8 = scan.namesNotUtf8;
      this.#namesNotUtf8Changed = true;
    }
    const seen = new Set<string>();
    for (const file of scan.files) {
      const name = path.posix.basename(file.relative);
      seen.add(name);
      this.#setFile(node, name, file, changes);
    }
    for (const name of [...node.files.keys()]) if (!seen.has(name)) this.#removeFile(node, name, changes);
    const folders = new Set(scan.folders.map((folder) => path.posix.basename(folder)));
    for (const name of [...node.folders]) {
      if (!folders.has(name)) this.#removeSubtree(childPath(node.relative, name), changes);
    }
    for (const name of folders) {
      const relative = childPath(node.relative, name);
      const existing = this.#folders.get(relative);
      const status = lstatOrUndefined(path.join(this.root, relative));
      if (existing !== undefined && status?.ino === existing.inode) continue;
      if (existing !== undefined) this.#removeSubtree(relative, changes);
      this.#addSubtree(node, name, changes);
    }
  }

  /** Applies one name a watcher reported in `node`. */
  /**
   * Marks as touched every file a watcher named that is still in the tree after a rescan or a
   * rebuild: the watcher saw a write, and a rewrite within the timestamps' granularity (or one that
   * set them back) leaves size and times as they were (see #refreshEntry).
   */
  #touchReported(reported: readonly [string, ReadonlySet<string>][], changes: TreeChanges): void {
    for (const [folder, names] of reported) {
      const node = this.#folders.get(folder);
      if (node === undefined) continue;
      for (const name of names) {
        const file = node.files.get(name);
        if (file !== undefined) changes.touched.add(file.relative);
      }
    }
  }

  #refreshEntry(node: FolderNode, name: string, changes: TreeChanges): void {
    const relative = childPath(node.relative, name);
    const absolute = path.join(this.root, relative);
    const status = lstatOrUndefined(absolute);
    if (status?.isFile() && !isIgnored(node.layers, relative, false)) {
      if (node.folders.has(name)) this.#removeSubtree(relative, changes);
      const file: WalkedFile = {
        relative,
        absolute,
        size: status.size,
        mtimeMs: status.mtimeMs,
        ctimeMs: status.ctimeMs,
      };
      this.#setFile(node, name, file, changes);
      // The watcher saw a write: the content may differ even when size and mtime do not.
      changes.touched.add(relative);
      return;
    }
    if (status?.isDirectory() && !ALWAYS_SKIPPED.has(name) && !isIgnored(node.layers, relative, true)) {
      if (node.files.has(name)) this.#removeFile(node, name, changes);
      const existing = this.#folders.get(relative);
      if (existing !== undefined && existing.inode === status.ino) return;
      if (existing !== undefined) this.#removeSubtree(relative, changes);
      this.#addSubtree(node, name, changes);
      return;
    }
    if (node.files.has(name)) this.#removeFile(node, name, changes);
    if (node.folders.has(name)) this.#removeSubtree(relative, changes);
  }

  #setFile(node: FolderNode, name: string, file: WalkedFile, changes: TreeChanges): void {
    const before = node.files.get(name);
    if (before === undefined) this.#fileCount++;
    node.files.set(name, file);
    if (before === undefined || !sameFileVersion(before, file)) changes.touched.add(file.relative);
    if (this.#fileCount > this.#maxFiles) this.#giveUp();
  }

  #removeFile(node: FolderNode, name: string, changes: TreeChanges): void {
    const file = node.files.get(name);
    if (file === undefined) return;
    node.files.delete(name);
    this.#fileCount--;
    changes.removed.add(file.relative);
    changes.touched.delete(file.relative);
  }

  /** Adds a new subfolder and everything below it. */
  #addSubtree(parent: FolderNode, name: string, changes: TreeChanges): void {
    const stack = [{ relative: childPath(parent.relative, name), inherited: parent.layers }];
    parent.folders.add(name);
    while (stack.length > 0 && this.usable) {
      const next = stack.pop()!;
      const node = this.#addFolder(next.relative, next.inherited);
      if (node === undefined) {
        if (next.relative === childPath(parent.relative, name)) parent.folders.delete(name);
        continue;
      }
      for (const file of node.files.values()) changes.touched.add(file.relative);
      for (const child of node.folders)
        stack.push({ relative: childPath(node.relative, child), inherited: node.layers });
    }
  }

  /** Removes a folder and everything below it from the tree. */
  #removeSubtree(relative: string, changes: TreeChanges): void {
    const parent = relative === '' ? undefined : this.#folders.get(parentOf(relative));
    parent?.folders.delete(path.posix.basename(relative));
    const stack = [relative];
    while (stack.length > 0) {
      const current = stack.pop()!;
      const node = this.#folders.get(current);
      if (node === undefined) continue;
      node.watcher?.close();
      this.#folders.delete(current);
      this.#pending.delete(current);
      if (node.namesNotUtf8.length > 0) {
        this.#namesNotUtf8Count -= node.namesNotUtf8.length;
        this.#namesNotUtf8Changed = true;
      }
      for (const file of node.files.values()) {
        changes.removed.add(file.relative);
        changes.touched.delete(file.relative);
      }
      this.#fileCount -= node.files.size;
      for (const child of node.folders) stack.push(childPath(current, child));
    }
  }

  /** Re-reads a folder and everything below it (after its ignore rules changed). */
  #rebuildSubtree(node: FolderNode, changes: TreeChanges): void {
    const before = this.#filesUnder(node.relative);
    const scratch: TreeChanges = { touched: new Set(), removed: new Set() };
    if (node.relative === '') {
      this.#unwatchAll();
      const stack = [{ relative: '', inherited: this.#rootLayers() }];
      while (stack.length > 0 && this.usable) {
        const next = stack.pop()!;
        const added = this.#addFolder(next.relative, next.inherited);
        if (added === undefined) continue;
        for (const child of added.folders)
          stack.push({ relative: childPath(added.relative, child), inherited: added.layers });
      }
    } else {
      const parent = this.#folders.get(parentOf(node.relative));
      this.#removeSubtree(node.relative, scratch);
      if (parent !== undefined) this.#addSubtree(parent, path.posix.basename(node.relative), scratch);
    }
    const now = this.#filesUnder(node.relative);
    for (const [relative, file] of now) {
      const old = before.get(relative);
      if (old === undefined || !sameFileVersion(old, file)) changes.touched.add(relative);
    }
    for (const relative of before.keys()) if (!now.has(relative)) changes.removed.add(relative);
  }

  #filesUnder(relative: string): Map<string, WalkedFile> {
    const found = new Map<string, WalkedFile>();
    const stack = [relative];
    while (stack.length > 0) {
      const current = this.#folders.get(stack.pop()!);
      if (current === undefined) continue;
      for (const file of current.files.values()) found.set(file.relative, file);
      for (const child of current.folders) stack.push(childPath(current.relative, child));
    }
    return found;
  }

  /** The layers the root inherits: `.git/info/exclude`, when there is one (its text remembered). */
  #rootLayers(): IgnoreLayer[] {
    this.#excludeText = excludeFileText(this.root);
    const exclude = excludeLayerOf(this.#excludeText);
    return exclude === undefined ? [] : [exclude];
  }

  #giveUp(): void {
    this.#state = 'unusable';
    this.#unwatchAll();
  }

  #unwatchAll(): void {
    for (const node of this.#folders.values()) node.watcher?.close();
    this.#folders.clear();
    this.#pending.clear();
    this.#fileCount = 0;
    this.#namesNotUtf8Count = 0;
    this.#listing = undefined;
  }
}
