import { browserError } from '../errors.js';
import type { AppProcessLauncher } from './app-process-launcher.js';

const RECENT_OUTPUT_CHARACTERS = 4_000;

/**
 * The default launcher: the commands family's sandboxed background processes (no network inside
 * bubblewrap, the app's port bridged to a host loopback port). Loaded on first use, so hosts that
 * never open an app do not load the process runner.
 */
export const commandsAppProcessLauncher: AppProcessLauncher = async (request) => {
  let commands: typeof import('@assistant-kit/tools-commands');
  try {
    commands = await import('@assistant-kit/tools-commands');
  } catch (error) {
    throw browserError(
      'APP_START_FAILED',
      'App manifests need @assistant-kit/tools-commands (sandboxed background processes): install it.',
      { cause: error },
    );
  }
  let background: Awaited<ReturnType<typeof commands.startBackgroundProcess>>;
  try {
    // No signal is passed on purpose: the app must outlive the browser_open call that started it.
    background = await commands.startBackgroundProcess({
      workspace: request.workspace,
      argv: request.argv,
      cwd: request.cwd,
      env: request.env,
      exposePort: request.port,
    });
  } catch (error) {
    throw browserError(
      'APP_START_FAILED',
      `The app's runtime could not be started: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const hostPort = background.hostPort;
  if (hostPort === undefined) {
    await background.kill();
    throw browserError('APP_START_FAILED', 'The app started but its port was not bridged to the host.');
  }
  let recent = '';
  return {
    hostPort,
    exited: background.exited,
    kill: () => background.kill(),
    recentOutput: () => {
      const fresh = background.readNewOutput();
      recent = `${recent}${fresh.stdout}${fresh.stderr}`.slice(-RECENT_OUTPUT_CHARACTERS);
      return recent;
    },
  };
};
