import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInsideDirectory } from '../src/index.js';

/** The definition the fast path must agree with: path.relative, as before it existed. */
function insideByRelative(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

const SEGMENTS = ['ws', 'ws2', 'w', 'src', '..', '.', '', '..notes', '.hidden', 'a b', 'wsx'];

function randomPath(random: () => number, absolute: boolean): string {
  const count = 1 + Math.floor(random() * 5);
  const parts: string[] = [];
  for (let index = 0; index < count; index++) parts.push(SEGMENTS[Math.floor(random() * SEGMENTS.length)]!);
  const joined = parts.join('/');
  return absolute ? `/${joined}${random() < 0.2 ? '/' : ''}` : joined;
}

/** A small deterministic generator, so a failure names a case that can be run again. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('isInsideDirectory', () => {
  it('agrees with path.relative on 20,000 random roots and candidates (dot segments, doubled and trailing slashes, look-alike prefixes)', () => {
    const random = seeded(19);
    for (let run = 0; run < 20_000; run++) {
      const root = random() < 0.1 ? '/' : randomPath(random, true);
      const candidate =
        random() < 0.5
          ? `${root}${randomPath(random, false) === '' ? '' : `/${randomPath(random, false)}`}`
          : randomPath(random, random() < 0.9);
      expect([root, candidate, isInsideDirectory(root, candidate)]).toEqual([
        root,
        candidate,
        insideByRelative(root, candidate),
      ]);
    }
  });

  it('decides the usual cases', () => {
    expect(isInsideDirectory('/srv/ws', '/srv/ws')).toBe(true);
    expect(isInsideDirectory('/srv/ws', '/srv/ws/src/a.ts')).toBe(true);
    expect(isInsideDirectory('/srv/ws', '/srv/wsx/a.ts')).toBe(false);
    expect(isInsideDirectory('/srv/ws', '/srv/ws/../other')).toBe(false);
    expect(isInsideDirectory('/srv/ws', '/srv/ws/..notes')).toBe(true);
    expect(isInsideDirectory('/srv/ws', '/srv/ws/src/../../ws/a')).toBe(true);
    expect(isInsideDirectory('/srv/ws/', '/srv/ws')).toBe(true);
    expect(isInsideDirectory('/', '/anything')).toBe(true);
  });
});
