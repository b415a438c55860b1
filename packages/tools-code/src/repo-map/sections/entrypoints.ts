import path from 'node:path';
import { readWorkspaceText } from '../../project/project-profile.js';
import { isApplicationCode } from '../application-code.js';

import { ENTRYPOINT_PATTERNS, packageEntrypoints, pyprojectEntrypoints } from '../repo-map-text.js';
import type { SectionInput } from './section.js';

/**
 * `wsgi.py` and `asgi.py` start a server only where a web project keeps them: at the top of the
 * tree (Flask, gunicorn's `wsgi:app`) or beside a Django project's settings. Elsewhere they are a
 * library's modules: FastAPI's `fastapi/middleware/wsgi.py` is a middleware, werkzeug's
 * `src/werkzeug/wsgi.py` its WSGI helpers. Other names are not judged here.
 */
function isServerEntry(relative: string, hasSibling: (name: string) => boolean): boolean {
  if (!/(^|\/)(wsgi|asgi)\.py$/.test(relative)) return true;
  return !relative.includes('/') || hasSibling('settings.py') || hasSibling('settings/__init__.py');
}

/** The entrypoints section: the package entry points (package.json main, exports, bin) and conventionally named entry files. */
export async function entrypointsSection(input: SectionInput): Promise<void> {
  const { context, options, scope, files, fileSet, listed, structured, sections } = input;
  const entrypoints: { path: string; reason: string }[] = [];
  const relativeToScope = (file: string) => (scope === undefined ? file : file.slice(scope.length + 1));
  const byPath = input.derived('entrypoints by path', () => ({
    // An example's or a fixture's manifest names its own entry, not the project's (date-fns'
    // examples/*/package.json were its first three entry points).
    manifests: files.filter(
      (file) =>
        /^(package\.json|pyproject\.toml)$/.test(path.posix.basename(file)) &&
        file.split('/').length <= 3 &&
        isApplicationCode(file, scope),
    ),
    conventional: files.filter(
      (file) =>
        isApplicationCode(file, scope) &&
        ENTRYPOINT_PATTERNS.some((pattern) => pattern.test(relativeToScope(file))) &&
        isServerEntry(relativeToScope(file), (sibling) =>
          fileSet.has(path.posix.join(path.posix.dirname(file), sibling)),
        ),
    ),
  }));
  for (const manifest of byPath.manifests) {
    const text = await readWorkspaceText(context.workspace, manifest, listed.get(manifest));
    if (text === undefined) continue;
    if (manifest.endsWith('.toml')) {
      entrypoints.push(...pyprojectEntrypoints(path.posix.dirname(manifest), text, fileSet));
      continue;
    }
    const json = (() => {
      try {
        return JSON.parse(text) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    })();
    if (json !== null && typeof json === 'object')
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
