import { Type } from 'typebox';
import { defineTool, type ProcessLauncher, textResult } from '../src/index.js';

/**
 * A launcher whose one background process runs until `stop()`, and a `start_server` tool that
 * starts it: what the runtime's git guard sees of a process call that leaves a server running.
 */
export function backgroundStarter(): {
  processes: ProcessLauncher;
  starter: ReturnType<typeof defineTool>;
  stop: () => void;
} {
  let running = true;
  const background = {
    id: 'bg-1',
    pid: 1,
    get running() {
      return running;
    },
    readNewOutput: () => ({ stdout: '', stderr: '', omittedBytes: 0 }),
    waitForOutputOrExit: async () => 'exited' as const,
    exited: new Promise<never>(() => {}),
    kill: async () => {},
  };
  const processes = {
    run: async () => {
      throw new Error('not used');
    },
    startBackground: async () => background,
  };
  const starter = defineTool({
    name: 'start_server',
    purpose: 'Starts a background process.',
    parameters: Type.Object({}),
    effects: ['process'],
    network: 'none',
    handler: async (_args, context) => {
      await context.processes.startBackground(context.workspace, { command: 'serve' });
      return textResult('started');
    },
  });
  return {
    processes,
    starter,
    stop: () => {
      running = false;
    },
  };
}
