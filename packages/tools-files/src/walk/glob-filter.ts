import { GlobSyntaxError } from '@assistant-kit/kernel';
import { compileWalkGlob, quoteArgument, type WalkFilter } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';

/**
 * A file selector with ripgrep's `--glob` meaning (tool-core's walk glob), so both search engines
 * select the same files: a glob without '/' matches a name at any depth ('*.ts'); one with '/'
 * matches the path from the workspace root ('src/**\/*.ts'); a leading '!' excludes what it
 * matches (files and whole folders) and selects everything else.
 */
export interface GlobFilter extends WalkFilter {
  /** The glob as given, for ripgrep. */
  glob: string;
}

/** Compiles a glob argument; a malformed one is this family's INVALID_GLOB. */
export function compileGlobFilter(glob: string): GlobFilter {
  try {
    return compileWalkGlob(glob);
  } catch (error) {
    const reason = error instanceof GlobSyntaxError ? `: ${quoteArgument(error.message)}` : '';
    throw fileToolError(
      'INVALID_GLOB',
      `The glob "${quoteArgument(glob)}" is empty or malformed${reason}; use a pattern such as '**/*.ts'.`,
      { cause: error, details: { glob: quoteArgument(glob) } },
    );
  }
}
