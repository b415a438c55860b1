import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  AssistantKitError,
  codesOf,
  compileGlob,
  type ErrorCodeTable,
  GlobSyntaxError,
  importOptional,
  isAssistantKitError,
  isPermissionMode,
  KeyedTaskQueue,
  TaskQueue,
} from '../src/index.js';

describe('the error brand', () => {
  it('recognises an error of another copy of the package by its Symbol.for brand, not instanceof', () => {
    // A second copy (another installed version, a bundle) defines its own class with the same brand.
    const foreign = runInNewContext(`
      const brand = Symbol.for('assistant-kit.error');
      const error = new Error('from another copy');
      error.code = 'STORAGE_FAILED';
      Object.defineProperty(error, brand, { value: true });
      error;
    `) as unknown;
    expect(foreign instanceof AssistantKitError).toBe(false);
    expect(isAssistantKitError(foreign)).toBe(true);
    expect(isAssistantKitError(foreign, 'STORAGE_FAILED')).toBe(true);
    expect(isAssistantKitError(foreign, 'NOT_FOUND')).toBe(false);
  });

  it('narrows the code without a cast and refuses look-alikes without the brand', () => {
    const error: unknown = new AssistantKitError('SAVE_CONFLICT', 'saved elsewhere');
    if (!isAssistantKitError(error, 'SAVE_CONFLICT')) throw new Error('expected the brand');
    const code: 'SAVE_CONFLICT' = error.code;
    expect(code).toBe('SAVE_CONFLICT');
    expect(isAssistantKitError(Object.assign(new Error('x'), { code: 'SAVE_CONFLICT' }))).toBe(false);
    expect(isAssistantKitError(null)).toBe(false);
    expect(isAssistantKitError('SAVE_CONFLICT')).toBe(false);
  });

  it('lists the codes of a closed table in declaration order', () => {
    type Code = 'A' | 'B';
    const table = {
      A: { description: 'first' },
      B: { description: 'second', status: 409 },
    } as const satisfies ErrorCodeTable<Code>;
    expect(codesOf(table)).toEqual(['A', 'B']);
  });
});

describe('task queues', () => {
  it('runs one task at a time in arrival order, and a failure does not block the next', async () => {
    const queue = new TaskQueue();
    const events: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task('a')),
      queue.run(task('b', true)),
      queue.run(task('c')),
    ]);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(queue.pending).toBe(0);
  });

  it('serialises per key, runs different keys concurrently, and forgets idle keys', async () => {
    const queue = new KeyedTaskQueue();
    const running = new Set<string>();
    let overlapSameKey = false;
    let overlapOtherKeys = false;
    const task = (key: string) => async () => {
      if (running.has(key)) overlapSameKey = true;
      running.add(key);
      if (running.size > 1) overlapOtherKeys = true;
      await new Promise((resolve) => setImmediate(resolve));
      running.delete(key);
    };
    await Promise.all([queue.run('x', task('x')), queue.run('x', task('x')), queue.run('y', task('y'))]);
    expect(overlapSameKey).toBe(false);
    expect(overlapOtherKeys).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.busyKeys).toBe(0);
  });
});

describe('compileGlob', () => {
  it('matches a name at any depth without a slash and from the root with one, dot files included', () => {
    expect(compileGlob('*.ts').matches('src/deep/a.ts')).toBe(true);
    expect(compileGlob('*.ts').matches('src/a.tsx')).toBe(false);
    expect(compileGlob('src/**/*.ts').matches('src/a/b.ts')).toBe(true);
    expect(compileGlob('src/**/*.ts').matches('lib/src/b.ts')).toBe(false);
    expect(compileGlob('./src/*.ts').matches('src/b.ts')).toBe(true);
    expect(compileGlob('*.env').matches('config/.env')).toBe(true);
    expect(compileGlob('.env*').matches('config/.env.local')).toBe(true);
  });

  it('refuses empty and malformed globs with a GlobSyntaxError', () => {
    expect(() => compileGlob('')).toThrow(GlobSyntaxError);
    expect(() => compileGlob('a\0b')).toThrow(GlobSyntaxError);
    expect(() => compileGlob('[abc')).toThrow(GlobSyntaxError);
  });
});

describe('importOptional', () => {
  it('tells a missing package from one that loads, and unwraps a CommonJS default export', async () => {
    const missing = await importOptional(() => import('assistant-kit-no-such-package' as string), {
      packageName: 'assistant-kit-no-such-package',
      onFailure: (failure) => new Error(`install it (${failure})`),
    }).catch((error: Error) => error.message);
    expect(missing).toBe('install it (missing)');
    const picomatch = await importOptional<{ isMatch: (a: string, b: string) => boolean }>(
      () => import('picomatch'),
      { packageName: 'picomatch', expect: 'isMatch', onFailure: () => new Error('unexpected') },
    );
    expect(picomatch.isMatch('a.ts', '*.ts')).toBe(true);
  });

  it('reports a package that throws while loading as broken, with the original error as cause', async () => {
    const cause = new Error('native addon built for another Node');
    const error = await importOptional<object>(() => Promise.reject(cause), {
      packageName: 'keytar',
      onFailure: (failure, original) => new Error(failure, { cause: original }),
    }).then(
      () => new Error('expected a failure'),
      (caught: Error) => caught,
    );
    expect(error.message).toBe('broken');
    expect(error.cause).toBe(cause);
  });
});

it('knows the four permission modes', () => {
  expect(['ask', 'auto', 'plan', 'full-access'].every(isPermissionMode)).toBe(true);
  expect(isPermissionMode('yolo')).toBe(false);
});

it('creates missing folders for an atomic write', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'ak-kernel-'));
  try {
    const { writeFileAtomic } = await import('../src/index.js');
    await writeFileAtomic(join(directory, 'a', 'b.txt'), 'x');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
