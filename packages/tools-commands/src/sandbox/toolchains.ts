import { lstatSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isInsideDirectory } from '@assistant-kit/tool-core';

/**
 * Toolchains installed under the user's home (pyenv, nvm, volta, cargo/rustup, go, ~/.local)
 * are invisible in the sandbox, which hides HOME. The ones a project uses are found from the
 * service's PATH and the project's files and shown read-only (no network either way), with the
 * variables that tell each tool where its root is (the sandbox's HOME is an empty folder, so the
 * default `~/.pyenv` would point nowhere). Only the parts a build needs are shown: never a whole
 * home, never ~/.cargo/credentials.toml or ~/.local/share.
 */
export interface DetectedToolchain {
  name: string;
  /** Host folders shown read-only. */
  paths: string[];
  /** Variables set in the sandboxed command's environment. */
  environment: Record<string, string>;
  /** Why it was detected: a PATH entry or a project file. */
  reason: string;
}

interface ToolchainRule {
  name: string;
  /** The toolchain's root on this host (its variable, else the default under HOME). */
  root: (home: string, env: NodeJS.ProcessEnv) => string;
  /** Folders under the root to show ('' is the root itself). */
  parts: readonly string[];
  /** The variable naming the root inside the sandbox. */
  variable?: string;
  /** Files at the workspace root that say the project uses it. */
  projectFiles: readonly string[];
}

const PYTHON_FILES = ['.python-version', 'pyproject.toml', 'requirements.txt', 'setup.py', 'Pipfile'];
const NODE_FILES = ['.nvmrc', '.node-version', 'package.json'];
const RUST_FILES = ['Cargo.toml', 'rust-toolchain', 'rust-toolchain.toml'];
const GO_FILES = ['go.mod', 'go.work'];

const RULES: readonly ToolchainRule[] = [
  {
    name: 'pyenv',
    root: (home, env) => env.PYENV_ROOT ?? path.join(home, '.pyenv'),
    parts: [''],
    variable: 'PYENV_ROOT',
    projectFiles: PYTHON_FILES,
  },
  {
    name: 'nvm',
    root: (home, env) => env.NVM_DIR ?? path.join(home, '.nvm'),
    parts: [''],
    variable: 'NVM_DIR',
    projectFiles: NODE_FILES,
  },
  {
    name: 'volta',
    root: (home, env) => env.VOLTA_HOME ?? path.join(home, '.volta'),
    parts: [''],
    variable: 'VOLTA_HOME',
    projectFiles: NODE_FILES,
  },
  {
    // Not the whole CARGO_HOME: credentials.toml there holds registry tokens.
    name: 'cargo',
    root: (home, env) => env.CARGO_HOME ?? path.join(home, '.cargo'),
    parts: ['bin', 'registry', 'git'],
    variable: 'CARGO_HOME',
    projectFiles: RUST_FILES,
  },
  {
    name: 'rustup',
    root: (home, env) => env.RUSTUP_HOME ?? path.join(home, '.rustup'),
    parts: [''],
    variable: 'RUSTUP_HOME',
    projectFiles: RUST_FILES,
  },
  {
    // The installed commands and the module cache; the build cache goes to the sandbox's HOME.
    name: 'go',
    root: (home, env) => env.GOPATH?.split(path.delimiter)[0] ?? path.join(home, 'go'),
    parts: ['bin', 'pkg/mod'],
    variable: 'GOPATH',
    projectFiles: GO_FILES,
  },
  {
    // Go toolchains installed with golang.org/dl (`go1.22.0 download`).
    name: 'go-sdk',
    root: (home) => path.join(home, 'sdk'),
    parts: [''],
    projectFiles: GO_FILES,
  },
  {
    // pip --user and pipx: their commands and libraries, not ~/.local/share (keyrings, history).
    name: 'local',
    root: (home) => path.join(home, '.local'),
    parts: ['bin', 'lib'],
    projectFiles: [],
  },
];

function exists(target: string): boolean {
  return lstatSync(target, { throwIfNoEntry: false }) !== undefined;
}

/** Where toolchain detection looks: the workspace, the home folder, PATH and the environment. */
export interface ToolchainDetectionInput {
  workspaceRoot: string;
  /** Default: the service's home. */
  home?: string;
  /** Default: the service's PATH. */
  pathVariable?: string;
  /** Default: process.env (for PYENV_ROOT, NVM_DIR, CARGO_HOME, RUSTUP_HOME, GOPATH, VOLTA_HOME). */
  env?: NodeJS.ProcessEnv;
}

/** The toolchains under HOME that this project uses, by PATH and project files. */
export function detectToolchains(input: ToolchainDetectionInput): DetectedToolchain[] {
  const home = path.resolve(input.home ?? os.homedir());
  const env = input.env ?? process.env;
  const pathEntries = (input.pathVariable ?? env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => path.isAbsolute(entry))
    .map((entry) => path.resolve(entry));
  const detected: DetectedToolchain[] = [];
  const claimed: string[] = [];
  for (const rule of RULES) {
    const root = path.resolve(rule.root(home, env));
    // A root outside HOME is visible already (hidden paths are HOME, /root, /tmp …; a root
    // there is a host's own choice, shown with readablePaths).
    if (root === home || !isInsideDirectory(home, root) || !exists(root)) continue;
    claimed.push(root);
    const onPath = pathEntries.find((entry) => entry === root || isInsideDirectory(root, entry));
    const projectFile = rule.projectFiles.find((file) => exists(path.join(input.workspaceRoot, file)));
    if (onPath === undefined && projectFile === undefined) continue;
    const paths = rule.parts.map((part) => (part === '' ? root : path.join(root, part))).filter(exists);
    if (paths.length === 0) continue;
    detected.push({
      name: rule.name,
      paths,
      environment: rule.variable === undefined ? {} : { [rule.variable]: root },
      reason: onPath !== undefined ? `PATH entry ${onPath}` : `project file ${projectFile}`,
    });
  }
  // Other command folders on PATH under HOME (~/bin, ~/.deno/bin …): the folder alone.
  for (const entry of pathEntries) {
    if (entry === home || !isInsideDirectory(home, entry) || path.basename(entry) !== 'bin') continue;
    if (claimed.some((root) => entry === root || isInsideDirectory(root, entry)) || !exists(entry)) continue;
    detected.push({ name: 'path', paths: [entry], environment: {}, reason: `PATH entry ${entry}` });
  }
  return detected;
}

// Detection reads a few paths; a burst of commands reuses it for a few seconds.
const DETECTION_LIFETIME_MS = 5_000;
const cache = new Map<string, { toolchains: DetectedToolchain[]; expires: number }>();

/** {@link detectToolchains} for the service's own HOME and PATH, cached briefly per workspace. */
export function hostToolchains(workspaceRoot: string): DetectedToolchain[] {
  const now = Date.now();
  const cached = cache.get(workspaceRoot);
  if (cached !== undefined && cached.expires > now) return cached.toolchains;
  const toolchains = detectToolchains({ workspaceRoot });
  if (cache.size > 64) cache.clear();
  cache.set(workspaceRoot, { toolchains, expires: now + DETECTION_LIFETIME_MS });
  return toolchains;
}
