import picomatch from 'picomatch';

/**
 * How a glob selects workspace-relative paths, the same way in every tool and as ripgrep's
 * `--glob` and `.gitignore` do: a glob without '/' matches a name at any depth (`*.ts`), one
 * with '/' matches from the workspace root (`src/**\/*.ts`); a leading `./` or `/` anchors
 * without changing the meaning, a trailing '/' names a folder, and dot files are matched.
 *
 * @internal
 */
export interface CompiledGlob {
  /** The glob as given. */
  readonly source: string;
  /** Whether the glob names paths from the root (it holds '/'). */
  readonly anchored: boolean;
  matches(relativePath: string): boolean;
}

/** Why a glob was refused: empty, holding a NUL byte, or malformed (with the parser's reason). */
export class GlobSyntaxError extends Error {
  override readonly name = 'GlobSyntaxError';
}

/**
 * Compiles a glob once; throws {@link GlobSyntaxError} for an empty or malformed glob, which
 * each family turns into its own code (e.g. `INVALID_GLOB`).
 */
export function compileGlob(glob: string): CompiledGlob {
  let body = glob.trim();
  if (body.startsWith('./')) body = body.slice(2);
  if (body.startsWith('/')) body = body.slice(1);
  if (body.endsWith('/')) body = body.slice(0, -1);
  if (body.length === 0 || glob.includes('\0')) {
    throw new GlobSyntaxError('the glob is empty or holds a NUL byte');
  }
  const anchored = body.includes('/');
  let matcher: (value: string) => boolean;
  try {
    matcher = picomatch(body, { dot: true, strictBrackets: true });
  } catch (error) {
    throw new GlobSyntaxError((error as Error).message, { cause: error });
  }
  return {
    source: glob,
    anchored,
    matches(relativePath) {
      if (anchored) return matcher(relativePath);
      const slash = relativePath.lastIndexOf('/');
      return matcher(slash === -1 ? relativePath : relativePath.slice(slash + 1));
    },
  };
}
