import { describe, expect, it } from 'vitest';
import { WAITED_OUTPUT_CAP_CHARACTERS, WaitedOutput } from '../src/output/waited-output.js';

describe('WaitedOutput (what one wait_command call returns)', () => {
  it('keeps the first and last parts of a long stream and says how much of the middle was cut', () => {
    const waited = new WaitedOutput();
    const chunk = (letter: string) => ({ stdout: letter.repeat(40_000), stderr: '', omittedBytes: 0 });
    waited.append(chunk('a'));
    waited.append(chunk('b'));
    waited.append(chunk('c'));
    const half = WAITED_OUTPUT_CAP_CHARACTERS / 2;
    expect(waited.omitted).toEqual({ bytes: 0, characters: 120_000 - WAITED_OUTPUT_CAP_CHARACTERS });
    expect(waited.stdout.startsWith('a'.repeat(half))).toBe(true);
    expect(waited.stdout.endsWith('c'.repeat(half))).toBe(true);
    expect(waited.stdout).toContain(
      `[… ${120_000 - WAITED_OUTPUT_CAP_CHARACTERS} characters of stdout cut here …]`,
    );
    expect(waited.cutNote()).toContain('70000 characters were cut from the middle');
  });

  it('counts bytes the handle dropped, and matches a pattern split across chunks on either stream', () => {
    const waited = new WaitedOutput();
    expect(waited.append({ stdout: 'Listen', stderr: '', omittedBytes: 12 }, /Listening on \d+/)).toBe(false);
    expect(waited.append({ stdout: 'ing on 3000', stderr: '', omittedBytes: 0 }, /Listening on \d+/)).toBe(
      true,
    );
    expect(waited.append({ stdout: '', stderr: 'fatal: x', omittedBytes: 0 }, /^fatal/m)).toBe(true);
    expect(waited.omitted.bytes).toBe(12);
    expect(waited.cutNote()).toBe('[12 bytes were dropped before they were read (output cap)]');
    expect(new WaitedOutput().cutNote()).toBeUndefined();
  });
});
