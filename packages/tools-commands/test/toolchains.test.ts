import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectToolchains } from '../src/index.js';
import { runProcess } from '../src/process/run-process.js';
import { createTemporaryWorkspace } from './helpers.js';

/** A home with toolchains (and secrets beside them), and a project using some of them. */
async function buildHome(base: string): Promise<string> {
  const home = path.join(base, 'home');
  const files: Record<string, string> = {
    '.pyenv/shims/python-probe': '#!/bin/sh\necho "pyenv python, root=$PYENV_ROOT"\n',
    '.pyenv/versions/3.12.0/bin/python3': '',
    '.cargo/bin/cargo-probe': '#!/bin/sh\necho "cargo, home=$CARGO_HOME rustup=$RUSTUP_HOME"\n',
    '.cargo/registry/index/x': '',
    '.cargo/credentials.toml': 'token = "cargo-secret-token"\n',
    '.rustup/toolchains/stable/bin/rustc': '',
    'go/bin/gopls': '',
    '.local/bin/pipx': '',
    '.local/share/keyrings/login.keyring': 'secret',
    'bin/my-tool': '#!/bin/sh\necho my-tool\n',
    '.ssh/id_ed25519': 'private key',
  };
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(home, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    if (content.startsWith('#!')) await chmod(file, 0o755);
  }
  return home;
}

describe('toolchains under HOME (issue 14)', () => {
  let home: string;
  let root: string;
  let remove: () => Promise<void>;
  let workspace: Awaited<ReturnType<typeof createTemporaryWorkspace>>['workspace'];

  beforeAll(async () => {
    ({ workspace, root, remove } = await createTemporaryWorkspace());
    home = await buildHome(path.dirname(root));
    await writeFile(path.join(root, 'Cargo.toml'), '[package]\nname = "x"\n');
  });
  afterAll(async () => {
    await remove();
  });

  it('detects the ones on PATH and the ones the project files name, and only their safe parts', () => {
    const found = detectToolchains({
      workspaceRoot: root,
      home,
      pathVariable: [path.join(home, '.pyenv/shims'), path.join(home, 'bin'), '/usr/bin'].join(':'),
      env: {},
    });
    expect(found.map((toolchain) => [toolchain.name, toolchain.reason])).toEqual([
      ['pyenv', `PATH entry ${path.join(home, '.pyenv/shims')}`],
      ['cargo', 'project file Cargo.toml'],
      ['rustup', 'project file Cargo.toml'],
      ['path', `PATH entry ${path.join(home, 'bin')}`],
    ]);
    const cargo = found.find((toolchain) => toolchain.name === 'cargo')!;
    // Never the whole CARGO_HOME: credentials.toml stays hidden.
    expect(cargo.paths).toEqual([path.join(home, '.cargo/bin'), path.join(home, '.cargo/registry')]);
    expect(cargo.environment).toEqual({ CARGO_HOME: path.join(home, '.cargo') });
    const shown = found.flatMap((toolchain) => toolchain.paths);
    expect(shown).not.toContain(home);
    expect(
      shown.some((shownPath) => shownPath.includes('.local') || shownPath.startsWith(path.join(home, 'go'))),
    ).toBe(false);
  });

  it('a root variable outside HOME, or no matching PATH entry or project file, detects nothing', () => {
    expect(
      detectToolchains({
        workspaceRoot: home,
        home,
        pathVariable: '/usr/bin',
        env: { PYENV_ROOT: '/opt/pyenv' },
      }),
    ).toEqual([]);
  });

  it('runs the toolchains inside the sandbox, read-only, while the rest of HOME stays hidden', async () => {
    // The machine's own toolchain variables would point the detection elsewhere.
    const names = [
      'HOME',
      'PATH',
      'PYENV_ROOT',
      'NVM_DIR',
      'CARGO_HOME',
      'RUSTUP_HOME',
      'GOPATH',
      'VOLTA_HOME',
    ];
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    for (const name of names.slice(2)) delete process.env[name];
    process.env.HOME = home;
    process.env.PATH = `${path.join(home, '.pyenv/shims')}:${path.join(home, 'bin')}:${saved.PATH}`;
    try {
      const shown = await runProcess({
        workspace,
        command: `python-probe; ${path.join(home, '.cargo/bin/cargo-probe')}; my-tool
          cat ${path.join(home, '.cargo/credentials.toml')} 2>/dev/null; echo "credentials:$?"
          cat ${path.join(home, '.ssh/id_ed25519')} 2>/dev/null; echo "ssh:$?"
          touch ${path.join(home, '.pyenv/shims/new')} 2>/dev/null; echo "write:$?"`,
      });
      expect(shown.stderr).toBe('');
      expect(shown.stdout.split('\n')).toEqual([
        `pyenv python, root=${path.join(home, '.pyenv')}`,
        `cargo, home=${path.join(home, '.cargo')} rustup=${path.join(home, '.rustup')}`,
        'my-tool',
        'credentials:1',
        'ssh:1',
        'write:1',
        '',
      ]);
      const hidden = await runProcess({
        workspace,
        command: 'python-probe 2>/dev/null; echo "probe:$?"',
        sandbox: { detectToolchains: false },
      });
      expect(hidden.stdout).toBe('probe:127\n');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
