// Paths here are relative to the workspace and `/`-separated, as git writes them.

/** The folders above `file`, the top one first: `a/b/c.txt` gives `a`, then `a/b`. */
export function* foldersAbove(file: string): Generator<string> {
  for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1))
    yield file.slice(0, slash);
}

/** Whether `file` is one of `paths` or lies under one of them. */
export function isUnderAny(file: string, paths: readonly string[]): boolean {
  return paths.some((prefix) => file === prefix || file.startsWith(`${prefix}/`));
}
