// Every ```ts block of every README.md in the repository (root, packages/*, examples/*) is
// type-checked against the workspace sources with the TypeScript compiler API, and run unless
// marked otherwise, so no snippet can rot unnoticed. Conventions, written right before a block:
//
//   <!-- snippet: typecheck-only -->            compile, do not run (talks to a network, a
//                                               database, a real provider, ...)
//   <!-- snippet: declare const x: Type; -->    declarations prepended for free variables the
//                                               block uses (implies typecheck-only: they have
//                                               no values at run time); repeatable
//   <!-- snippet: workspace /srv/project -->    the block runs against a small scratch project
//                                               (README.md, package.json, src/index.ts) that
//                                               stands in for the path the README names
//
// A block runs as an ES module with top-level await, with `node --conditions=@assistant-kit/source --import
// tsx`, in a fresh temporary working directory. A failure names the README and the block's line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// `--import tsx` resolves from the working directory, which is a fresh temporary one: use tsx's URL.
const TSX = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', "process.stdout.write(import.meta.resolve('tsx'))"],
  { cwd: ROOT, encoding: 'utf8' },
).stdout;

interface Snippet {
  readme: string; // relative to the root
  line: number; // line of the opening fence
  ordinal: number; // 1-based position among the README's ts blocks
  code: string;
  declarations: string[];
  typecheckOnly: boolean;
  /** A path the README uses for a project, replaced by a scratch project when the block runs. */
  workspacePath: string | undefined;
  file: string; // absolute path of the generated module
}

/**
 * Blocks that fail today in READMEs this test's owner does not maintain, by "<readme>#<n>" (the
 * n-th ts block, which moves less than a line number while others edit the file). Each is
 * expected to fail (it.fails): when one is fixed the test says so, and the entry goes.
 */
const KNOWN_BROKEN = new Map<string, string>([]);

function readmes(): string[] {
  const found = ['README.md'];
  for (const folder of ['packages', 'examples']) {
    for (const name of readdirSync(join(ROOT, folder))) {
      try {
        readFileSync(join(ROOT, folder, name, 'README.md'));
        found.push(`${folder}/${name}/README.md`);
      } catch {
        // no README
      }
    }
  }
  return found;
}

/** The ```ts blocks of a README with the snippet comments that directly precede each. */
export function extractSnippets(readme: string, text: string): Omit<Snippet, 'file'>[] {
  const lines = text.split('\n');
  const snippets: Omit<Snippet, 'file'>[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (!/^```(ts|typescript)\s*$/.test(lines[index]!.trim())) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && lines[index]!.trim() !== '```'; index += 1)
      body.push(lines[index]!);
    const declarations: string[] = [];
    let typecheckOnly = false;
    let workspacePath: string | undefined;
    for (let back = start - 1; back >= 0; back -= 1) {
      const line = lines[back]!.trim();
      if (line === '') continue;
      const match = /^<!--\s*snippet:\s*([\s\S]*?)\s*-->$/.exec(line);
      if (!match) break;
      const directive = match[1]!;
      if (directive === 'typecheck-only') typecheckOnly = true;
      else if (directive.startsWith('workspace '))
        workspacePath = directive.slice('workspace '.length).trim();
      else if (directive.startsWith('declare ')) {
        declarations.unshift(directive);
        typecheckOnly = true;
      } else throw new Error(`${readme}:${back + 1}: unknown snippet directive "${directive}"`);
    }
    snippets.push({
      readme,
      line: start + 1,
      ordinal: snippets.length + 1,
      code: body.join('\n'),
      declarations,
      typecheckOnly,
      workspacePath,
    });
  }
  return snippets;
}

const snippets: Snippet[] = readmes().flatMap((readme) =>
  extractSnippets(readme, readFileSync(join(ROOT, readme), 'utf8')).map((snippet) => ({
    ...snippet,
    // Beside its README, so imports resolve as that package's (its own name, its dependencies).
    file: join(ROOT, dirname(readme), `.readme-snippet-${snippet.ordinal}.ts`),
  })),
);
const keyOf = (snippet: Snippet) => `${snippet.readme}#${snippet.ordinal}`;

function moduleText(snippet: Snippet, scratchProject?: string): string {
  const code =
    snippet.workspacePath === undefined || scratchProject === undefined
      ? snippet.code
      : snippet.code.split(snippet.workspacePath).join(scratchProject);
  return `${snippet.declarations.join('\n')}\n${code}\nexport {};\n`;
}

/** A small project for blocks that name one (`<!-- snippet: workspace PATH -->`). */
function makeScratchProject(parent: string): string {
  const project = join(parent, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'README.md'), '# scratch\n\nA project the README snippets run against.\n');
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'scratch', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  );
  writeFileSync(
    join(project, 'src', 'index.ts'),
    "export function greet(name: string): string {\n  return 'hello ' + name;\n}\n",
  );
  return project;
}

let diagnostics: Map<string, string[]> | undefined;

/** Type-checks all snippets in one program; messages per snippet file. */
function typecheck(): Map<string, string[]> {
  if (diagnostics) return diagnostics;
  for (const snippet of snippets) writeFileSync(snippet.file, moduleText(snippet));
  const base = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), ts.sys.readFile).config;
  const { options } = ts.convertCompilerOptionsFromJson(base.compilerOptions, ROOT);
  const program = ts.createProgram(
    snippets.map((snippet) => snippet.file),
    {
      ...options,
      noEmit: true,
      declaration: false,
      sourceMap: false,
      baseUrl: ROOT,
      paths: { '@assistant-kit/*': ['packages/*/src/index.ts'] },
    },
  );
  diagnostics = new Map(snippets.map((snippet) => [snippet.file, []]));
  // Only the snippet files' diagnostics: the checker then looks at no more of the workspace
  // sources than the snippets use (checking the whole program took minutes).
  const found = snippets.flatMap((snippet) => {
    const source = program.getSourceFile(snippet.file)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  });
  for (const diagnostic of [...program.getOptionsDiagnostics(), ...found]) {
    const file = diagnostic.file?.fileName;
    if (!file || !diagnostics.has(file)) continue;
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const declared = snippets.find((snippet) => snippet.file === file)!.declarations.length;
    const where = line < declared ? 'declare comment' : `block line ${line - declared}`;
    diagnostics.get(file)!.push(`${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  }
  return diagnostics;
}

// One program for all blocks: most of the cost is checking the workspace sources they import.
beforeAll(() => {
  typecheck();
}, 600_000);

afterAll(() => {
  for (const snippet of snippets) rmSync(snippet.file, { force: true });
});

describe('README snippets', () => {
  it('finds the blocks of every README', () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(new Set(snippets.map((snippet) => snippet.readme)).size).toBeGreaterThan(8);
  });

  for (const snippet of snippets) {
    const name = `${keyOf(snippet)} (line ${snippet.line})${snippet.typecheckOnly ? ' typecheck-only' : ''}`;
    const known = KNOWN_BROKEN.get(keyOf(snippet));
    const test = known ? it.fails : it;
    test(name, () => {
      const problems = typecheck().get(snippet.file)!;
      expect(problems, `${snippet.readme} block at line ${snippet.line} does not compile`).toEqual([]);
      if (snippet.typecheckOnly) return;
      const cwd = mkdtempSync(join(tmpdir(), 'ak-snippet-'));
      const scratchProject = snippet.workspacePath === undefined ? undefined : makeScratchProject(cwd);
      writeFileSync(snippet.file, moduleText(snippet, scratchProject));
      // tsx honours tsconfig paths: @assistant-kit/* resolves to the workspace sources even from
      // a README whose folder does not depend on that package (the root README).
      const tsconfig = join(cwd, 'tsconfig.json');
      writeFileSync(
        tsconfig,
        JSON.stringify({
          compilerOptions: { baseUrl: ROOT, paths: { '@assistant-kit/*': ['packages/*/src/index.ts'] } },
        }),
      );
      try {
        const run = spawnSync(
          process.execPath,
          ['--conditions=@assistant-kit/source', '--import', TSX, snippet.file],
          {
            cwd,
            encoding: 'utf8',
            timeout: 60_000,
            env: { ...process.env, NODE_NO_WARNINGS: '1', TSX_TSCONFIG_PATH: tsconfig },
          },
        );
        const output = `${run.stdout}\n${run.stderr}`.trim();
        expect(
          run.status,
          `${snippet.readme} block at line ${snippet.line} failed when run (mark it <!-- snippet: typecheck-only --> if it cannot run here):\n${output}`,
        ).toBe(0);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  }
});
