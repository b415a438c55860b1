import type { ProcessRequest, Workspace } from '@assistant-kit/tool-core';
import type { SandboxOptions } from '../sandbox/sandbox-options.js';

// The request and result types are tool-core's launcher contract; they are re-exported here under
// the names this package always had, so existing imports keep working.
export type {
  CommandShell,
  ExecutionContext,
  OutputChunk,
  ProcessResult,
} from '@assistant-kit/tool-core';

/**
 * What `runProcess` runs: a tool-core {@link ProcessRequest} plus the workspace and the
 * sandbox set-up. Tool handlers do not build these: they call `context.processes.run(...)`, whose
 * launcher ({@link createProcessLauncher}) carries the host's sandbox options.
 */
export interface ProcessSpec extends ProcessRequest {
  workspace: Workspace;
  /** Sandbox set-up (bubblewrap path, hidden and readable paths, limits). */
  sandbox?: SandboxOptions;
}
