import type { ProcessLauncher } from '@assistant-kit/tool-core';
import * as commands from '@assistant-kit/tools-commands';

/**
 * Toolchains this machine keeps under /root (pyenv's python3 and pytest, rustup's cargo), which the
 * sandbox hides by default: shown read-only so the runners they hold can start.
 */
const TOOLCHAINS = ['/root/.pyenv', '/root/.cargo', '/root/.rustup'];

/**
 * The sandboxed launcher a host gives the runtime: tools-commands' createProcessLauncher once it
 * exists, until then the same runProcess it wraps, with this machine's toolchains readable.
 */
export function sandboxedProcessLauncher(): ProcessLauncher {
  const sandbox = { readablePaths: TOOLCHAINS };
  const create = (commands as Record<string, unknown>).createProcessLauncher as
    | ((options: { sandbox: typeof sandbox }) => ProcessLauncher)
    | undefined;
  if (create !== undefined) return create({ sandbox });
  return {
    run: (workspace, request) => commands.runProcess({ ...request, workspace, sandbox }),
    startBackground: () => Promise.reject(new Error('not used by these tests')),
  };
}
