import path from 'node:path';
import { isAssetPath } from '../../languages.js';

import type { SectionInput } from './section.js';

/** The assets section: the non-code assets, by folder. */
export async function assetsSection(input: SectionInput): Promise<void> {
  const { options, files, structured, sections } = input;
  const { assets, byFolder } = input.derived('assets', () => {
    const assets = files.filter(isAssetPath);
    const byFolder = new Map<string, number>();
    for (const asset of assets)
      byFolder.set(path.posix.dirname(asset), (byFolder.get(path.posix.dirname(asset)) ?? 0) + 1);
    return { assets, byFolder };
  });
  const kept = assets.slice(0, options.maxFiles);
  structured.assets = { total: assets.length, folders: Object.fromEntries(byFolder), files: kept };
  sections.push(
    [
      '## assets',
      `${assets.length} asset files in ${byFolder.size} folders: ${
        [...byFolder]
          .map(([folder, count]) => `${folder}/ (${count})`)
          .slice(0, 20)
          .join(', ') || 'none'
      }`,
      ...kept.map((asset) => `  ${asset}`),
    ].join('\n'),
  );
}
