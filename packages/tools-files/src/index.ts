/** Public API of @assistant-kit/tools-files. */
export {
  createFileTools,
  FILE_TOOL_NAMES,
  FILE_WRITE_TOOL_NAMES,
  type FileToolName,
} from './create-file-tools.js';
export { FILE_TOOL_ERROR_CODES, type FileToolErrorCode } from './errors.js';
export { FILE_TOOL_DEFAULTS, type FileToolsOptions } from './options.js';
export {
  EditFileParameters,
  ListFilesParameters,
  ReadFileParameters,
  ReplaceInFilesParameters,
  SearchFilesParameters,
  ViewImageParameters,
  WriteFileParameters,
} from './tools/schemas.js';
