import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 17: every published package names its repository (provenance needs it), homepage, bug
// tracker and keywords. The address is written once, in the root manifest; each package must
// point at it with its own folder, so moving the repository is a change a test follows.

const root = fileURLToPath(new URL('../', import.meta.url));

interface Manifest {
  name: string;
  private?: boolean;
  keywords?: string[];
  homepage?: string;
  bugs?: { url?: string };
  repository?: { type?: string; url?: string; directory?: string };
}

const rootManifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
const repositoryUrl = rootManifest.repository?.url ?? '';
const web = repositoryUrl.replace(/^git\+/, '').replace(/\.git$/, '');

const packages = readdirSync(path.join(root, 'packages')).map((folder) => ({
  folder,
  manifest: JSON.parse(readFileSync(path.join(root, 'packages', folder, 'package.json'), 'utf8')) as Manifest,
}));

describe('package metadata', () => {
  it('the root names one git repository', () => {
    expect(repositoryUrl).toMatch(/^git\+https:\/\/.+\.git$/);
  });

  it.each(packages)(
    '$manifest.name names the repository, its folder, homepage, bugs and keywords',
    ({ folder, manifest }) => {
      expect(manifest.private).not.toBe(true);
      expect(manifest.repository).toEqual({
        type: 'git',
        url: repositoryUrl,
        directory: `packages/${folder}`,
      });
      expect(manifest.homepage).toBe(`${web}/tree/main/packages/${folder}#readme`);
      expect(manifest.bugs).toEqual({ url: `${web}/issues` });
      expect(manifest.keywords).toContain('assistant-kit');
      expect(manifest.keywords!.length).toBeGreaterThan(1);
    },
  );
});
