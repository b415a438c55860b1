/** Something to stop synchronously when the host process exits. */
export interface ExitCleanup {
  onProcessExit(): void;
}

const registered = new Set<ExitCleanup>();
let listening = false;

function runAll(): void {
  for (const cleanup of registered) {
    try {
      cleanup.onProcessExit();
    } catch {
      // Exiting anyway: one failed clean-up must not stop the others.
    }
  }
}

/**
 * Registers a clean-up for process exit. One listener serves every family instance, so many
 * instances never trip Node's listener-count warning.
 */
export function registerExitCleanup(cleanup: ExitCleanup): () => void {
  registered.add(cleanup);
  if (!listening) {
    listening = true;
    process.once('exit', runAll);
  }
  return () => {
    registered.delete(cleanup);
  };
}
