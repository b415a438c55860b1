import type { ErrorCodeTable } from '@assistant-kit/kernel';
import { type ToolError, type ToolErrorCode, toolErrorFactory } from '@assistant-kit/tool-core';
/**
 * Error codes the files family adds to tool-core's shared ones (thrown as tool-core's
 * `ToolError`). Codes never change meaning once published.
 */
export type FileToolErrorCode =
  | 'BINARY_FILE'
  | 'ENCODING_UNKNOWN'
  | 'ENCODING_UNSUPPORTED'
  | 'ENCODING_NOT_LOSSLESS'
  | 'UNREPRESENTABLE_CHARACTERS'
  | 'EDIT_NO_MATCH'
  | 'EDIT_AMBIGUOUS_MATCH'
  | 'EDIT_NO_CHANGE'
  | 'INVALID_REGEX'
  | 'INVALID_GLOB'
  | 'TOO_MANY_FILES'
  | 'NOT_AN_IMAGE'
  | 'IMAGE_TOO_LARGE'
  | 'SEARCH_FAILED';

/** What each of the family's codes means (the closed set; every code is listed). */
export const FILE_TOOL_ERROR_CODES = {
  BINARY_FILE: {
    description: 'The file holds binary data (a NUL byte near its start); text tools refuse it.',
  },
  ENCODING_UNKNOWN: {
    description: 'The file is not valid UTF-8 and has no byte-order mark; name its encoding.',
  },
  ENCODING_UNSUPPORTED: { description: 'The named encoding does not exist.' },
  ENCODING_NOT_LOSSLESS: {
    description: 'Decoding and re-encoding the file would not give back the same bytes; it is left alone.',
  },
  UNREPRESENTABLE_CHARACTERS: {
    description: "The new text holds characters the file's encoding cannot represent.",
  },
  EDIT_NO_MATCH: {
    description: 'edit_file: old_text was not found; details.candidates lists the closest lines.',
  },
  EDIT_AMBIGUOUS_MATCH: {
    description: 'edit_file: old_text matches several places and replace_all is not true; nothing written.',
  },
  EDIT_NO_CHANGE: { description: 'edit_file: old_text is empty or equal to new_text.' },
  INVALID_REGEX: { description: 'A regular expression does not compile; the message says why.' },
  INVALID_GLOB: { description: 'A glob is malformed.' },
  TOO_MANY_FILES: {
    description: 'replace_in_files would change more files than max_files allows; nothing written.',
  },
  NOT_AN_IMAGE: { description: 'view_image: the file is not a PNG, JPEG, GIF, WebP or SVG image.' },
  IMAGE_TOO_LARGE: { description: 'view_image: the image is larger than the documented cap.' },
  SEARCH_FAILED: { description: 'ripgrep failed for a reason other than the pattern.' },
} as const satisfies ErrorCodeTable<FileToolErrorCode>;

/** An error this family raises: a {@link ToolError} with its own code or a shared one. */
export type FileToolError = ToolError<FileToolErrorCode | ToolErrorCode>;

/** Builds this family's errors: its own codes or tool-core's shared ones; any other code does not compile. */
export const fileToolError = toolErrorFactory<FileToolErrorCode>();
