import { type CompiledGlob, compileGlob, GlobSyntaxError } from '@assistant-kit/kernel';
import { quoteArgument } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';

/**
 * A file selector with ripgrep's `--glob` meaning, so both search engines select the same files:
 * a glob without '/' matches a name at any depth ('*.ts'); one with '/' matches the path from
 * the workspace root ('src/**\/*.ts'); a leading '!' excludes what it matches (files and whole
 * folders) and selects everything else.
 */
export interface GlobFilter {
  /** The glob as given, for ripgrep. */
  glob: string;
  selectsFile(relativePath: string): boolean;
  /** False for folders a negated glob excludes (they are not walked at all). */
  entersDirectory(relativePath: string): boolean;
}

export function compileGlobFilter(glob: string): GlobFilter {
  const negated = glob.startsWith('!');
  let compiled: CompiledGlob;
  try {
    compiled = compileGlob(negated ? glob.slice(1) : glob);
  } catch (error) {
    const reason = error instanceof GlobSyntaxError ? `: ${quoteArgument(error.message)}` : '';
    throw fileToolError(
      'INVALID_GLOB',
      `The glob "${quoteArgument(glob)}" is empty or malformed${reason}; use a pattern such as '**/*.ts'.`,
      { cause: error, details: { glob: quoteArgument(glob) } },
    );
  }
  return {
    glob,
    selectsFile: (relativePath) =>
      negated ? !compiled.matches(relativePath) : compiled.matches(relativePath),
    entersDirectory: (relativePath) => !negated || !compiled.matches(relativePath),
  };
}
