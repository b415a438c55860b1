import { cp, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolRuntime, Workspace } from '@assistant-kit/tool-core';
import { type CodeToolFamily, createCodeTools } from '../../src/index.js';
import { sandboxedProcessLauncher } from './process-launcher.js';

const projects = fileURLToPath(new URL('../fixtures/projects/', import.meta.url));
/** tools-code's own node_modules, which holds ava and mocha (dev dependencies). */
const packageModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));
/** The repository's node_modules, which holds vitest. */
const rootModules = fileURLToPath(new URL('../../../../node_modules/', import.meta.url));

export interface FixtureSession {
  root: string;
  runtime: ToolRuntime;
  family: CodeToolFamily;
  close(): Promise<void>;
}

/**
 * A fresh copy of test/fixtures/projects/<name> in a temporary folder, with node_modules linked
 * to installed runners (no network install at test time), opened as a workspace with the code
 * family and a sandboxed process launcher.
 */
export async function openFixtureProject(
  name: string,
  options: { modules?: 'package' | 'root' | 'none'; readOnly?: boolean; from?: string } = {},
): Promise<FixtureSession> {
  const root = await mkdtemp(path.join(tmpdir(), `tools-code-${name}-`));
  await cp(options.from ?? path.join(projects, name), root, { recursive: true });
  const modules = options.modules ?? 'package';
  if (modules === 'package') {
    // A real folder of links, not one link: runners write caches under node_modules/.cache, and
    // the linked installation is read-only in the sandbox.
    await mkdir(path.join(root, 'node_modules'));
    for (const entry of await readdir(packageModules)) {
      if (entry === '.cache') continue;
      await symlink(path.join(packageModules, entry), path.join(root, 'node_modules', entry));
    }
  } else if (modules === 'root') {
    // A real node_modules folder (vite writes its temporary files there; links out of the workspace
    // are read-only in the sandbox) holding links to the installed runner.
    await mkdir(path.join(root, 'node_modules'));
    for (const entry of ['.bin', 'vitest'])
      await symlink(path.join(rootModules, entry), path.join(root, 'node_modules', entry));
  }
  return openSession(root, options.readOnly ?? false);
}

/**
 * A project written from `files` (path → text) into a temporary folder, opened as
 * {@link openFixtureProject} opens a fixture: for a test's own small tree.
 */
export async function openWrittenProject(
  name: string,
  files: Record<string, string>,
): Promise<FixtureSession> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), `tools-code-${name}-`)));
  for (const [relative, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), text);
  }
  return openSession(root, false);
}

async function openSession(root: string, readOnly: boolean): Promise<FixtureSession> {
  const workspace = await Workspace.open(root, { readOnly });
  const family = createCodeTools({ workspace, watchFiles: false, analysisWorkers: 0 });
  const runtime = new ToolRuntime({ workspace, tools: family.tools, processes: sandboxedProcessLauncher() });
  return {
    root,
    runtime,
    family,
    close: async () => {
      await family.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: results are inspected field by field.
export type Structured = Record<string, any>;

/** Calls a tool and returns its structured result and text; throws on an error result. */
export async function callOk(
  session: FixtureSession,
  name: string,
  args: Record<string, unknown>,
): Promise<{ data: Structured; text: string }> {
  const result = await session.runtime.call(name, args);
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return { data: (result.structuredContent ?? {}) as Structured, text };
}

/** Calls a tool that must fail and returns its error. */
export async function callError(
  session: FixtureSession,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string }> {
  const result = await session.runtime.call(name, args);
  if (!result.isError) throw new Error(`${name} succeeded but should have failed`);
  return (result.structuredContent as Structured).error as { code: string; message: string };
}

/** The paths code_related_tests relates to a source, best first. */
export async function relatedTestPaths(session: FixtureSession, source: string): Promise<string[]> {
  const { data } = await callOk(session, 'code_related_tests', { path: source });
  return (data.tests as Structured[]).map((test) => test.path as string);
}
