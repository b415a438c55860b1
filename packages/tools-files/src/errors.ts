/**
 * Error codes the files family adds to tool-core's shared ones (thrown as tool-core's
 * `ToolError`). Codes never change meaning once published.
 */
export const FILE_TOOL_ERROR_CODES = {
  /** The file holds binary data (a NUL byte near its start); text tools refuse it. */
  BINARY_FILE: 'BINARY_FILE',
  /** The file is not valid UTF-8 and has no byte-order mark; name its encoding. */
  ENCODING_UNKNOWN: 'ENCODING_UNKNOWN',
  /** The named encoding does not exist. */
  ENCODING_UNSUPPORTED: 'ENCODING_UNSUPPORTED',
  /** Decoding and re-encoding the file would not give back the same bytes; it is left alone. */
  ENCODING_NOT_LOSSLESS: 'ENCODING_NOT_LOSSLESS',
  /** The new text holds characters the file's encoding cannot represent. */
  UNREPRESENTABLE_CHARACTERS: 'UNREPRESENTABLE_CHARACTERS',
  /** edit_file: old_text was not found; details.candidates lists the closest lines. */
  EDIT_NO_MATCH: 'EDIT_NO_MATCH',
  /** edit_file: old_text matches several places and replace_all is not true; nothing written. */
  EDIT_AMBIGUOUS_MATCH: 'EDIT_AMBIGUOUS_MATCH',
  /** edit_file: old_text is empty or equal to new_text. */
  EDIT_NO_CHANGE: 'EDIT_NO_CHANGE',
  /** A regular expression does not compile; the message says why. */
  INVALID_REGEX: 'INVALID_REGEX',
  /** A glob is malformed. */
  INVALID_GLOB: 'INVALID_GLOB',
  /** replace_in_files would change more files than max_files allows; nothing written. */
  TOO_MANY_FILES: 'TOO_MANY_FILES',
  /** view_image: the file is not a PNG, JPEG, GIF, WebP or SVG image. */
  NOT_AN_IMAGE: 'NOT_AN_IMAGE',
  /** view_image: the image is larger than the documented cap. */
  IMAGE_TOO_LARGE: 'IMAGE_TOO_LARGE',
  /** ripgrep failed for a reason other than the pattern. */
  SEARCH_FAILED: 'SEARCH_FAILED',
} as const;

export type FileToolErrorCode = (typeof FILE_TOOL_ERROR_CODES)[keyof typeof FILE_TOOL_ERROR_CODES];
