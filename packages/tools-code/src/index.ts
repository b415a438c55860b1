/** Public API of @assistant-kit/tools-code. */
export { CODE_TOOL_ERROR_CODES, type CodeToolErrorCode } from './errors.js';
export {
  type CodeToolFamily,
  type CodeToolsOptions,
  createCodeTools,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
} from './family.js';
export { EDIT_TOKEN_LIFETIME_MS } from './intelligence/edit-tokens.js';
export type { LanguageServerStatus } from './lsp/language-server-pool.js';
export type { LanguageServerState } from './lsp/language-server-process.js';
export {
  defaultLanguageServers,
  type LanguageServerCommand,
  type LanguageServerRegistration,
  REGISTER_LANGUAGE_SERVER_HINT,
} from './lsp/registrations.js';
export { RESULT_TEXT_CAP } from './output/format.js';
export {
  DEFAULT_WRITE_DIAGNOSTICS_BUDGET_MS,
  type IntroducedDiagnostic,
  type WriteDiagnostics,
} from './output/write-diagnostics.js';
export { parseTestCounts, type TestCounts } from './project/test-output.js';
export {
  DEFAULT_TEST_TIMEOUT_SECONDS,
  MAX_TEST_TIMEOUT_SECONDS,
  TEST_OUTPUT_CHARACTER_CAP,
} from './project/test-runs.js';
export {
  CODE_INTELLIGENCE_OPERATIONS,
  CODE_INTELLIGENCE_READ_ONLY_OPERATIONS,
  CodeDiagnosticsParameters,
  CodeDocumentSymbolsParameters,
  CodeFindDefinitionParameters,
  CodeFindReferencesParameters,
  CodeIntelligenceParameters,
  CodeIntelligenceParametersReadOnly,
  CodeProjectProfileParameters,
  CodeRelatedTestsParameters,
  CodeWorkspaceSymbolsParameters,
  FileOutlineParameters,
  REPO_MAP_SECTIONS,
  RepoMapParameters,
  RunTestsParameters,
} from './schemas.js';
