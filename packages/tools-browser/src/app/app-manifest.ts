import path from 'node:path';
import type { Workspace } from '@assistant-kit/tool-core';
import { browserError } from '../errors.js';

/** File name of the family's own app manifest. */
export const APP_MANIFEST_FILE_NAME = 'assistant-app.json';

/** A runnable app found in the workspace. */
export interface AppManifest {
  /** Workspace-relative path of the manifest file. */
  manifestPath: string;
  /** Which script or manifest it came from, for messages ("package.json script dev"). */
  source: string;
  argv: string[];
  /** Workspace-relative working directory. */
  cwd: string;
  env: Record<string, string>;
  /** Port the app listens on inside its sandbox. */
  port: number;
  /** Path (with query) opened once the app answers. */
  openPath: string;
}

// Development servers whose default port is well known, checked in order.
const KNOWN_DEFAULT_PORTS: [RegExp, number][] = [
  [/\bvite\b/, 5173],
  [/\bastro\b/, 4321],
  [/\bng serve\b/, 4200],
  [/\bwebpack(-dev-server| serve)\b/, 8080],
  [/\bparcel\b/, 1234],
  [/\bhttp-server\b/, 8080],
  [/\bnext\b/, 3000],
];
const DEFAULT_APP_PORT = 3000;

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** The port a package script listens on: an explicit --port/-p, a known tool's default, or 3000. */
export function inferScriptPort(script: string): number {
  const explicit = /(?:--port[= ]|\s-p\s+)(\d{1,5})\b/.exec(script);
  if (explicit !== null && isPort(Number(explicit[1]))) return Number(explicit[1]);
  for (const [pattern, port] of KNOWN_DEFAULT_PORTS) if (pattern.test(script)) return port;
  return DEFAULT_APP_PORT;
}

function invalid(manifestPath: string, problem: string): never {
  throw browserError('APP_MANIFEST_INVALID', `${manifestPath}: ${problem}`, {
    details: { path: manifestPath },
  });
}

function parseJson(manifestPath: string, bytes: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw browserError('APP_MANIFEST_INVALID', `${manifestPath} is not valid JSON.`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    invalid(manifestPath, 'the manifest must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

function stringRecord(manifestPath: string, value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalid(manifestPath, `"${field}" must be an object of strings.`);
  }
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') invalid(manifestPath, `"${field}.${key}" must be a string.`);
    result[key] = entry;
  }
  return result;
}

function openPathOf(manifestPath: string, value: unknown): string {
  if (value === undefined) return '/';
  if (typeof value !== 'string' || !value.startsWith('/'))
    invalid(manifestPath, '"path" must start with "/".');
  return value;
}

function shellCommand(script: string): string[] {
  // What `npm run` does, without npm (which would try the network): local binaries first on PATH.
  return ['sh', '-c', `export PATH="$PWD/node_modules/.bin:$PATH"; ${script}`];
}

/** Reads the family's own manifest (see README: command, port, path, cwd, env). */
async function readOwnManifest(workspace: Workspace, manifestPath: string): Promise<AppManifest> {
  const manifest = parseJson(
    manifestPath,
    (await workspace.readFile(manifestPath, { observe: false, maxBytes: 1_000_000 })).bytes,
  );
  const command = manifest.command;
  let argv: string[];
  if (typeof command === 'string' && command.trim() !== '') argv = ['sh', '-c', command];
  else if (
    Array.isArray(command) &&
    command.length > 0 &&
    command.every((part) => typeof part === 'string')
  ) {
    argv = command as string[];
  } else invalid(manifestPath, '"command" must be a non-empty string or array of strings.');
  const port = manifest.port ?? DEFAULT_APP_PORT;
  if (!isPort(port)) invalid(manifestPath, '"port" must be an integer from 1 to 65535.');
  const folder = path.posix.dirname(manifestPath);
  const cwdField = manifest.cwd ?? '.';
  if (typeof cwdField !== 'string') invalid(manifestPath, '"cwd" must be a string.');
  const cwd = (await workspace.resolveDirectory(path.posix.join(folder, cwdField))).relative;
  return {
    manifestPath,
    source: APP_MANIFEST_FILE_NAME,
    argv,
    cwd,
    env: { PORT: String(port), ...stringRecord(manifestPath, manifest.env, 'env') },
    port,
    openPath: openPathOf(manifestPath, manifest.path),
  };
}

/** Reads a package.json's dev (preferred) or start script; undefined when it has neither. */
async function readPackageManifest(
  workspace: Workspace,
  manifestPath: string,
): Promise<AppManifest | undefined> {
  const manifest = parseJson(
    manifestPath,
    (await workspace.readFile(manifestPath, { observe: false, maxBytes: 5_000_000 })).bytes,
  );
  const scripts = manifest.scripts;
  if (typeof scripts !== 'object' || scripts === null) return undefined;
  const scriptName = (['dev', 'start'] as const).find(
    (name) => typeof (scripts as Record<string, unknown>)[name] === 'string',
  );
  if (scriptName === undefined) return undefined;
  const script = (scripts as Record<string, string>)[scriptName]!;
  const settings = (manifest.assistantKit ?? {}) as Record<string, unknown>;
  const port = settings.port ?? inferScriptPort(script);
  if (!isPort(port)) invalid(manifestPath, '"assistantKit.port" must be an integer from 1 to 65535.');
  return {
    manifestPath,
    source: `package.json script "${scriptName}"`,
    argv: shellCommand(script),
    cwd: path.posix.dirname(manifestPath),
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      BROWSER: 'none',
      ...stringRecord(manifestPath, settings.env, 'assistantKit.env'),
    },
    port,
    openPath: openPathOf(manifestPath, settings.path),
  };
}

/**
 * Finds the app manifest a target names: the manifest file itself, or a folder holding
 * assistant-app.json (first) or a package.json with a dev/start script. Undefined when the target
 * is plain static content.
 */
export async function findAppManifest(
  workspace: Workspace,
  relative: string,
  kind: 'file' | 'directory',
): Promise<AppManifest | undefined> {
  if (kind === 'file') {
    const name = path.posix.basename(relative);
    if (name === APP_MANIFEST_FILE_NAME) return readOwnManifest(workspace, relative);
    if (name === 'package.json') {
      const manifest = await readPackageManifest(workspace, relative);
      if (manifest === undefined) invalid(relative, 'it has no "dev" or "start" script to run.');
      return manifest;
    }
    return undefined;
  }
  const own = path.posix.join(relative, APP_MANIFEST_FILE_NAME);
  if ((await workspace.resolve(own)).kind === 'file') return readOwnManifest(workspace, own);
  const packageJson = path.posix.join(relative, 'package.json');
  if ((await workspace.resolve(packageJson)).kind === 'file')
    return readPackageManifest(workspace, packageJson);
  return undefined;
}
