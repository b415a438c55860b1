/**
 * @assistant-kit/kernel: the building blocks the other packages would otherwise each write again.
 * Internal: its API may change in any release; the public packages re-export what users need
 * (`isAssistantKitError`, `PermissionMode`).
 */

export {
  removeStaleTemporaryFiles,
  syncDirectory,
  type WriteFileAtomicOptions,
  writeFileAtomic,
} from './atomic-file.js';
export { CONFIGURATIONS, type Configuration, isConfiguration } from './configuration.js';
export { readConfinedFileSync } from './confined-read.js';
export {
  AssistantKitError,
  type AssistantKitErrorOptions,
  codesOf,
  type ErrorCodeFacts,
  type ErrorCodeTable,
  isAssistantKitError,
} from './error-brand.js';
export { type FolderEntry, readFolderEntries } from './folder-entries.js';
export { type CompiledGlob, compileGlob, GlobSyntaxError } from './glob.js';
export {
  decodeNameBytes,
  displayName,
  encodeNameBytes,
  fileSystemPath,
  holdsRawBytes,
} from './name-bytes.js';
export { importOptional, isMissingPackage, type OptionalImportFailure } from './optional-import.js';
export { isInsideDirectory } from './path-containment.js';
export { isPermissionMode, PERMISSION_MODES, type PermissionMode } from './permission-mode.js';
export { redactObject } from './redaction.js';
export {
  type SchemaError,
  type SchemaProblem,
  type SchemaProblemWording,
  schemaProblems,
} from './schema-problems.js';
export { KeyedTaskQueue, TaskQueue } from './task-queue.js';
