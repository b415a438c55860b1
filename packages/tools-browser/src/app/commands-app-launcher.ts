import { browserError } from '../errors.js';
import type { AppProcess, AppProcessLauncher } from './app-process-launcher.js';

/**
 * The default launcher: the commands family's sandboxed background processes (no network inside
 * bubblewrap, the app's port bridged to a host loopback port). Loaded on first use.
 */
export const commandsAppProcessLauncher: AppProcessLauncher = async (request) => {
  let commands: Record<string, unknown>;
  try {
    commands = (await import('@assistant-kit/tools-commands')) as Record<string, unknown>;
  } catch (error) {
    throw browserError(
      'APP_START_FAILED',
      'App manifests need @assistant-kit/tools-commands (sandboxed background processes): install it.',
      { cause: error },
    );
  }
  const start = commands.startBackgroundProcess;
  if (typeof start !== 'function') {
    throw browserError(
      'APP_START_FAILED',
      'This version of @assistant-kit/tools-commands has no startBackgroundProcess; update it to run app manifests.',
    );
  }
  const started = (await start({
    workspace: request.workspace,
    argv: request.argv,
    cwd: request.cwd,
    env: request.env,
    exposePort: request.port,
    signal: request.signal,
  })) as AppProcess;
  return started;
};
