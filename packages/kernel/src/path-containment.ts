import path from 'node:path';

const SLASH = 47;
/** An empty, `.` or `..` segment: a path path.relative would first normalise. */
const NOT_NORMALISED = /\/\/|\/\.\.?(?:\/|$)/;

/** True when `candidate` is `root` itself or lies below it (never a prefix look-alike). */
export function isInsideDirectory(root: string, candidate: string): boolean {
  // Normalised absolute POSIX paths (what realpath, the kernel and a server's URIs give): a prefix
  // check decides, in a fraction of what path.relative costs. Anything else takes path.relative.
  if (
    path.sep === '/' &&
    root.length > 1 &&
    root.charCodeAt(0) === SLASH &&
    candidate.charCodeAt(0) === SLASH &&
    root.charCodeAt(root.length - 1) !== SLASH &&
    !NOT_NORMALISED.test(root) &&
    !NOT_NORMALISED.test(candidate)
  ) {
    return (
      candidate.startsWith(root) &&
      (candidate.length === root.length || candidate.charCodeAt(root.length) === SLASH)
    );
  }
  const relative = path.relative(root, candidate);
  // Only a '..' segment leaves the root; a name that merely starts with '..' ("..notes") is inside.
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}
