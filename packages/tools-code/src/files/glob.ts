import { compileGlob } from '@assistant-kit/kernel';
import { invalidArguments } from '@assistant-kit/tool-core';

/**
 * A matcher for a user-supplied glob over workspace-relative paths, with the kernel's one glob
 * meaning (a glob without '/' matches file names anywhere, as in .gitignore, so `*.ts` finds
 * every TypeScript file). No glob (or a blank one) matches everything.
 */
export function globMatcher(glob: string | undefined): (relativePath: string) => boolean {
  if (glob === undefined || glob.trim() === '') return () => true;
  try {
    const compiled = compileGlob(glob);
    return (relativePath) => compiled.matches(relativePath);
  } catch (error) {
    throw invalidArguments(
      `The glob "${glob.slice(0, 200)}" is malformed; use a pattern such as '**/*.ts'.`,
      [{ path: '/glob', message: 'is not a valid glob' }],
      { cause: error },
    );
  }
}
