/** Escapes one reference token of a JSON Pointer (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Joins a JSON Pointer and one more token. */
export function appendPointer(pointer: string, token: string | number): string {
  return `${pointer}/${escapePointerToken(String(token))}`;
}
