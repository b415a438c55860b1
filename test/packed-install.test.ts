import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 17, "done when": every package packed as it would be published, installed with npm from
// the tarballs into a consumer outside the workspace, and used from ESM, CommonJS and TypeScript
// (nodenext and bundler, without skipLibCheck); the MCP bin runs from the installed tarball.
// Budget: it builds and installs everything (about three minutes), so it runs on one Node line
// only, 22 (the LTS line between the oldest and the newest that `.ci/run` covers).

const run = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));
const onThisLine = Number(process.versions.node.split('.')[0]) === 22;
const TIMEOUT = 900_000;

let consumer: string;
let names: string[] = [];
/** Each package's tarball, by package name. */
const tarballOf = new Map<string, string>();
/** Each package's manifest, by package name. */
const manifestOf = new Map<string, { peerDependencies?: Record<string, string> }>();

async function sh(command: string, args: string[], cwd: string) {
  return run(command, args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    timeout: TIMEOUT,
    env: { ...process.env, CI: '1' },
  });
}

/** Makes `folder` an npm project and installs `specs` (tarball paths or registry names) into it. */
async function npmInstallInto(folder: string, specs: string[]): Promise<void> {
  await writeFile(
    path.join(folder, 'package.json'),
    JSON.stringify({ name: path.basename(folder).toLowerCase(), private: true }),
  );
  await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], folder);
}

/**
 * Type-checks `source` as `index.ts` in `folder` (strict, without skipLibCheck, with the given
 * module resolution) and returns what tsc printed: empty when it found nothing.
 */
async function typeCheck(
  folder: string,
  source: string,
  resolution: 'nodenext' | 'bundler',
): Promise<string> {
  await writeFile(path.join(folder, 'index.ts'), source);
  await writeFile(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'ES2022',
        module: resolution === 'nodenext' ? 'NodeNext' : 'ESNext',
        moduleResolution: resolution === 'nodenext' ? 'NodeNext' : 'Bundler',
        types: ['node'],
        typeRoots: [path.join(root, 'node_modules/@types')],
      },
      files: ['index.ts'],
    }),
  );
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const result = await sh(process.execPath, [tsc, '-p', folder], folder).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
  );
  return result.stdout.trim();
}

beforeAll(async () => {
  if (!onThisLine) return;
  consumer = await mkdtemp(path.join(tmpdir(), 'packed-consumer-'));
  const tarballs = path.join(consumer, 'tarballs');
  await mkdir(tarballs);
  await sh('pnpm', ['-r', '--filter', './packages/*', 'run', 'build'], root);
  await sh(
    'pnpm',
    ['-r', '--filter', './packages/*', 'exec', 'pnpm', 'pack', '--pack-destination', tarballs],
    root,
  );
  const files = (await readdir(tarballs)).filter((file) => file.endsWith('.tgz'));
  names = [];
  for (const directory of await readdir(path.join(root, 'packages'))) {
    const manifest = JSON.parse(
      await readFile(path.join(root, 'packages', directory, 'package.json'), 'utf8'),
    );
    names.push(manifest.name);
    manifestOf.set(manifest.name, manifest);
    const tarball = `${manifest.name.slice(1).replace('/', '-')}-${manifest.version}.tgz`;
    expect(files, manifest.name).toContain(tarball);
    tarballOf.set(manifest.name, path.join(tarballs, tarball));
  }
  names.sort();
  await npmInstallInto(consumer, [
    ...files.map((file) => path.join(tarballs, file)),
    // The AI SDK's own declarations (@ai-sdk/provider) import 'json-schema' types without
    // depending on them: any consumer of `ai` that checks library types needs this, ours or not.
    '@types/json-schema',
  ]);
}, TIMEOUT);

afterAll(async () => {
  if (consumer !== undefined) await rm(consumer, { recursive: true, force: true });
});

describe.runIf(onThisLine)('the packed packages, installed with npm outside the workspace', () => {
  it('hold dist only: no source files and no source export condition', async () => {
    for (const name of names) {
      const manifest = JSON.parse(
        await readFile(path.join(consumer, 'node_modules', name, 'package.json'), 'utf8'),
      );
      expect(JSON.stringify(manifest.exports), name).not.toContain('@assistant-kit/source');
      expect(manifest.files, name).not.toContain('src');
      const entries = await readdir(path.join(consumer, 'node_modules', name));
      expect(entries, name).not.toContain('src');
      for (const [dependency, range] of Object.entries({ ...manifest.dependencies }))
        expect(String(range), `${name} → ${dependency}`).not.toMatch(/^workspace:/);
    }
  });

  // The start of every process that uses the packages rests on this (docs/decisions/packaging.md):
  // TypeBox's several hundred modules loaded one by one were about 40 % of the MCP bin's start.
  it("load TypeBox from the kernel's bundle, which imports no TypeBox module", async () => {
    const dist = path.join(consumer, 'node_modules', '@assistant-kit', 'kernel', 'dist');
    const files = (await readdir(dist)).filter((file) => file.endsWith('.js'));
    for (const file of files) {
      const text = await readFile(path.join(dist, file), 'utf8');
      // Real imports start a line (and may span several); TypeBox's own code generator holds such
      // text inside strings, never at a line's start.
      expect(text, file).not.toMatch(/^(import|export)\b[^;]*?\bfrom\s*["']typebox(\/[a-z]+)?["']/m);
      expect(text, file).not.toMatch(/\b(import|require)\(\s*["']typebox/);
    }
    const script = [
      "import { Type } from '@assistant-kit/kernel/typebox';",
      "import { Compile } from '@assistant-kit/kernel/typebox-compile';",
      'const schema = Type.Object({ path: Type.String() });',
      "console.log(Compile(schema).Check({ path: 'a' }), Compile(schema).Check({ path: 1 }));",
    ].join('\n');
    await writeFile(path.join(consumer, 'typebox-bundle.mjs'), `${script}\n`);
    expect((await sh(process.execPath, ['typebox-bundle.mjs'], consumer)).stdout.trim()).toBe('true false');
  });

  it(
    'publish as a dry run (pnpm publish -r --dry-run), each with its CHANGELOG',
    async () => {
      const { stdout, stderr } = await sh('pnpm', ['run', 'publish:dry-run'], root);
      for (const name of names) expect(`${stdout}${stderr}`, name).toContain(`+ ${name}@`);
      for (const name of names) {
        const entries = await readdir(path.join(consumer, 'node_modules', name));
        expect(entries, name).toContain('CHANGELOG.md');
      }
    },
    TIMEOUT,
  );

  it('import from ES modules', async () => {
    const script = names.map((name) => `await import('${name}');`).join('\n');
    await writeFile(path.join(consumer, 'esm.mjs'), `${script}\nconsole.log('ok');\n`);
    expect((await sh(process.execPath, ['esm.mjs'], consumer)).stdout.trim()).toBe('ok');
  });

  it('require from CommonJS (require of an ES module, Node 20.19 and 22.12 onwards)', async () => {
    const script = names.map((name) => `require('${name}');`).join('\n');
    await writeFile(path.join(consumer, 'cjs.cjs'), `${script}\nconsole.log('ok');\n`);
    const { stdout } = await sh(process.execPath, ['--no-warnings', 'cjs.cjs'], consumer);
    expect(stdout.trim()).toBe('ok');
  });

  it.each(['nodenext', 'bundler'] as const)(
    'type-check from TypeScript with moduleResolution %s, without skipLibCheck',
    async (resolution) => {
      const source = names
        .map((name, index) => `import * as package${index} from '${name}';\nvoid package${index};`)
        .join('\n');
      const folder = path.join(consumer, `ts-${resolution}`);
      await mkdir(folder, { recursive: true });
      expect(await typeCheck(folder, `${source}\nexport {};\n`, resolution)).toBe('');
    },
    TIMEOUT,
  );

  it('mount the settings plugin in a fresh Fastify app: a save and a load over HTTP', async () => {
    const script = `
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { createSecretBroker, FileSecretRecordStore, generateKey, VaultKeyring, VaultSecretBackend } from '@assistant-kit/secret-broker';
import { createDefaultClientSettings } from '@assistant-kit/settings-schema';
import { FileAccountSettingsStore } from '@assistant-kit/settings-store';
import { CLIENT_DEFAULTS_PATH, SettingsService, settingsHttpPlugin } from '@assistant-kit/settings-http';

const directory = await mkdtemp(join(tmpdir(), 'packed-settings-'));
const keyring = new VaultKeyring({ keys: [{ kid: 'k1', key: generateKey() }] });
const broker = createSecretBroker({
  backend: new VaultSecretBackend({ keyring, records: new FileSecretRecordStore(join(directory, 'secrets')) }),
  referenceKey: generateKey(),
});
const store = new FileAccountSettingsStore({ directory: join(directory, 'accounts'), keyring });
const app = Fastify();
await app.register(settingsHttpPlugin, { service: new SettingsService({ store, broker }), authenticate: () => 'alice' });
const saved = await app.inject({ method: 'POST', url: CLIENT_DEFAULTS_PATH, payload: { ...createDefaultClientSettings(), model: 'packed', apiKey: 'sk-packed' } });
const loaded = await app.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
const unauthenticated = Fastify();
await unauthenticated.register(settingsHttpPlugin, { service: new SettingsService({ store, broker }), authenticate: () => null });
const refused = await unauthenticated.inject({ method: 'GET', url: CLIENT_DEFAULTS_PATH });
await Promise.all([app.close(), unauthenticated.close()]);
await rm(directory, { recursive: true, force: true });
console.log(JSON.stringify({ saved: saved.statusCode, loaded: loaded.statusCode, model: loaded.json().model, key: loaded.json().apiKey, refused: refused.statusCode }));
`;
    await writeFile(path.join(consumer, 'fastify.mjs'), script);
    const outcome = JSON.parse((await sh(process.execPath, ['fastify.mjs'], consumer)).stdout);
    expect(outcome).toMatchObject({ saved: 200, loaded: 200, model: 'packed', refused: 401 });
    // The page gets a reference, never the key.
    expect(outcome.key).toMatch(/^akref1\./);
  });

  it('run the MCP bin from the installed tarball, which lists its tools', async () => {
    const workspace = await mkdtemp(path.join(tmpdir(), 'packed-workspace-'));
    // The protocol by hand (newline-delimited JSON-RPC): the repository root has no MCP SDK.
    const child = spawn(
      path.join(consumer, 'node_modules/.bin/assistant-kit-mcp'),
      ['--configuration', 'R', '--workspace', workspace, '--log-level', 'off'],
      { cwd: consumer, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const answers = new Map<number, (message: Record<string, unknown>) => void>();
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, newline)) as { id?: number };
        buffer = buffer.slice(newline + 1);
        if (message.id !== undefined) answers.get(message.id)?.(message);
      }
    });
    const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
      new Promise<Record<string, unknown>>((resolve) => {
        answers.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    try {
      const initialized = await request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'packed-test', version: '0.0.0' },
      });
      expect(initialized).toHaveProperty('result.serverInfo.name');
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const listed = (await request(2, 'tools/list')) as { result: { tools: unknown[] } };
      expect(listed.result.tools).toHaveLength(28);
      const called = (await request(3, 'tools/call', { name: 'list_files', arguments: {} })) as {
        result: { isError?: boolean };
      };
      expect(called.result.isError).toBeFalsy();
    } finally {
      // The server may still be writing its own state into the workspace: removed once it is gone.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) {
        child.kill();
        await exited;
      }
      await rm(workspace, { recursive: true, force: true });
    }
  }, 60_000);
});

// The catalogue's three install shapes (issue 17): the browser and code families' heavy
// dependencies are optional peers, so a host that wants files and commands does not install
// TypeScript, three language servers, six grammars and playwright-core.
const CATALOG_PACKAGES = [
  '@assistant-kit/kernel',
  '@assistant-kit/tool-core',
  '@assistant-kit/tools-files',
  '@assistant-kit/tools-commands',
  '@assistant-kit/tools-undo',
  '@assistant-kit/tools-browser',
  '@assistant-kit/tools-code',
  '@assistant-kit/tool-catalog',
];

function peersOf(name: string): string[] {
  return Object.entries(manifestOf.get(name)?.peerDependencies ?? {}).map(
    ([peer, range]) => `${peer}@${range}`,
  );
}

/** Installs the catalogue's tarballs and `extra` into a new consumer; returns it and its size. */
async function installShape(extra: string[]): Promise<{ folder: string; megabytes: number }> {
  const folder = await mkdtemp(path.join(tmpdir(), 'packed-shape-'));
  await npmInstallInto(folder, [...CATALOG_PACKAGES.map((name) => tarballOf.get(name)!), ...extra]);
  const { stdout } = await sh('du', ['-sb', 'node_modules'], folder);
  return { folder, megabytes: Math.round(Number.parseInt(stdout, 10) / 1e5) / 10 };
}

describe.runIf(onThisLine)('the catalogue installed in three shapes', () => {
  const shapes: Record<string, { folder: string; megabytes: number }> = {};

  beforeAll(async () => {
    shapes.filesAndCommands = await installShape([]);
    shapes.allButCode = await installShape(peersOf('@assistant-kit/tools-browser'));
    shapes.everything = await installShape([
      ...peersOf('@assistant-kit/tools-browser'),
      ...peersOf('@assistant-kit/tools-code'),
    ]);
    console.log(
      `install size of node_modules: files+commands ${shapes.filesAndCommands!.megabytes} MB, everything but code ${shapes.allButCode!.megabytes} MB, everything ${shapes.everything!.megabytes} MB`,
    );
  }, TIMEOUT);

  afterAll(async () => {
    await Promise.all(
      Object.values(shapes).map(({ folder }) => rm(folder, { recursive: true, force: true })),
    );
  });

  it('files and commands alone install none of the heavy packages, and each shape adds only its own', async () => {
    const installed = async (folder: string) => new Set(await readdir(path.join(folder, 'node_modules')));
    const heavy = ['typescript', 'pyright', 'playwright-core', 'web-tree-sitter', 'tree-sitter-typescript'];
    const light = await installed(shapes.filesAndCommands!.folder);
    for (const name of heavy) expect(light.has(name), name).toBe(false);
    const allButCode = await installed(shapes.allButCode!.folder);
    expect(allButCode.has('playwright-core')).toBe(true);
    expect(allButCode.has('typescript')).toBe(false);
    const everything = await installed(shapes.everything!.folder);
    for (const name of heavy) expect(everything.has(name), name).toBe(true);
    expect(shapes.filesAndCommands!.megabytes).toBeLessThan(shapes.allButCode!.megabytes);
    expect(shapes.allButCode!.megabytes).toBeLessThan(shapes.everything!.megabytes);
  });

  it('without the peers, the catalogue lists its tools, runs file tools and names the missing packages', async () => {
    const script = `
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolCatalog } from '@assistant-kit/tool-catalog';

const workspace = await mkdtemp(join(tmpdir(), 'shape-workspace-'));
await writeFile(join(workspace, 'a.ts'), 'export const a = 1;\\n');
const text = (result) => result.content.map((part) => part.text ?? '').join('');
const full = await createToolCatalog({ configuration: 'W', workspace });
const read = await full.call('read_file', { path: 'a.ts' });
const browser = await full.call('browser_open', { target: 'a.ts' });
const outline = await full.call('file_outline', { path: 'a.ts' });
await full.close();
const lean = await createToolCatalog({ configuration: 'W', workspace, omitFamilies: ['browser', 'code'] });
const leanTools = lean.tools.length;
await lean.close();
await rm(workspace, { recursive: true, force: true });
console.log(JSON.stringify({ tools: full.tools.length, leanTools, read: !read.isError, browser: text(browser), outline: text(outline) }));
`;
    const folder = shapes.filesAndCommands!.folder;
    await writeFile(path.join(folder, 'shape.mjs'), script);
    const outcome = JSON.parse((await sh(process.execPath, ['shape.mjs'], folder)).stdout);
    expect(outcome).toMatchObject({ tools: 31, leanTools: 10, read: true });
    expect(outcome.browser).toContain('install it (`npm install playwright-core`)');
    expect(outcome.outline).toContain('npm install web-tree-sitter');
  });

  it(
    'type-check without skipLibCheck while the optional peers are missing',
    async () => {
      const source =
        "import { createToolCatalog } from '@assistant-kit/tool-catalog';\nvoid createToolCatalog;\nexport {};\n";
      expect(await typeCheck(shapes.filesAndCommands!.folder, source, 'nodenext')).toBe('');
    },
    TIMEOUT,
  );
});
