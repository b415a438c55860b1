import { fileURLToPath } from 'node:url';
import type { ProcessLauncher } from '@assistant-kit/tool-core';
import { createProcessLauncher } from '@assistant-kit/tools-commands';

/**
 * Toolchains this machine keeps under /root (pyenv's python3 and pytest, rustup's cargo), which the
 * sandbox hides by default: shown read-only so the runners they hold can start.
 */
const TOOLCHAINS = ['/root/.pyenv', '/root/.cargo', '/root/.rustup'];
/**
 * The repository, whose node_modules the fixture projects link to for their runners. A clone under
 * /tmp (as CI may make) would otherwise be hidden by the sandbox's private /tmp.
 */
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const TOOLCHAIN_ENVIRONMENT = { RUSTUP_HOME: '/root/.rustup', CARGO_HOME: '/root/.cargo' };

/**
 * The sandboxed launcher a host gives the runtime (tools-commands' createProcessLauncher), with
 * this machine's toolchains readable.
 */
export function sandboxedProcessLauncher(): ProcessLauncher {
  const launcher = createProcessLauncher({ readablePaths: [...TOOLCHAINS, REPOSITORY] });
  // The sandbox has its own HOME, so rustup is told where its toolchains are.
  return {
    run: (workspace, request) =>
      launcher.run(workspace, { ...request, env: { ...TOOLCHAIN_ENVIRONMENT, ...request.env } }),
    startBackground: (workspace, request) => launcher.startBackground(workspace, request),
  };
}
