import { quoteArgument } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';

/**
 * Compiles a search pattern for the TypeScript engine. ripgrep's syntax (Rust regex) and
 * JavaScript's share the common subset; leading inline flags such as `(?i)` are translated, and
 * Unicode mode is used when the pattern allows it (as in Rust).
 */
export function compileSearchRegex(pattern: string, extraFlags = ''): RegExp {
  let body = pattern;
  let flags = extraFlags;
  const inline = /^\(\?([ims]+)\)/.exec(body);
  if (inline !== null) {
    body = body.slice(inline[0].length);
    for (const flag of inline[1]!) if (!flags.includes(flag)) flags += flag;
  }
  try {
    return new RegExp(body, `${flags}u`);
  } catch {
    try {
      return new RegExp(body, flags);
    } catch (error) {
      throw fileToolError(
        'INVALID_REGEX',
        `The pattern does not compile: ${describeRegexError(error as Error, body)}`,
        {
          cause: error,
          details: { pattern: quoteArgument(pattern) },
        },
      );
    }
  }
}

/** Escapes text so a regular expression matches it literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** JavaScript's message quotes the whole pattern (`Invalid regular expression: /…/u: …`): bound it. */
function describeRegexError(error: Error, body: string): string {
  return quoteArgument(error.message.split(body).join(quoteArgument(body, 80)), 400);
}
