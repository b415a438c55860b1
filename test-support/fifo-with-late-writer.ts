// A FIFO planted where a tool expects a regular file (a `.gitignore`, a kept state file), with a
// writer that comes late. Code that opens the FIFO without O_NONBLOCK waits for that writer: a
// test whose timeout is shorter than the writer's delay then fails as a timeout. When the open is
// synchronous, the test's own thread is blocked until the writer comes, and the overdue timeout
// fails the test once it is released, so the delay also bounds how long a regression stalls the
// run. A correct run never waits for the writer; `remove()` stops it.
import { execFileSync, spawn } from 'node:child_process';

export interface PlantedFifo {
  /** Stops the late writer (still waiting for a reader when the FIFO was skipped). */
  remove(): void;
}

export function plantFifoWithLateWriter(
  absolute: string,
  lateContent: string,
  delaySeconds = 30,
): PlantedFifo {
  execFileSync('mkfifo', [absolute]);
  const writer = spawn(
    'sh',
    ['-c', `sleep ${delaySeconds}; printf '%s' "$1" > "$0"`, absolute, lateContent],
    {
      stdio: 'ignore',
      detached: true,
    },
  );
  writer.unref();
  return {
    remove() {
      // The whole group: sh and the sleep or the blocked redirection it runs.
      try {
        process.kill(-writer.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}
