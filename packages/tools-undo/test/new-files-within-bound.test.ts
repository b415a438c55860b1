import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { cp, lstat, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  isToolError,
  onProcessFootprint,
  RACY_MARGIN_MS,
  ToolRuntime,
  Workspace,
} from '@assistant-kit/tool-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GitRunner } from '../src/git-runner.js';
import { createUndoTools, type UndoToolFamily } from '../src/index.js';
import { ShadowRepository } from '../src/shadow-repository.js';
import {
  makeTemporaryDirectory,
  removeDirectory,
  shellTool,
  userGit,
  write,
  writeThroughWorkspace,
} from './helpers.js';

// A process dispatch's settle and end look for new files only in the folders the git guard's
// scans found changed (NewFileBound), and the settle leaves hiddenNow out while every rule file is
// recorded. Nothing may differ from the listing of the whole tree: the same random commands (and a
// person's changes between them) run in two copies of one workspace, one through the tool runtime
// (guard scans, bound) and one as a host's own process (no scans, so whole listings and
// hiddenNow), and every dispatch must record the same change list, and undo must bring both back
// to the same bytes, or refuse alike.

const MAX_FILE_BYTES = 2_000;
const ROUNDS = Number(process.env.UNDO_BOUND_ROUNDS ?? 14);

/** A small deterministic random source (mulberry32), so a failing seed can be run again. */
function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return Math.floor((((value ^ (value >>> 14)) >>> 0) / 4294967296) * below);
  };
}

async function filesAndFolders(root: string): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [''];
  const visit = async (relative: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === '.assistant-kit') continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        folders.push(child);
        await visit(child);
      } else files.push(child);
    }
  };
  await visit('');
  return { files: files.sort(), folders: folders.sort() };
}

/** Every file and link of the workspace (links by their target), to compare states byte for byte. */
async function workspaceState(root: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const file of (await filesAndFolders(root)).files) {
    const full = path.join(root, file);
    state[file] = (await lstat(full)).isSymbolicLink()
      ? `link ${await readlink(full)}`
      : createHash('sha256')
          .update(await readFile(full))
          .digest('hex');
  }
  return state;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const under = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);

/** One command of a few random file operations on the tree as it stands. */
function randomScript(
  random: (below: number) => number,
  allFiles: string[],
  allFolders: string[],
  round: number | string,
) {
  const pick = <Item>(items: Item[]) => items[random(items.length)]!;
  // media/ changes only through kind 9 below.
  const files = allFiles.filter((file) => !file.startsWith('media/'));
  const folders = allFolders.filter((folder) => folder !== 'media');
  const lines: string[] = [];
  for (let step = 0; step < 1 + random(4); step++) {
    const name = `n${round}-${step}`;
    const kind = random(15);
    const file = files.length > 0 ? pick(files) : undefined;
    const folder = pick(folders);
    if (kind === 0) lines.push(`printf 'new\\n' > ${quote(under(folder, `${name}.txt`))}`);
    else if (kind === 1 && file) lines.push(`printf 'more\\n' >> ${quote(file)}`);
    else if (kind === 2 && file) lines.push(`rm -f ${quote(file)}`);
    else if (kind === 3 && file) lines.push(`mv ${quote(file)} ${quote(under(folder, `${name}.moved`))}`);
    else if (kind === 4)
      lines.push(
        `mkdir -p ${quote(under(folder, `${name}/deep/er`))}`,
        `printf 'x\\n' > ${quote(under(folder, `${name}/deep/er/f.txt`))}`,
        `printf 'y\\n' > ${quote(under(folder, `${name}/top.txt`))}`,
      );
    else if (kind === 5) lines.push(`printf 'log\\n' > ${quote(under(folder, `${name}.log`))}`);
    else if (kind === 6) lines.push(`mkdir -p build && printf 'out\\n' > build/${name}.js`);
    else if (kind === 7 && folder !== '' && folder !== 'lib') lines.push(`rm -rf ${quote(folder)}`);
    else if (kind === 8 && folder !== '')
      lines.push(`mv ${quote(folder)} ${quote(`${folder.split('/').pop()}-${name}`)} 2>/dev/null || true`);
    // A file too large to record shrinks in place: at the root, beside a file made and removed
    // (which stamps the folder), or in media/, where nothing else changes (no folder stamped at
    // all), and grows there again.
    else if (kind === 9)
      lines.push(
        [
          `[ -f big.bin ] && head -c 100 big.bin > big.tmp && cat big.tmp > big.bin && rm big.tmp`,
          `truncate -s 100 media/big.bin`,
          `head -c ${MAX_FILE_BYTES + 500} /dev/zero | tr '\\0' b > media/big.bin`,
        ][random(3)]!,
      );
    else if (kind === 10) lines.push(`ln -sf lib ${quote(under(folder, `${name}.link`))}`);
    else if (kind === 11 && file) lines.push(`touch ${quote(file)}`);
    else if (kind === 12) lines.push(`mkdir -p vendor/.cache && printf 'c\\n' > vendor/.cache/${name}`);
    // Rarely, rules change: the end must list the whole tree then.
    else if (kind === 13 && random(3) === 0) lines.push(`printf '*.tmp\\n${name}*\\n' >> lib/.gitignore`);
    // A folder replaced by a link (the end must not read through it).
    else if (kind === 14 && folder !== '' && folder !== 'lib')
      lines.push(`rm -rf ${quote(folder)} && ln -s ../lib ${quote(folder)}`);
    else lines.push(`printf 'plain\\n' > ${quote(under(folder, `${name}.md`))}`);
  }
  // A step may find its path gone (an earlier step moved its folder): the command goes on.
  return [...lines, 'true'].join('\n');
}

async function makeProject(root: string): Promise<void> {
  userGit(root, ['init', '-q']);
  await write(root, '.gitignore', '*.log\nbuild/\nvendor/.cache/\n');
  await write(root, 'README.md', '# project\n');
  await write(root, 'lib/.gitignore', 'generated/\n');
  await write(root, 'lib/a.ts', 'export const a = 1;\n');
  await write(root, 'lib/util/b.ts', 'export const b = 2;\n');
  await write(root, 'lib/generated/g.ts', 'hidden\n');
  await write(root, 'docs/guide/intro.md', 'intro\n');
  await write(root, 'node_modules/pkg/index.js', 'module\n');
  await write(root, 'vendor/keep.txt', 'keep\n');
  // Over the size limit: not recorded until it shrinks (in place, which stamps no folder).
  await write(root, 'big.bin', 'b'.repeat(MAX_FILE_BYTES + 500));
  await write(root, 'media/big.bin', 'b'.repeat(MAX_FILE_BYTES + 500));
  // Tracked although the rules match them: recorded all the same (see #trackedDespiteRules).
  await write(root, 'build/kept.js', 'kept\n');
  await write(root, 'lib/generated/kept.ts', 'kept\n');
  userGit(root, ['add', '-A']);
  userGit(root, ['add', '--force', 'build/kept.js', 'lib/generated/kept.ts']);
  userGit(root, ['commit', '-q', '-m', 'project']);
}

describe('a process dispatch that looks for new files only where the git guard saw folders change', () => {
  const directories: string[] = [];
  const families: UndoToolFamily[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const family of families.splice(0)) await family.close();
    for (const directory of directories.splice(0)) await removeDirectory(directory);
  });

  async function open(root: string) {
    const workspace = await Workspace.open(root);
    const family = createUndoTools({ workspace, maxFileBytes: MAX_FILE_BYTES });
    families.push(family);
    return { workspace, family };
  }

  /** A new copy of the test project, removed after the test. */
  async function newProject(prefix: string): Promise<string> {
    const root = await makeTemporaryDirectory(prefix);
    directories.push(root);
    await makeProject(root);
    return root;
  }

  /** A workspace session whose dispatches each run one script as a process call. */
  async function openWithShell(root: string) {
    const { workspace, family } = await open(root);
    const guarded = new ToolRuntime({ workspace, tools: [shellTool] });
    const unguarded = new ToolRuntime({ workspace, tools: [shellTool], gitGuard: false });
    const dispatch = async (script: string, options: { gitGuard?: boolean } = {}) => {
      await family.checkpoints.beginDispatch('d', { observedWrites: true });
      await family.checkpoints.noteUnobservedChanges();
      const result = await (options.gitGuard === false ? unguarded : guarded).call('shell', { script });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return family.checkpoints.endDispatch();
    };
    return { workspace, family, dispatch, runtime: guarded };
  }

  it('records what a listing of the whole tree records, dispatch after dispatch, and undoes to the same bytes', async () => {
    const seed = Number(process.env.UNDO_BOUND_SEED ?? 19);
    const random = randomSource(seed);
    const bounded = await makeTemporaryDirectory('undo-bound-');
    const whole = await makeTemporaryDirectory('undo-whole-');
    directories.push(bounded, whole);
    await makeProject(bounded);
    await cp(bounded, whole, { recursive: true });
    // The git guard re-reads a folder whose stamp is too fresh to vouch for its last reading
    // (within two seconds): let the project's folders age, as a real project's have.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    // How many folders each bounded end was told to look in (the rest it did not list).
    const boundFolders: number[] = [];
    // Each side's shadow repository, to compare what each end recorded, not only what it listed.
    const shadows = new Map<string, ShadowRepository>();
    const snapshot = ShadowRepository.prototype.snapshot;
    vi.spyOn(ShadowRepository.prototype, 'snapshot').mockImplementation(async function (
      this: ShadowRepository,
      ...args: Parameters<typeof snapshot>
    ) {
      const bound = args[2]?.atDispatchEnd === true ? args[2].newFilesWithin : undefined;
      if (bound !== undefined && this.options.workTree === bounded) boundFolders.push(bound.folders.size);
      shadows.set(this.options.workTree, this);
      return snapshot.apply(this, args);
    });
    const viaRuntime = await open(bounded);
    const asHost = await open(whole);
    const runtime = new ToolRuntime({ workspace: viaRuntime.workspace, tools: [shellTool] });
    const withinBound: boolean[] = [];
    const settles: { listedWithinBound: boolean; hiddenNow: boolean }[] = [];
    const folderCounts: number[] = [];
    // The dispatches that changed recorded files (undo counts no other), with the state before.
    const undoable: { before: Record<string, string>; changed: string[] }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Between dispatches a person changes files too, in both copies alike: a settle must count
      // those changes as made before the dispatch, wherever they are.
      if (random(2) === 0) {
        const tree = await filesAndFolders(bounded);
        const edits = randomScript(random, tree.files, tree.folders, `u${round}`);
        for (const root of [bounded, whole]) execFileSync('sh', ['-c', edits], { cwd: root });
      }
      const { files, folders } = await filesAndFolders(bounded);
      const script = randomScript(random, files, folders, round);
      const written = random(3) === 0 ? `lib/w${round}.ts` : undefined;
      const before = await workspaceState(bounded);
      const ends: Awaited<ReturnType<UndoToolFamily['checkpoints']['endDispatch']>>[] = [];
      for (const side of [viaRuntime, asHost]) {
        await side.family.checkpoints.beginDispatch(`round ${round}`, { observedWrites: true });
        await side.family.checkpoints.noteUnobservedChanges();
        if (side === viaRuntime) {
          const result = await runtime.call('shell', { script });
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        } else execFileSync('sh', ['-c', script], { cwd: whole });
        // A tool's write after the command, through the Workspace (a path the bound is told of),
        // unless the command left a file or a link at lib/ (a write below it is refused: seed 303).
        const lib = await lstat(path.join(side.workspace.root, 'lib')).catch(() => undefined);
        if (written !== undefined && (lib === undefined || lib.isDirectory()))
          await writeThroughWorkspace(side.workspace, written, `w${round}\n`);
        ends.push(await side.family.checkpoints.endDispatch());
      }
      withinBound.push(viaRuntime.family.checkpoints.lastEndListedWithinBound);
      settles.push(viaRuntime.family.checkpoints.lastSettle);
      // The host's settles list the whole tree beside hiddenNow: no scan followed its last call.
      expect(asHost.family.checkpoints.lastSettle).toEqual({ listedWithinBound: false, hiddenNow: true });
      folderCounts.push((await filesAndFolders(bounded)).folders.length);
      // A host's own process is followed by no guard scan: its end lists the whole tree.
      expect(asHost.family.checkpoints.lastEndListedWithinBound).toBe(false);
      expect(ends[0]!.changedFiles, `seed ${seed}, round ${round}:\n${script}`).toEqual(
        ends[1]!.changedFiles,
      );
      expect(await workspaceState(bounded)).toEqual(await workspaceState(whole));
      // Both ends recorded the same tree: a file the bound left unrecorded (one too large at the
      // last listing that shrank in place, say) shows in no change list until it changes again.
      const recorded = await Promise.all(
        [bounded, whole].map((root, side) => shadows.get(root)!.treeOf(ends[side]!.commit!)),
      );
      expect(recorded[0], `seed ${seed}, round ${round}: the trees recorded`).toBe(recorded[1]);
      const changed = ends[0]!.changedFiles.flatMap((file) =>
        file.previousPath === undefined ? [file.path] : [file.path, file.previousPath],
      );
      if (changed.length > 0) undoable.push({ before, changed });
    }
    // The bound held for most ends and settles (it gives way only to changed rules), and most
    // settles left hiddenNow out: the test compared them.
    expect(withinBound.filter(Boolean).length).toBeGreaterThanOrEqual(Math.ceil(ROUNDS / 2));
    expect(settles[0]).toEqual({ listedWithinBound: false, hiddenNow: true });
    expect(settles.filter((settle) => settle.listedWithinBound).length).toBeGreaterThanOrEqual(
      Math.ceil(ROUNDS / 2),
    );
    expect(settles.filter((settle) => !settle.hiddenNow).length).toBeGreaterThanOrEqual(
      Math.ceil(ROUNDS / 2),
    );
    // Ends after the first (whose scan before the call read every folder) were told of fewer
    // folders than the tree has (a folder stays in a bound while its stamp is fresh, which in
    // this quick test is most of them; see the next test for one command's bound).
    expect(boundFolders).toHaveLength(ROUNDS);
    expect(boundFolders.some((count, round) => round > 0 && count < folderCounts[round]!)).toBe(true);
    // Undo, one dispatch at a time, on both sides: both sides end alike, and every path the
    // dispatch changed holds what it held before it (files it never recorded, such as ignored
    // ones, stay as they are).
    for (const { before, changed } of undoable.slice(-4).reverse()) {
      // A person's change since to a file the dispatch changed makes both refuse alike.
      const refusals = [];
      for (const side of [viaRuntime, asHost])
        refusals.push(
          await side.family.checkpoints.undoDispatches(1).then(
            () => undefined,
            (error: unknown) => (isToolError(error) ? error.code : String(error)),
          ),
        );
      expect(refusals[0]).toEqual(refusals[1]);
      if (refusals[0] !== undefined) {
        expect(refusals[0]).toBe('UNDO_CONFLICT');
        break;
      }
      const now = await workspaceState(bounded);
      expect(now).toEqual(await workspaceState(whole));
      for (const file of changed) expect(now[file], file).toEqual(before[file]);
    }
  }, 120_000);

  it('looks only in the folders a command changed, and lists the whole tree when it cannot say', async () => {
    const root = await newProject('undo-bound-one-');
    const session = await openWithShell(root);
    const family = session.family;
    const bounds: string[][] = [];
    const snapshot = ShadowRepository.prototype.snapshot;
    vi.spyOn(ShadowRepository.prototype, 'snapshot').mockImplementation(async function (
      this: ShadowRepository,
      ...args: Parameters<typeof snapshot>
    ) {
      const bound = args[2]?.atDispatchEnd === true ? args[2].newFilesWithin : undefined;
      if (bound !== undefined) bounds.push([...bound.folders].sort());
      return snapshot.apply(this, args);
    });
    const dispatch = async (script: string, gitGuard = true) => {
      const ended = await session.dispatch(script, { gitGuard });
      return {
        changed: ended.changedFiles.map((file) => `${file.status} ${file.path}`),
        withinBound: family.checkpoints.lastEndListedWithinBound,
      };
    };
    // A first call: the guard's first scan of the session reads every folder.
    expect(await dispatch(`printf 'a\n' > lib/new.ts`)).toEqual({
      changed: ['added lib/new.ts'],
      withinBound: true,
    });
    // Once the folders' stamps are old enough to vouch for the guard's readings, a command that
    // creates one file and rewrites another in place leaves a bound of that one folder; the
    // file rewritten elsewhere is found all the same (git stats every recorded file).
    // (The readings the guard took while the stamps were fresh are read once more, by this
    // command's scans that change nothing.)
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    expect(await dispatch('true')).toEqual({ changed: [], withinBound: true });
    bounds.length = 0;
    expect(await dispatch(`printf 'b\n' > docs/guide/new.md && printf 'x\n' >> lib/util/b.ts`)).toEqual({
      changed: ['added docs/guide/new.md', 'modified lib/util/b.ts'],
      withinBound: true,
    });
    expect(bounds).toEqual([['docs/guide']]);
    // Without the guard nothing tells where the command wrote: the whole tree is listed.
    expect(await dispatch(`printf 'c\n' > vendor/new.txt`, false)).toEqual({
      changed: ['added vendor/new.txt'],
      withinBound: false,
    });
    // A rule file rewritten in place shows files in folders no process touched: the whole tree
    // is listed. (lib/generated/g.ts, shown now, stood there before: it goes to the base.)
    expect(await dispatch(`printf '# none\n' > lib/.gitignore`)).toEqual({
      changed: ['modified lib/.gitignore'],
      withinBound: false,
    });
    // A rule file touched, or rewritten with the bytes it had, changes no rule: its status data
    // alone moved, and the bound holds (it is recorded again, so later ends are not held back).
    expect(await dispatch(`touch lib/.gitignore && cp .gitignore x && cat x > .gitignore && rm x`)).toEqual({
      changed: [],
      withinBound: true,
    });
    // A package install writes where checkpoints record nothing: the bound leaves those folders
    // out, once git says they are still ignored...
    expect(
      await dispatch(`mkdir -p node_modules/dep/lib && printf 'd\n' > node_modules/dep/lib/d.js`),
    ).toEqual({
      changed: [],
      withinBound: true,
    });
    // ...and lists the whole tree when a rule brought them back.
    expect(await dispatch(`printf '!node_modules/\n' >> .gitignore`)).toEqual({
      changed: ['modified .gitignore'],
      withinBound: false,
    });
    expect(await dispatch(`printf 'e\n' > node_modules/dep/lib/e.js`)).toEqual({
      changed: ['added node_modules/dep/lib/e.js'],
      withinBound: false,
    });
    // A new rule file that hides itself is listed nowhere: its fresh time alone gives it away.
    expect(await dispatch(`mkdir notes && printf '*\n' > notes/.gitignore`)).toEqual({
      changed: [],
      withinBound: false,
    });
    // A new repository of its own: its files are listed through its own rules, by a whole listing.
    expect(
      await dispatch(
        `mkdir sub && git init -q sub && printf 's\n' > sub/s.txt && printf '*.txt\n' > sub/.gitignore`,
      ),
    ).toEqual({ changed: ['added sub/.gitignore'], withinBound: false });
    // A host that announces changes of its own and runs no tool: no scan follows, no bound.
    await family.checkpoints.beginDispatch('host', { observedWrites: true });
    await family.checkpoints.noteUnobservedChanges();
    execFileSync('sh', ['-c', `printf 'd\n' > docs/host.md`], { cwd: root });
    const host = await family.checkpoints.endDispatch();
    expect(host.changedFiles.map((file) => file.path)).toEqual(['docs/host.md']);
    expect(family.checkpoints.lastEndListedWithinBound).toBe(false);
  }, 60_000);

  it('lists a new file in a folder whose name is not UTF-8 within the bound (the guard walks it as bytes)', async () => {
    const root = await newProject('undo-bound-raw-');
    const rawFolder = Buffer.concat([Buffer.from(`${root}/docs/raw`), Buffer.from([0xff])]);
    mkdirSync(rawFolder);
    const { family, dispatch } = await openWithShell(root);
    await dispatch('true');
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await dispatch('true');
    // Only the raw folder changes (docs does not): nothing but the guard's word can send the end
    // there. Before, the guard could not walk it, and the end listed the whole tree.
    const ended = await dispatch(`printf 'r\\n' > "docs/$(printf 'raw\\377')/r.txt"`);
    expect(family.checkpoints.lastEndListedWithinBound).toBe(true);
    expect(ended.changedFiles).toHaveLength(1);
    expect(ended.changedFiles[0]!.path).toMatch(/^docs\/raw.*\/r\.txt$/);
  }, 60_000);

  it('looks again at a file too large to record that shrinks in place, wherever it is', async () => {
    const root = await newProject('undo-bound-shrink-');
    // Over the size limit, in folders no command here touches.
    await write(root, 'docs/guide/big.bin', 'b'.repeat(MAX_FILE_BYTES + 500));
    await write(root, 'docs/other/big.bin', 'b'.repeat(MAX_FILE_BYTES + 500));
    // The guard's folder memory vouches only for folders read well after their last change.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    const { family, dispatch } = await openWithShell(root);
    await dispatch('true');
    await dispatch('true');
    // A person shrinks one in place between dispatches (same inode: no folder is stamped).
    execFileSync('sh', ['-c', 'printf small > docs/guide/big.bin'], { cwd: root });
    const rewritten = await dispatch('printf changed > docs/guide/big.bin');
    expect(family.checkpoints.lastSettle.listedWithinBound).toBe(true);
    expect(family.checkpoints.lastEndListedWithinBound).toBe(true);
    expect(rewritten.changedFiles).toEqual([{ path: 'docs/guide/big.bin', status: 'modified' }]);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'docs/guide/big.bin'), 'utf8')).toBe('small');
    // A command shrinks the other in place: it stood there before, so the dispatch did not make
    // it; but from then on it is recorded, and the next command's rewrite can be undone.
    const shrunk = await dispatch('printf small > docs/other/big.bin');
    expect(shrunk.changedFiles).toEqual([]);
    const rewrittenAgain = await dispatch('printf changed > docs/other/big.bin');
    expect(rewrittenAgain.changedFiles).toEqual([{ path: 'docs/other/big.bin', status: 'modified' }]);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'docs/other/big.bin'), 'utf8')).toBe('small');
  }, 60_000);

  it('keeps hiddenNow while a rule file hides itself, so a file it hid is not taken for new', async () => {
    const root = await newProject('undo-bound-self-hiding-');
    // A rule file the checkpoints never record (it hides itself), hiding a file beside it.
    await write(root, 'secret/.gitignore', '*\n');
    await write(root, 'secret/keep.env', 'TOKEN=1\n');
    const { family, dispatch } = await openWithShell(root);
    await dispatch('true');
    // The command rewrites the rule so that it hides only itself, and adds a file beside it.
    const ended = await dispatch(
      `printf '.gitignore\\n' > secret/.gitignore && printf 'o\\n' > secret/other.txt`,
    );
    expect(family.checkpoints.lastSettle.hiddenNow).toBe(true);
    // secret/keep.env stood there before, hidden: it is not the dispatch's, and undo leaves it.
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual([
      'added secret/other.txt',
    ]);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'secret/keep.env'), 'utf8')).toBe('TOKEN=1\n');
    await expect(lstat(path.join(root, 'secret/other.txt'))).rejects.toThrow();
    // Once no rule file hides itself, a settle leaves hiddenNow out.
    await dispatch('rm -rf secret');
    await dispatch('true');
    expect(family.checkpoints.lastSettle).toEqual({ listedWithinBound: true, hiddenNow: false });
  }, 60_000);

  it('asks the base rules about thousands of new files at once, after a rule that hid one is removed', async () => {
    const root = await newProject('undo-bound-many-');
    await write(root, 'logs/old.log', 'old\n');
    const { family, dispatch } = await openWithShell(root);
    await dispatch('true');
    // 1,200 new folders, each with a file, and the rule that hid logs/old.log removed.
    const ended = await dispatch(
      `for i in $(seq 1 1200); do mkdir -p gen/d$i && echo $i > gen/d$i/f.txt; done && printf 'build/\\nvendor/.cache/\\n' > .gitignore`,
    );
    expect(family.checkpoints.lastSettle.hiddenNow).toBe(false);
    const changed = ended.changedFiles.map((file) => `${file.status} ${file.path}`);
    expect(changed).toHaveLength(1201);
    expect(changed).toContain('modified .gitignore');
    // logs/old.log stood there, hidden by the base's rules: not the dispatch's; undo leaves it.
    expect(changed).not.toContain('added logs/old.log');
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'logs/old.log'), 'utf8')).toBe('old\n');
    await expect(lstat(path.join(root, 'gen/d7/f.txt'))).rejects.toThrow();
  }, 120_000);

  it('lists the whole tree after a rule file that hides itself is rewritten in place, anywhere', async () => {
    const root = await newProject('undo-bound-in-place-');
    // A rule file no checkpoint records hides a file in another folder.
    await write(root, 'conf/.gitignore', '.gitignore\nlocal/\n');
    await write(root, 'conf/local/keep.env', 'TOKEN=1\n');
    const { family, dispatch } = await openWithShell(root);
    await dispatch('true');
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await dispatch('true');
    // Rewritten in place: no folder is stamped, and conf/local/keep.env shows now.
    await dispatch(`printf '.gitignore\\n' > conf/.gitignore`);
    expect(family.checkpoints.lastEndListedWithinBound).toBe(false);
    // So the file is recorded as it stood: a command that replaces it is undone by putting it
    // back, not by deleting a file that was there before the command.
    const ended = await dispatch(`printf 'TOKEN=2\\n' > tmp.env && mv tmp.env conf/local/keep.env`);
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual([
      'modified conf/local/keep.env',
    ]);
    await family.checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'conf/local/keep.env'), 'utf8')).toBe('TOKEN=1\n');
  }, 60_000);

  it('does not look again, at the next settle, in the folders the last end listed', async () => {
    const root = await newProject('undo-bound-settle-');
    const { family, dispatch, runtime: shell } = await openWithShell(root);
    await dispatch('true');
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await dispatch('true');
    await dispatch(`printf 'b\n' > docs/guide/new.md`);
    const listed: string[][] = [];
    const runForPaths = GitRunner.prototype.runForPaths;
    vi.spyOn(GitRunner.prototype, 'runForPaths').mockImplementation(function (
      this: GitRunner,
      ...args: Parameters<typeof runForPaths>
    ) {
      if (args[0].includes('--others')) listed.push([...args[1]]);
      return runForPaths.apply(this, args);
    });
    const settle = async () => {
      listed.length = 0;
      await family.checkpoints.beginDispatch('d', { observedWrites: true });
      await family.checkpoints.noteUnobservedChanges();
      expect(family.checkpoints.lastSettle).toEqual({ listedWithinBound: true, hiddenNow: false });
      return [...listed];
    };
    // Nothing changed since that end listed docs/guide: the settle looks for no new file anywhere
    // (before, it listed docs/guide again, and every folder the last dispatch's calls changed).
    // Only the files left out as too large are looked at again, as by every listing.
    expect((await settle()).flat().sort()).toEqual(['big.bin', 'media/big.bin']);
    await shell.call('shell', { script: 'true' });
    await family.checkpoints.endDispatch();
    // A file a person makes between dispatches, in that folder or another, is still the base's:
    // the settle's own guard scan reads the folders changed since the call's.
    await writeFile(path.join(root, 'docs/guide/person.md'), 'p\n');
    await writeFile(path.join(root, 'lib/person.ts'), 'p\n');
    expect((await settle()).flat().sort()).toEqual(
      expect.arrayContaining(['docs/guide/person.md', 'lib/person.ts']),
    );
    await shell.call('shell', { script: 'true' });
    const ended = await family.checkpoints.endDispatch();
    expect(ended.changedFiles).toEqual([]);
  }, 60_000);

  it('answers which rule files are recorded from the table in memory, in a later session', async () => {
    const root = await newProject('undo-bound-table-');
    const first = await open(root);
    await first.family.checkpoints.ready();
    await first.family.close();
    const { family, dispatch } = await openWithShell(root);
    // The table of what the index records is read in the background when a later session opens.
    await family.checkpoints.ready();
    await dispatch('true');
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    const asked: string[][] = [];
    const runForPaths = GitRunner.prototype.runForPaths;
    vi.spyOn(GitRunner.prototype, 'runForPaths').mockImplementation(function (
      this: GitRunner,
      ...args: Parameters<typeof runForPaths>
    ) {
      asked.push([...args[0], '--', ...args[1]]);
      return runForPaths.apply(this, args);
    });
    await dispatch(`printf 'x\n' > lib/new.ts`);
    expect(family.checkpoints.lastSettle).toEqual({ listedWithinBound: true, hiddenNow: false });
    expect(family.checkpoints.lastEndListedWithinBound).toBe(true);
    // Before, each settle and end asked git about every rule file (a process reading the whole
    // index and matching it against each path): twice for the settle, once for the end.
    const ruleFileLookups = asked.filter(
      (args) =>
        args[0] === 'ls-files' &&
        (args.includes('--cached') || args.includes('--stage')) &&
        args.some((arg) => arg.endsWith('.gitignore')),
    );
    expect(ruleFileLookups).toEqual([]);
    // The listing itself still runs (the files of the bound's folders).
    expect(asked.some((args) => args.includes('--others') && args.includes('lib/new.ts'))).toBe(true);
  }, 60_000);

  it("does not ask the base tree's rules about new files while the rules stand as the settle found them", async () => {
    const root = await newProject('undo-bound-base-rules-');
    const { family, dispatch } = await openWithShell(root);
    await family.checkpoints.ready();
    await dispatch('true');
    await dispatch('true');
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    const ran: (readonly string[])[] = [];
    const runWithExitCode = GitRunner.prototype.runWithExitCode;
    vi.spyOn(GitRunner.prototype, 'runWithExitCode').mockImplementation(function (
      this: GitRunner,
      ...args: Parameters<typeof runWithExitCode>
    ) {
      ran.push(args[0]);
      return runWithExitCode.apply(this, args);
    });
    // What `ignoredUnderTree` runs: the base tree's rule files laid out in a scratch work tree,
    // then git's rules asked without an index.
    const askedTheBaseRules = () =>
      ran.some((args) => args[0] === 'check-ignore' && args.includes('--no-index'));
    const ended = await dispatch(`printf 'x\\n' > lib/new.ts && printf 'y\\n' > new-top.txt`);
    expect(family.checkpoints.lastSettle).toEqual({ listedWithinBound: true, hiddenNow: false });
    expect(family.checkpoints.lastEndListedWithinBound).toBe(true);
    expect(askedTheBaseRules()).toBe(false);
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added lib/new.ts',
      'added new-top.txt',
    ]);
    // A rule file the command changes: the end asks the base tree's rules again.
    ran.length = 0;
    const changed = await dispatch(`printf 'x.log\\n' >> .gitignore && printf 'z\\n' > lib/other.ts`);
    expect(askedTheBaseRules()).toBe(true);
    expect(changed.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added lib/other.ts',
      'modified .gitignore',
    ]);
    await family.checkpoints.undoDispatches(2);
    await expect(lstat(path.join(root, 'lib/new.ts'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(path.join(root, 'new-top.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);

  /** Counts the whole-workspace `diff-files` runs (the stat of every recorded file) from now on. */
  function countStatsOfRecordedFiles(): { started: number } {
    const stats = { started: 0 };
    const runWithExitCode = GitRunner.prototype.runWithExitCode;
    vi.spyOn(GitRunner.prototype, 'runWithExitCode').mockImplementation(function (
      this: GitRunner,
      ...args: Parameters<typeof runWithExitCode>
    ) {
      if (args[0][0] === 'diff-files' && !args[0].includes('--')) stats.started += 1;
      return runWithExitCode.apply(this, args);
    });
    return stats;
  }

  it("stats the recorded files as the call returns, beside the guard's scan after it, and the end takes that", async () => {
    const root = await newProject('undo-bound-at-return-');
    const { workspace, family, runtime } = await openWithShell(root);
    const { checkpoints } = family;
    const run = async (script: string) => {
      const result = await runtime.call('shell', { script });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    };
    for (const script of ['true', 'true']) {
      await checkpoints.beginDispatch('warm', { observedWrites: true });
      await checkpoints.noteUnobservedChanges();
      await run(script);
      await checkpoints.endDispatch();
    }
    const stats = countStatsOfRecordedFiles();
    const atTheScanAfter: number[] = [];
    const stop = onProcessFootprint(workspace, (footprint) => {
      if (footprint.bounded && footprint.scan === 'after') atTheScanAfter.push(stats.started);
    });
    await checkpoints.beginDispatch('d', { observedWrites: true });
    await checkpoints.noteUnobservedChanges();
    stats.started = 0;
    await run(`printf 'export const a = 3;\\n' > lib/a.ts && printf 'x\\n' > lib/new.ts`);
    const ended = await checkpoints.endDispatch();
    stop();
    // Started as the handler returned, before the scan after the call ended; the end ran none.
    expect(atTheScanAfter).toEqual([1]);
    expect(stats.started).toBe(1);
    expect(checkpoints.lastEndListedWithinBound).toBe(true);
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added lib/new.ts',
      'modified lib/a.ts',
    ]);
  }, 60_000);

  it('leaves that stat to the end in a dispatch that ends after the answer, so the answer does not wait for it', async () => {
    const root = await newProject('undo-bound-answer-first-');
    const { family, runtime } = await openWithShell(root);
    const { checkpoints } = family;
    for (let round = 0; round < 2; round++) {
      await checkpoints.beginDispatch('warm', { observedWrites: true, endsAfterTheAnswer: true });
      await checkpoints.noteUnobservedChanges();
      await runtime.call('shell', { script: 'true' });
      await checkpoints.endDispatch();
    }
    const stats = countStatsOfRecordedFiles();
    await checkpoints.beginDispatch('d', { observedWrites: true, endsAfterTheAnswer: true });
    await checkpoints.noteUnobservedChanges();
    stats.started = 0;
    const result = await runtime.call('shell', {
      script: `printf 'export const a = 3;\n' > lib/a.ts && printf 'x\n' > lib/new.ts`,
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    // Nothing was started while the call ran (before, the stat ran beside the scan after it).
    expect(stats.started).toBe(0);
    const ended = await checkpoints.endDispatch();
    expect(stats.started).toBe(1);
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      'added lib/new.ts',
      'modified lib/a.ts',
    ]);
  }, 60_000);

  it('does not take that stat when the dispatch wrote through the Workspace after the call', async () => {
    // The stat started as the call returned cannot see a later write: a file the Workspace then
    // rewrote in place (its folder not stamped) would be missing from the end, and no undo could
    // bring back what it held.
    const root = await newProject('undo-bound-written-after-');
    const { workspace, family, dispatch, runtime } = await openWithShell(root);
    await dispatch('true');
    await dispatch('true');
    const { checkpoints } = family;
    await checkpoints.beginDispatch('d', { observedWrites: true });
    await checkpoints.noteUnobservedChanges();
    expect((await runtime.call('shell', { script: 'true' })).isError).toBeFalsy();
    await writeThroughWorkspace(workspace, 'lib/util/b.ts', 'export const b = 7;\n');
    const ended = await checkpoints.endDispatch();
    expect(ended.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual([
      'modified lib/util/b.ts',
    ]);
    await checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'lib/util/b.ts'), 'utf8')).toBe('export const b = 2;\n');
  }, 60_000);

  it('does not take that stat when an undo used the index after the call', async () => {
    const root = await newProject('undo-bound-undo-after-');
    const { family, dispatch, runtime } = await openWithShell(root);
    await dispatch('true');
    await dispatch(`printf 'export const a = 5;\\n' > lib/a.ts`);
    const { checkpoints } = family;
    const stats = countStatsOfRecordedFiles();
    await checkpoints.beginDispatch('d', { observedWrites: true });
    await checkpoints.noteUnobservedChanges();
    stats.started = 0;
    expect((await runtime.call('shell', { script: 'true' })).isError).toBeFalsy();
    // The open dispatch changed nothing yet, so an undo of the one before may run inside it.
    await checkpoints.undoDispatches(1);
    expect(await readFile(path.join(root, 'lib/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    const ended = await checkpoints.endDispatch();
    expect(ended.changedFiles).toEqual([]);
    // One stat as the call returned, and the end's own after the undo.
    expect(stats.started).toBe(2);
  }, 60_000);
});
