import { quoteArgument } from '@assistant-kit/tool-core';
import picomatch from 'picomatch';
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
  let body = negated ? glob.slice(1) : glob;
  if (body.startsWith('./')) body = body.slice(2);
  if (body.startsWith('/')) body = body.slice(1);
  if (body.endsWith('/')) body = body.slice(0, -1);
  if (body.length === 0 || glob.includes('\0')) {
    throw fileToolError(
      'INVALID_GLOB',
      `The glob "${quoteArgument(glob)}" is empty or malformed; use a pattern such as '**/*.ts'.`,
      {
        details: { glob: quoteArgument(glob) },
      },
    );
  }
  const anchored = body.includes('/');
  let matcher: (value: string) => boolean;
  try {
    matcher = picomatch(body, { dot: true, strictBrackets: true });
  } catch (error) {
    throw fileToolError(
      'INVALID_GLOB',
      `The glob "${quoteArgument(glob)}" is malformed: ${quoteArgument((error as Error).message)}`,
      {
        cause: error,
        details: { glob: quoteArgument(glob) },
      },
    );
  }
  const matches = (relativePath: string) => {
    if (anchored) return matcher(relativePath);
    const slash = relativePath.lastIndexOf('/');
    return matcher(slash === -1 ? relativePath : relativePath.slice(slash + 1));
  };
  return {
    glob,
    selectsFile: (relativePath) => (negated ? !matches(relativePath) : matches(relativePath)),
    entersDirectory: (relativePath) => !negated || !matches(relativePath),
  };
}
