import path from 'node:path';

/** A workspace-relative path below `folder` ('.' for the root): `inFolder('pkg', 'go.mod')` is `pkg/go.mod`. */
export function inFolder(folder: string, relative: string): string {
  return path.posix.normalize(folder === '.' ? relative : `${folder}/${relative}`).replace(/^\.\//, '');
}

/** A scope as a folder path: '' for the workspace (no scope, or '.'), else without a trailing `/`. */
export function scopeFolder(scope: string | undefined): string {
  return scope === undefined || scope === '.' ? '' : scope.replace(/\/+$/, '');
}

/** `folder` and every folder above it up to the workspace root ('.'), nearest first. */
export function foldersUp(folder: string): string[] {
  const folders: string[] = [];
  for (let current = folder === '' ? '.' : folder; ; current = path.posix.dirname(current)) {
    folders.push(current);
    if (current === '.') break;
  }
  return folders;
}
