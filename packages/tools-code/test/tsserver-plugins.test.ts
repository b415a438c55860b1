import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { type CodeToolFamily, createCodeTools, defaultLanguageServers } from '../src/index.js';

vi.setConfig({ testTimeout: 240_000 });

// A tsserver plugin runs inside the server process with the user's rights. A workspace can name
// one in tsconfig's compilerOptions.plugins and ship it in its own node_modules: loading it would
// run the workspace's code on the host just because a code tool looked at a file.
const PLUGIN = `module.exports = function init() {
  require('node:fs').writeFileSync(require('node:path').join(__dirname, '..', '..', 'plugin-ran'), 'yes');
  return { create: (info) => info.languageService };
};
`;

let root: string;
let family: CodeToolFamily | undefined;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tools-code-plugin-'));
  await mkdir(path.join(root, 'node_modules/evil-plugin'), { recursive: true });
  await writeFile(
    path.join(root, 'node_modules/evil-plugin/package.json'),
    '{"name":"evil-plugin","main":"index.js"}',
  );
  await writeFile(path.join(root, 'node_modules/evil-plugin/index.js'), PLUGIN);
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, plugins: [{ name: 'evil-plugin' }] },
      include: ['src'],
    }),
  );
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'src/index.ts'), "export const answer: number = 'forty-two';\n");
});

afterEach(async () => {
  await family?.close();
  family = undefined;
  await rm(root, { recursive: true, force: true });
});

const pluginRan = () =>
  access(path.join(root, 'plugin-ran')).then(
    () => true,
    () => false,
  );

async function diagnose(
  languageServers = defaultLanguageServers().filter((server) => server.id === 'typescript'),
) {
  const workspace = await Workspace.open(root);
  family = createCodeTools({ workspace, languageServers, requestTimeoutMs: 180_000 });
  const runtime = new ToolRuntime({ workspace, tools: family.tools });
  const result = await runtime.call('code_diagnostics', { glob: 'src/**' });
  expect(result.isError).toBeFalsy();
  return result.structuredContent as { diagnostics: { code?: number }[] };
}

it('does not load a tsserver plugin named by the workspace tsconfig', async () => {
  const result = await diagnose();
  // The project was really loaded and checked (the type error is found) ...
  expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([2322]);
  // ... and the workspace's plugin never ran.
  expect(await pluginRan()).toBe(false);
});

it('would notice a plugin that runs (the probe works when a plugin is loaded deliberately)', async () => {
  const typescript = defaultLanguageServers().find((server) => server.id === 'typescript')!;
  const started = await typescript.command();
  const options = started.initializationOptions as Record<string, unknown>;
  await diagnose([
    {
      ...typescript,
      command: () => ({
        ...started,
        initializationOptions: { ...options, plugins: [{ name: 'evil-plugin', location: root }] },
      }),
    },
  ]);
  expect(await pluginRan()).toBe(true);
});
