import picomatch from 'picomatch';

/**
 * A matcher for a user-supplied glob over workspace-relative paths. A glob without a '/' matches
 * file names anywhere (as in .gitignore), so `*.ts` finds every TypeScript file.
 */
export function globMatcher(glob: string | undefined): (relativePath: string) => boolean {
  if (glob === undefined || glob.trim() === '') return () => true;
  const matcher = picomatch(glob.trim(), { dot: true, basename: !glob.includes('/') });
  return (relativePath) => matcher(relativePath);
}
