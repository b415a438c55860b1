/** Public API of @assistant-kit/tools-files. */

export { FILE_TOOL_ERROR_CODES, type FileToolErrorCode } from './errors.js';
export { createFileTools } from './family.js';
export { FILE_TOOL_DEFAULTS, type FileToolsOptions } from './options.js';
export {
  EditFileParameters,
  ListFilesParameters,
  ReadFileParameters,
  ReplaceInFilesParameters,
  SearchFilesParameters,
  ViewImageParameters,
  WriteFileParameters,
} from './schemas.js';
