/**
 * Benchmarks of the files family on the generated ~20,000-file tree, each beside its reference
 * command measured in the same run: search_files vs `rg`, list_files vs `rg --files`, read_file
 * of a 10 MB file vs `cat | sha256sum`, edit_file on a 1 MB file, and the TypeScript search
 * fallback's times. Prints a table and writes reports/bench/tools-files.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ToolResult, ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { median } from '../../../bench-support/index.js';
import { createFileTools } from '../src/index.js';
import { PathFacts } from '../src/listing/path-facts.js';
import { runRipgrepForNames, selectionArguments } from '../src/search/ripgrep-engine.js';
import { generateRepositoryTree } from './generate-repository-tree.js';
import { generateTree } from './generate-tree.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const treeDirectory = fileURLToPath(new URL('./generated/tree', import.meta.url));
/** Runs per row (median reported); `BENCH_RUNS=15 pnpm bench` for steadier numbers. */
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
/** `pnpm bench list` runs only the rows whose name contains 'list'. */
const ONLY = process.argv[2];
const PATTERN = 'handleRequest[0-9]+\\(input';

interface Row {
  name: string;
  valueMs: number;
  referenceName: string;
  referenceMs: number | null;
  targetRatio: number | null;
  note: string;
}

function runCommand(command: string, args: string[], cwd: string): void {
  const outcome = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 });
  if (outcome.status !== 0 && outcome.status !== 1) throw new Error(`${command} failed`);
}

/**
 * Times the tool and its reference command alternately (a run returning a number reports that
 * many milliseconds: the part of the run that is the call) (median of RUNS each, after a warm-up),
 * so a busy machine slows both alike and the ratio stays meaningful.
 */
async function timePair(
  run: () => Promise<unknown>,
  reference: [string, string[]] | undefined,
  cwd: string,
): Promise<{ valueMs: number; referenceMs: number | null }> {
  const values: number[] = [];
  const references: number[] = [];
  await run();
  if (reference !== undefined) runCommand(reference[0], reference[1], cwd);
  for (let index = 0; index < RUNS; index += 1) {
    let start = performance.now();
    const timed = await run();
    // A run that sets up and tears down around the call returns the call's own time.
    values.push(typeof timed === 'number' ? timed : performance.now() - start);
    if (reference !== undefined) {
      start = performance.now();
      runCommand(reference[0], reference[1], cwd);
      references.push(performance.now() - start);
    }
  }
  return { valueMs: median(values), referenceMs: reference === undefined ? null : median(references) };
}

function check(result: ToolResult): ToolResult {
  if (result.isError === true) throw new Error(JSON.stringify(result.content));
  return result;
}

const tree = await generateTree(treeDirectory);
const workspace = await Workspace.open(tree.root);
const options = { maxSearchResults: 100_000, maxListEntries: 100_000, maxOutputCharacters: 50_000_000 };
const ripgrepRuntime = new ToolRuntime({
  workspace,
  tools: createFileTools({ workspace, ...options }).tools,
});
const typescriptRuntime = new ToolRuntime({
  workspace,
  tools: createFileTools({ workspace, ...options, rgPath: null }).tools,
});
const rows: Row[] = [];
const searchArgs = { pattern: PATTERN, max_results: 100_000 };
// The reference: the same query on the command line, with the same file selection.
const rgArgs = ['-n', '--hidden', '--no-require-git', '--glob', '!.git', PATTERN];

// Identical matches: the tool's matches against ripgrep's own output.
let expected: string[] = [];
let identical = false;
if (ONLY === undefined || 'search_files'.includes(ONLY)) {
  const rgOutput = execFileSync('rg', ['--no-heading', '--with-filename', ...rgArgs], {
    cwd: tree.root,
    // ripgrep searches its standard input when that is a pipe; it must search the tree.
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 30,
  }).toString();
  expected = rgOutput
    .split('\n')
    .filter((line) => line.length > 0)
    .sort();
  const toLines = (result: ToolResult) =>
    ((result.structuredContent as { matches: { path: string; line: number; text: string }[] }).matches ?? [])
      .map((match) => `${match.path}:${match.line}:${match.text}`)
      .sort();
  const ripgrepMatches = toLines(check(await ripgrepRuntime.call('search_files', searchArgs)));
  const typescriptMatches = toLines(check(await typescriptRuntime.call('search_files', searchArgs)));
  identical =
    JSON.stringify(ripgrepMatches) === JSON.stringify(expected) &&
    JSON.stringify(typescriptMatches) === JSON.stringify(expected);
}

const rgFilesArgs = ['--files', '--hidden', '--no-require-git', '--glob', '!.git'];
const largeFile = path.join(tree.root, tree.largeFile);
const catSha: [string, string[]] = ['sh', ['-c', `cat '${largeFile}' | sha256sum`]];
const measure = async (
  name: string,
  run: () => Promise<unknown>,
  reference: [string, string[]] | undefined,
  targetRatio: number | null,
  note: string | (() => string),
  cwd = tree.root,
  referenceName?: string,
) => {
  if (ONLY !== undefined && !name.includes(ONLY)) return;
  const timing = await timePair(run, reference, cwd);
  rows.push({
    name,
    valueMs: timing.valueMs,
    referenceName:
      referenceName ??
      (reference === undefined ? '' : reference[0] === 'sh' ? 'cat | sha256sum' : `rg ${reference[1][0]}`),
    referenceMs: timing.referenceMs,
    targetRatio,
    note: typeof note === 'string' ? note : note(),
  });
};

await measure(
  'search_files (ripgrep)',
  async () => check(await ripgrepRuntime.call('search_files', searchArgs)),
  ['rg', rgArgs],
  1.5,
  `${expected.length} matches, identical: ${identical}`,
);
await measure(
  'search_files (TypeScript fallback)',
  async () => check(await typescriptRuntime.call('search_files', searchArgs)),
  ['rg', rgArgs],
  null,
  'price of the fallback (no target)',
);
const listResult = check(await ripgrepRuntime.call('list_files', {}));
const listStructured = listResult.structuredContent as { total_entries: number; engine: string };
// Both engines must give the same listing, byte for byte.
// Compared entry by entry: the text of a listing this long is cut, and the cut names the file
// that keeps the whole output, which differs between two calls.
const listIdentical =
  JSON.stringify((listResult.structuredContent as { entries: unknown[] }).entries) ===
    JSON.stringify(
      (check(await typescriptRuntime.call('list_files', {})).structuredContent as { entries: unknown[] })
        .entries,
    ) && listStructured.engine === 'ripgrep';
const defaultRuntime = new ToolRuntime({ workspace, tools: createFileTools({ workspace }).tools });
await measure(
  'list_files (whole tree, with sizes)',
  async () => check(await ripgrepRuntime.call('list_files', {})),
  ['rg', rgFilesArgs],
  2,
  `${listStructured.total_entries} entries, same as fallback: ${listIdentical}`,
);
await measure(
  'list_files (default cap: first 2000 entries)',
  async () => check(await defaultRuntime.call('list_files', {})),
  ['rg', rgFilesArgs],
  2,
  'all entries counted, 2000 with sizes',
);
await measure(
  'list_files (TypeScript fallback, whole tree)',
  async () => check(await typescriptRuntime.call('list_files', {})),
  ['rg', rgFilesArgs],
  null,
  'price of the fallback (no target)',
);
// Issue #19: the whole listing of a repository-shaped tree at 50,000 files (thousands of folders,
// nested .gitignore files, an ignored node_modules/) beside `rg --files` on the same tree.
const repository = await generateRepositoryTree(
  fileURLToPath(new URL('./generated/repository', import.meta.url)),
);
const repositoryWorkspace = await Workspace.open(repository.root);
const repositoryRuntime = new ToolRuntime({
  workspace: repositoryWorkspace,
  tools: createFileTools({ workspace: repositoryWorkspace, ...options }).tools,
});
let repositoryListed = 0;
// The first whole listing of a new family (a new session): ripgrep's walk when nothing is kept,
// the kept listing of the last session brought up to date otherwise.
const firstListing =
  (keep: boolean, familyOptions: Partial<typeof options> = options) =>
  async () => {
    // Not timed: the last family's close (it writes the listing it keeps) and the removal.
    if (!keep)
      await rm(path.join(repository.root, '.assistant-kit', 'list-files'), { recursive: true, force: true });
    const family = createFileTools({ workspace: repositoryWorkspace, ...familyOptions });
    try {
      const start = performance.now();
      check(
        await new ToolRuntime({ workspace: repositoryWorkspace, tools: family.tools }).call('list_files', {}),
      );
      return performance.now() - start;
    } finally {
      await family.close();
    }
  };
await measure(
  'list_files 50k repository, first listing, nothing kept',
  firstListing(false),
  ['rg', rgFilesArgs],
  2,
  'new family each run, no kept listing: ripgrep walks, stat workers start (the memory is recorded after the answer)',
  repository.root,
);
// What an agent's first `list_files {}` of a session costs: every entry counted, the first 2,000
// (the default cap) with their sizes, in walk order.
await measure(
  'list_files 50k repository, first listing at the default cap, nothing kept',
  firstListing(false, {}),
  ['rg', rgFilesArgs],
  2,
  'new family each run, default options: every entry counted, the first 2,000 sized',
  repository.root,
);
// What any sized listing built on ripgrep pays before listing work starts: ripgrep's names read
// here and one lstat per file in this thread (the cheapest way measured: a stat worker's messages
// cost more than they save). The row above cannot go below it; see docs/decisions/tools-files.md.
await measure(
  'list_files 50k repository, floor: rg names + one lstat each',
  async () => {
    const facts = new PathFacts(repository.root, undefined, Number.POSITIVE_INFINITY);
    await runRipgrepForNames(
      'rg',
      [...selectionArguments(undefined), '--files'],
      repository.root,
      undefined,
      (relative) => facts.file(relative),
    );
    await facts.settled();
  },
  ['rg', rgFilesArgs],
  null,
  'informational: ripgrep names + lstat per file in this thread, no listing work',
  repository.root,
);
await measure(
  'list_files 50k repository, first listing of a new session',
  firstListing(true),
  ['rg', rgFilesArgs],
  2,
  'new family each run: the listing the last one kept, checked folder by folder',
  repository.root,
);
// Later listings: the remembered listing, checked folder by folder (one lstat each) and sizes read.
await measure(
  'list_files 50k repository (whole tree, sizes)',
  async () => {
    const result = check(await repositoryRuntime.call('list_files', {}));
    repositoryListed = (result.structuredContent as { total_entries: number }).total_entries;
  },
  ['rg', rgFilesArgs],
  2,
  () =>
    `${repository.listedFiles} files listed (+ folders: ${repositoryListed} entries), ${repository.ignoredFiles} ignored files skipped`,
  repository.root,
);
await measure(
  'search_files names only (ripgrep)',
  async () => check(await ripgrepRuntime.call('search_files', { glob: '*.md', max_results: 100_000 })),
  ['rg', [...rgFilesArgs, '--glob', '*.md']],
  null,
  "glob '*.md'",
);
await measure(
  'read_file 10 MB (hash + first 2000 lines)',
  async () => check(await ripgrepRuntime.call('read_file', { path: tree.largeFile })),
  catSha,
  3,
  '',
);
await measure(
  'read_file 10 MB (lines 200000-200099)',
  async () =>
    check(
      await ripgrepRuntime.call('read_file', { path: tree.largeFile, offset_line: 200_000, max_lines: 100 }),
    ),
  catSha,
  3,
  '',
);
check(await ripgrepRuntime.call('read_file', { path: tree.mediumFile, max_lines: 1 }));
let toggle = false;
await measure(
  'edit_file 1 MB (atomic, fsync)',
  async () => {
    const [from, to] = toggle
      ? ['// EDIT MARKER: done', '// EDIT MARKER: replace me']
      : ['// EDIT MARKER: replace me', '// EDIT MARKER: done'];
    toggle = !toggle;
    check(await ripgrepRuntime.call('edit_file', { path: tree.mediumFile, old_text: from, new_text: to }));
  },
  undefined,
  null,
  'reported, no target',
);
if (toggle) {
  check(
    await ripgrepRuntime.call('edit_file', {
      path: tree.mediumFile,
      old_text: '// EDIT MARKER: done',
      new_text: '// EDIT MARKER: replace me',
    }),
  );
}

// replace_in_files over 500 files in 50 folders (a rename across a project), beside `rg -l | xargs
// sed -i` on a copy of the same files, then `sync -f` so that its bytes are on disk too. Each run
// renames there and back (both sides), so every run starts from the same tree. Ours checks each
// file's version, writes all-or-nothing and flushes each file and folder; the reference flushes the
// whole file system once, which a library cannot do for its own files only. Reported, no target.
const renameTrees = path.join(path.dirname(treeDirectory), 'rename');
await rm(renameTrees, { recursive: true, force: true });
for (const side of ['ours', 'reference']) {
  for (let folder = 0; folder < 50; folder += 1) {
    const directory = path.join(renameTrees, side, `src/area${folder}`);
    await mkdir(directory, { recursive: true });
    for (let file = 0; file < 10; file += 1) {
      await writeFile(
        path.join(directory, `module${file}.ts`),
        `import { oldName } from '../lib';\nexport const value${file} = oldName(${file});\n${'const filler = 1;\n'.repeat(30)}`,
      );
    }
  }
}
const renameWorkspace = await Workspace.open(path.join(renameTrees, 'ours'));
const renameRuntime = new ToolRuntime({
  workspace: renameWorkspace,
  tools: createFileTools({ workspace: renameWorkspace }).tools,
});
const sedBothWays =
  'rg -l oldName | xargs sed -i s/oldName/newName/g && sync -f . && rg -l newName | xargs sed -i s/newName/oldName/g && sync -f .';
await measure(
  'replace_in_files, 500 files in 50 folders, there and back',
  async () => {
    for (const [find, replace] of [
      ['oldName', 'newName'],
      ['newName', 'oldName'],
    ]) {
      const result = check(
        await renameRuntime.call('replace_in_files', { find, replace, dry_run: false, max_files: 500 }),
      );
      if (!(result.content[0] as { text: string }).text.startsWith('Changed 500 files'))
        throw new Error('replace_in_files did not change the 500 files');
    }
  },
  ['sh', ['-c', sedBothWays]],
  null,
  'reported, no target: ours checks versions, writes all-or-nothing and flushes each file and folder; the reference flushes the file system once',
  path.join(renameTrees, 'reference'),
  'rg -l | xargs sed -i; sync -f',
);

console.log(`load average ${loadavg()[0].toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
const table = rows.map((row) => {
  const ratio = row.referenceMs === null ? null : row.valueMs / row.referenceMs;
  const met = row.targetRatio === null || ratio === null ? null : ratio <= row.targetRatio;
  return { ...row, ratio, met };
});
const pad = (text: string, width: number) => text.padEnd(width);
console.log(
  `${pad('benchmark', 44)}${pad('value', 11)}${pad('reference', 30)}${pad('ratio', 8)}${pad('target', 9)}${pad('met?', 6)}note`,
);
for (const row of table) {
  console.log(
    `${pad(row.name, 44)}${pad(`${row.valueMs.toFixed(1)} ms`, 11)}${pad(row.referenceMs === null ? '-' : `${row.referenceName} ${row.referenceMs.toFixed(1)} ms`, 30)}${pad(row.ratio === null ? '-' : `${row.ratio.toFixed(2)}×`, 8)}${pad(row.targetRatio === null ? '-' : `≤ ${row.targetRatio}×`, 9)}${pad(row.met === null ? '-' : row.met ? 'yes' : 'NO', 6)}${row.note}`,
  );
}
// A partial run (`pnpm bench list`) prints its rows but leaves the full report alone.
if (ONLY === undefined) {
  const reportDirectory = path.join(repositoryRoot, 'reports', 'bench');
  await mkdir(reportDirectory, { recursive: true });
  await writeFile(
    path.join(reportDirectory, 'tools-files.json'),
    `${JSON.stringify({ package: '@assistant-kit/tools-files', runs: RUNS, statistic: 'median', files: tree.fileCount, loadAverage: loadavg()[0], results: table }, null, 2)}\n`,
  );
}
