import { describe, expect, it } from 'vitest';
import {
  NAMES_NOT_UTF8_SHOWN,
  namesNotUtf8Clause,
  namesNotUtf8Field,
  namesNotUtf8Note,
  namesNotUtf8Report,
} from '../src/index.js';

describe('what an answer says it left out for names that are not UTF-8', () => {
  it('orders by bytes, quotes as git does, counts each path once and shows the first 20', () => {
    // In bytes 0xE9 < 0xEA, and both sort after every ASCII name; 'Z/' stays a folder.
    const paths = ['caf\uDCEA.txt', 'Z\uDCE9/', 'caf\uDCE9.txt', 'caf\uDCE9.txt'];
    expect(namesNotUtf8Report(paths)).toEqual({
      count: 3,
      paths: ['"Z\\351/"', '"caf\\351.txt"', '"caf\\352.txt"'],
    });
    const many = Array.from({ length: 30 }, (_, index) => `f${String(index).padStart(2, '0')}\uDCE9`);
    const report = namesNotUtf8Report(many)!;
    expect(report.count).toBe(30);
    expect(report.paths).toHaveLength(NAMES_NOT_UTF8_SHOWN);
    expect(namesNotUtf8Report([])).toBeUndefined();
    expect(namesNotUtf8Field(undefined)).toEqual({});
  });

  it('words the first line and the note for one and for many', () => {
    const one = namesNotUtf8Report(['caf\uDCE9.txt'])!;
    expect(namesNotUtf8Clause(one, { one: 'entry', many: 'entries' })).toBe(
      '1 entry left out: its name is not UTF-8',
    );
    expect(namesNotUtf8Note(one, { one: 'file', many: 'files' })).toBe(
      '[1 file left out: its name is not UTF-8, which file tools cannot open (a command can rename it): "caf\\351.txt"]',
    );
    const seven = namesNotUtf8Report(Array.from({ length: 7 }, (_, index) => `${index}\uDCE9`))!;
    expect(namesNotUtf8Note(seven, { one: 'file', many: 'files' })).toBe(
      '[7 files left out: their names are not UTF-8, which file tools cannot open (a command can rename them): "0\\351", "1\\351", "2\\351", "3\\351", "4\\351", and 2 more]',
    );
  });
});
