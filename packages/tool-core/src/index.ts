/**
 * Public API of @assistant-kit/tool-core: tool definitions and effect classes, the confined
 * Workspace with its observed-file ledger, and the call runtime.
 */

export { QUOTED_ARGUMENT_MAX_CHARACTERS, quoteArgument } from './bounded-quote.js';
export {
  type AnyToolDefinition,
  CONFIGURATIONS,
  type Configuration,
  type DeclaredToolDefinition,
  defineTool,
  type PlanModeBehaviour,
  type ToolAnnotations,
  type ToolCallContext,
  type ToolDefinition,
  type ToolFacts,
  type ToolFamily,
  type ToolProgress,
} from './definition.js';
export {
  EFFECT_CLASSES,
  type EffectClass,
  type ExecutionMode,
  type NetworkGrant,
  type ResultOrigin,
  TOOL_CAPABILITIES,
  type ToolCapability,
} from './effects.js';
export {
  type ArgumentProblem,
  invalidArguments,
  isAssistantKitError,
  isToolError,
  TOOL_ERROR_CODES,
  ToolError,
  type ToolErrorCode,
  type ToolErrorOptions,
  toolErrorFactory,
} from './errors.js';
export {
  commandEntriesOf,
  type GitConfigEntry,
  isCommandEntry,
  parseGitConfig,
} from './git-guard/git-config.js';
export { type GitGuardSnapshot, GitScanMemory, scanGitState } from './git-guard/git-directory-scan.js';
export {
  describeGitGuardReport,
  GitGuard,
  type GitGuardFinding,
  type GitGuardReport,
} from './git-guard/git-guard.js';
export {
  onProcessCallHandlerReturned,
  onProcessFootprint,
  type ProcessFootprint,
} from './git-guard/process-footprint.js';
export { sha256Hex } from './hash.js';
export {
  type LeftOutNoun,
  NAMES_NOT_UTF8_SHOWN,
  type NamesNotUtf8Report,
  namesNotUtf8Clause,
  namesNotUtf8Field,
  namesNotUtf8Note,
  namesNotUtf8Report,
} from './names-not-utf8-report.js';
export {
  type ContentPart,
  errorResult,
  type ImageContent,
  imageContent,
  type ResultError,
  resultErrorOf,
  type TextContent,
  type ToolResult,
  textResult,
} from './result.js';
export {
  type ArgumentValidator,
  compileArgumentValidator,
} from './runtime/argument-validation.js';
export {
  type CutOutput,
  cutOutput,
  KEPT_OUTPUT_FOLDER,
  type KeptOutput,
  keptOutputNote,
  type OutputToKeep,
} from './runtime/kept-output.js';
export {
  isRacyStamp,
  type KeptState,
  type KeptStatePlace,
  keepStateIn,
  RACY_MARGIN_MS,
} from './runtime/kept-state.js';
export {
  type ApprovalAnswer,
  type AuthorizationDecision,
  type AuthorizationRequest,
  createEffectPolicy,
  defaultToolPolicy,
  type EffectPolicyOptions,
  type EffectRule,
  type ToolPolicy,
} from './runtime/policy.js';
export {
  type BackgroundProcess,
  type BackgroundProcessRequest,
  type CommandShell,
  type ExecutionContext,
  type NewOutput,
  type OutputChunk,
  type ProcessLauncher,
  type ProcessRequest,
  type ProcessResult,
  refusingProcessLauncher,
  type WaitOutcome,
} from './runtime/process-launcher.js';
export {
  scanForProcessFootprint,
  type ToolCallOptions,
  ToolRuntime,
  type ToolRuntimeOptions,
} from './runtime/tool-runtime.js';
export { StringEnum } from './schema-helpers.js';
export { DEFAULT_OUTPUT_CHARACTER_CAP, type TruncatedText, truncateText } from './truncate.js';
export { ObservedFileLedger, type ObservedFileVersion } from './workspace/observed-file-ledger.js';
export { isInsideDirectory, MAX_PATH_BYTES, toWorkspaceRelative } from './workspace/path-confinement.js';
export {
  isUnreadableServiceArea,
  looksLikeGitDirectory,
  type PathProtection,
  type PathProtectionKind,
  protectionByName,
  UNREADABLE_SERVICE_AREAS,
} from './workspace/protected-paths.js';
export {
  HIDDEN_DIRECTORY_NAME,
  type ReadWorkspaceFileOptions,
  Workspace,
  type WorkspaceFile,
  type WorkspaceFileChange,
  type WorkspaceOptions,
  type WorkspacePath,
  type WorkspacePathKind,
  type WrittenWorkspaceFile,
} from './workspace/workspace.js';
export {
  compareText,
  compileGitignore,
  compileWalkGlob,
  type GitignoreLayer,
  GitignoreOracle,
  GitignoreRules,
  HIGH_CHARACTERS,
  ignoredByLayers,
  WALK_ALWAYS_SKIPPED,
  type WalkedNameNotUtf8,
  type WalkFilter,
  type WorkspaceWalkEntry,
  type WorkspaceWalkOptions,
  type WorkspaceWalkResult,
  walkWorkspace,
} from './workspace/workspace-walker.js';
