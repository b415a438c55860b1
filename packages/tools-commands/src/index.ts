/** Public API of @assistant-kit/tools-commands. */

export type {
  BackgroundProcess,
  BackgroundProcessRequest,
  NewOutput,
  ProcessLauncher,
  ProcessRequest,
  WaitOutcome,
} from '@assistant-kit/tool-core';
export { COMMAND_ERROR_CODES, type CommandErrorCode } from './errors.js';
export {
  type CommandToolsOptions,
  createCommandTools,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_TOOL_OUTPUT_CAP_BYTES,
  MAX_TIMEOUT_SECONDS,
} from './family.js';
export { DEFAULT_MAX_BACKGROUND_PROCESSES } from './process/background-registry.js';
export { DEFAULT_OUTPUT_CAP_BYTES } from './process/bounded-output.js';
export { createProcessLauncher, type ProcessLauncherOptions } from './process/process-launcher.js';
export type {
  CommandShell,
  ExecutionContext,
  OutputChunk,
  ProcessResult,
  ProcessSpec,
} from './process/process-spec.js';
export { DEFAULT_KILL_GRACE_MS } from './process/supervised-process.js';
export { isSandboxAvailable, type SandboxStatus } from './sandbox/bubblewrap.js';
export {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxLimits,
  type SandboxOptions,
} from './sandbox/sandbox-options.js';
export {
  type DetectedToolchain,
  detectToolchains,
  type ToolchainDetectionInput,
} from './sandbox/toolchains.js';
export {
  CommandSource,
  DEFAULT_WAIT_SECONDS,
  MAX_SOURCES,
  MAX_WAIT_SECONDS,
  type RunCommandArguments,
  RunCommandParameters,
  RunCommandParametersReadOnly,
  type WaitCommandArguments,
  WaitCommandParameters,
} from './schemas.js';
