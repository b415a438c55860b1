import { describe, expect, it } from 'vitest';
import type { CodeContext } from '../src/engine/code-context.js';
import { resolvePosition } from '../src/engine/symbol-queries.js';

// The context is read only to find a declaration, which a request with a line never needs.
const noContext = undefined as unknown as CodeContext;

describe('resolvePosition, a symbol not on the line given', () => {
  const text = Array.from({ length: 12 }, (_, index) =>
    index % 2 === 0 ? `use(item${index})` : 'item + 1',
  ).join('\n');

  it('names the nearest lines holding it, and how many there are in all', async () => {
    await expect(resolvePosition(noContext, 'a.py', text, { symbol: 'item', line: 7 })).rejects.toMatchObject(
      {
        code: 'SYMBOL_NOT_FOUND',
        message:
          '"item" does not occur on line 7 of "a.py"; it occurs on lines 2, 4, 6, 8, 10 (the 5 nearest of 6). Give one of them, or leave line out to use its declaration.',
        details: { occurs_on_lines: [2, 4, 6, 8, 10] },
      },
    );
  });

  it('finds it on the line when it is there, as a whole word only', async () => {
    await expect(resolvePosition(noContext, 'a.py', text, { symbol: 'item', line: 2 })).resolves.toEqual({
      line: 1,
      character: 0,
    });
    await expect(
      resolvePosition(noContext, 'a.py', text, { symbol: 'item0', line: 3 }),
    ).rejects.toMatchObject({
      message:
        '"item0" does not occur on line 3 of "a.py"; it occurs on line 1. Give that line, or leave line out to use its declaration.',
      details: { occurs_on_lines: [1] },
    });
  });
});
