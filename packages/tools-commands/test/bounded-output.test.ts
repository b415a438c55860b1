import { describe, expect, it } from 'vitest';
import { BoundedOutput } from '../src/process/bounded-output.js';

describe('BoundedOutput', () => {
  it('keeps everything under the cap', () => {
    const output = new BoundedOutput(100);
    output.append(Buffer.from('hello '));
    output.append(Buffer.from('world'));
    expect(output.text()).toBe('hello world');
    expect(output.truncated).toBe(false);
  });

  it('keeps head and tail across many chunks with bounded memory', () => {
    const output = new BoundedOutput(10);
    for (let index = 0; index < 1000; index++) output.append(Buffer.from(`${index % 10}`));
    expect(output.totalBytes).toBe(1000);
    expect(output.omittedBytes).toBe(990);
    const text = output.text('stdout');
    expect(text.startsWith('01234\n[990 bytes of stdout omitted')).toBe(true);
    expect(text.endsWith(']\n56789')).toBe(true);
  });

  it('never splits a UTF-8 character at the cut points', () => {
    const output = new BoundedOutput(7);
    output.append(Buffer.from('ééééééé'));
    const text = output.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('éé\n')).toBe(true);
    expect(text.endsWith(']\né')).toBe(true);
  });

  it('keeps a partial character for the next takeText', () => {
    const output = new BoundedOutput(100);
    const bytes = Buffer.from('a€');
    output.append(bytes.subarray(0, 2));
    expect(output.takeText()).toBe('a');
    output.append(bytes.subarray(2));
    expect(output.takeText()).toBe('€');
  });
});

describe('BoundedOutput spooling (issue 14: nothing a command prints is lost)', () => {
  it('spools every byte once the stream outgrows the cap, and nothing before that', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const output = new BoundedOutput(10, { spoolWhenCut: true });
    output.append(Buffer.from('abcde'));
    output.append(Buffer.from('fgh'));
    expect(output.truncated).toBe(false);
    output.append(Buffer.from('ijklmnop'));
    output.append(Buffer.from('qrstuvwxyz'));
    const spooled = output.spooled();
    expect(spooled).toBeDefined();
    expect(readFileSync(spooled!.file, 'utf8')).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(spooled!.complete).toBe(true);
    // The result text stays bounded.
    expect(output.text()).toContain('omitted from the middle');
    spooled!.remove();
    expect(existsSync(spooled!.file)).toBe(false);

    const short = new BoundedOutput(10, { spoolWhenCut: true });
    short.append(Buffer.from('abc'));
    expect(short.spooled()).toBeUndefined();
    const off = new BoundedOutput(10);
    off.append(Buffer.from('x'.repeat(50)));
    expect(off.spooled()).toBeUndefined();
  });
});
