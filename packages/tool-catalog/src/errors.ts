import type { ErrorCodeTable } from '@assistant-kit/kernel';
import { type ToolError, type ToolErrorCode, toolErrorFactory } from '@assistant-kit/tool-core';

/** Codes the catalogue itself raises, on top of tool-core's and the families'. */
export type CatalogErrorCode =
  | 'CATALOG_CLOSED'
  | 'CATALOG_INCOMPLETE'
  | 'CLOSE_FAILED'
  | 'INVALID_CONFIGURATION'
  | 'INVALID_OPTIONS'
  | 'INVALID_PERMISSION_MODE'
  | 'INVALID_SETTINGS';

/** What each of the catalogue's codes means (the closed set; every code is listed). */
export const CATALOG_ERROR_CODES = {
  CATALOG_CLOSED: { description: 'The catalogue was closed; create a new one to call tools.' },
  CATALOG_INCOMPLETE: {
    description:
      'The families did not declare a consistent tool set (two tools with one SPEC position, or a gap in the order); a packaging error.',
  },
  CLOSE_FAILED: {
    description: 'One or more tool families failed to close cleanly; the cause lists each failure.',
  },
  INVALID_CONFIGURATION: { description: 'The configuration is not W, U or R.' },
  INVALID_OPTIONS: {
    description:
      'A catalogue option is not one the catalogue accepts (omitFamilies naming a family that cannot be left out).',
  },
  INVALID_PERMISSION_MODE: { description: 'The permission mode is not ask, auto, plan or full-access.' },
  INVALID_SETTINGS: {
    description: 'A catalogue setting is out of range (e.g. a non-positive execution timeout).',
  },
} as const satisfies ErrorCodeTable<CatalogErrorCode>;

/** An error the catalogue raises. */
export type CatalogError = ToolError<CatalogErrorCode | ToolErrorCode>;

/** Builds the catalogue's errors: its own codes or tool-core's shared ones. */
export const catalogError = toolErrorFactory<CatalogErrorCode>();
