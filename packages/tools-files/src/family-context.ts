import { cutOutput, invalidArguments, type ToolCallContext } from '@assistant-kit/tool-core';
import type { ResolvedFileToolsOptions } from './options.js';
import type { SearchService } from './search/search-service.js';
import type { EncodingMemory } from './text/encoding-memory.js';

/** What every tool of the family shares within one workspace session. */
export interface FamilyContext {
  options: ResolvedFileToolsOptions;
  encodingMemory: EncodingMemory;
  search: SearchService;
}

/**
 * Reads an optional integer argument the schema has typed but not bounded (SPEC 8 states no
 * bounds for these tools): below `minimum` is an INVALID_ARGUMENTS error, above `cap` is lowered
 * to the cap and reported through `capped`.
 */
export function integerArgument(
  name: string,
  value: number | undefined,
  settings: { minimum: number; fallback: number; cap: number },
): { value: number; capped: boolean } {
  if (value === undefined) return { value: Math.min(settings.fallback, settings.cap), capped: false };
  if (value < settings.minimum) {
    throw invalidArguments(`${name} must be at least ${settings.minimum} (got ${value}).`, [
      { path: `/${name}`, message: `must be at least ${settings.minimum}` },
    ]);
  }
  if (value > settings.cap) return { value: settings.cap, capped: true };
  return { value, capped: false };
}

/** Cuts one line for display, saying how much was left out. */
export function cutLine(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  return `${text.slice(0, maxCharacters)}… [line cut: ${text.length - maxCharacters} more characters]`;
}

/** Applies the family's cap on a result's text; what it cuts is kept for read_file to page through. */
export async function capOutput(
  context: Pick<ToolCallContext, 'keepOutput'>,
  text: string,
  maxCharacters: number,
): Promise<{ text: string; truncated: boolean }> {
  const cut = await cutOutput(context.keepOutput, text, maxCharacters);
  return { text: cut.text, truncated: cut.truncated };
}

/** 1-based line number of each character offset (offsets ascending). */
export function lineNumbersOf(text: string, offsets: readonly number[]): number[] {
  const numbers: number[] = [];
  let line = 1;
  let position = 0;
  for (const offset of offsets) {
    let index = text.indexOf('\n', position);
    while (index !== -1 && index < offset) {
      line += 1;
      position = index + 1;
      index = text.indexOf('\n', position);
    }
    numbers.push(line);
  }
  return numbers;
}

/** Offsets of every non-overlapping occurrence of `needle` in `text`. */
export function findOccurrences(text: string, needle: string): number[] {
  const offsets: number[] = [];
  if (needle.length === 0) return offsets;
  let index = text.indexOf(needle);
  while (index !== -1) {
    offsets.push(index);
    index = text.indexOf(needle, index + needle.length);
  }
  return offsets;
}

/** The text of the line holding `offset` (line break excluded). */
export function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  let end = text.indexOf('\n', offset);
  if (end === -1) end = text.length;
  const line = text.slice(start, end);
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Line numbers padded like `cat -n`, a tab, then the line. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, ' ')}\t${text}`;
}
