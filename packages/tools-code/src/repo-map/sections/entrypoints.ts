import path from 'node:path';
import { readWorkspaceText } from '../../project/project-profile.js';
import { isApplicationCode } from '../application-code.js';

import { ENTRYPOINT_PATTERNS, packageEntrypoints } from '../repo-map-text.js';
import type { SectionInput } from './section.js';

/** The entrypoints section: the package entry points (package.json main, exports, bin) and conventionally named entry files. */
export async function entrypointsSection(input: SectionInput): Promise<void> {
  const { context, options, scope, files, fileSet, listed, structured, sections } = input;
  const entrypoints: { path: string; reason: string }[] = [];
  const relativeToScope = (file: string) => (scope === undefined ? file : file.slice(scope.length + 1));
  const byPath = input.derived('entrypoints by path', () => ({
    manifests: files.filter(
      (file) => path.posix.basename(file) === 'package.json' && file.split('/').length <= 3,
    ),
    conventional: files.filter(
      (file) =>
        isApplicationCode(file, scope) &&
        ENTRYPOINT_PATTERNS.some((pattern) => pattern.test(relativeToScope(file))),
    ),
  }));
  for (const manifest of byPath.manifests) {
    const json = await readWorkspaceText(context.workspace, manifest, listed.get(manifest)).then((text) => {
      try {
        return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        return undefined;
      }
    });
    if (json !== undefined)
      entrypoints.push(...packageEntrypoints(path.posix.dirname(manifest), json, fileSet));
  }
  for (const file of byPath.conventional)
    entrypoints.push({ path: file, reason: 'conventional entry file name' });
  const firstByPath = new Map<string, { path: string; reason: string }>();
  for (const entry of entrypoints) if (!firstByPath.has(entry.path)) firstByPath.set(entry.path, entry);
  const unique = [...firstByPath.values()].slice(0, options.maxResults);
  structured.entrypoints = unique;
  sections.push(
    [
      '## entrypoints',
      ...unique.map((entry) => `  ${entry.path} (${entry.reason})`),
      ...(unique.length === 0 ? ['  (none found)'] : []),
    ].join('\n'),
  );
}
