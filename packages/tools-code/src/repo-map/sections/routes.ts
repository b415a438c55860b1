import path from 'node:path';
import { isTestFile } from '../../project/test-files.js';
import { isApplicationCode } from '../application-code.js';

import type { SectionInput } from './section.js';

/** Folders of templates and fragments, whose HTML is no page of its own. */
const TEMPLATE_FOLDER = /(^|\/)(templates?|_?layouts|_?includes|partials|views|components)\//;

/** The routes section: the HTTP routes the application declares (not those of test servers or helpers). */
export async function routesSection(input: SectionInput): Promise<void> {
  const { options, scope, files, snapshot, structured, sections } = input;
  const routes: { method: string; path: string; file: string; line?: number }[] = [];
  // Routes of test servers, test helpers and fixture applications are not the application's.
  const applicationFiles = input.derived('files outside tests', () =>
    files.filter((file) => isApplicationCode(file, scope)),
  );
  const declared: { method: string; path: string; file: string; line: number; target?: string }[] = [];
  for (const file of applicationFiles) {
    for (const route of snapshot.analyses.get(file)?.routes ?? []) declared.push({ ...route, file });
  }
  routes.push(...mountDjangoIncludes(declared, input.fileSet));
  routes.push(...input.derived('routes from paths', () => routesFromPaths(applicationFiles)));
  routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  const kept = routes.slice(0, options.maxResults);
  structured.routes = kept;
  sections.push(
    [
      '## routes',
      ...kept.map(
        (route) =>
          `  ${route.method} ${route.path}  ${route.file}${route.line === undefined ? '' : `:${route.line}`}`,
      ),
      ...(routes.length > kept.length ? [`  [${routes.length - kept.length} more: raise max_results]`] : []),
      ...(routes.length === 0 ? ['  (none found)'] : []),
    ].join('\n'),
  );
}

/**
 * Django's URL patterns below the prefixes their modules are included at: djangoproject.com's
 * `path("community/", include("aggregator.urls"))` serves aggregator/urls.py's `"<slug>/"` at
 * `/community/<slug>/`. A module no include names is served at the root; one included at
 * several prefixes is listed under each. Other routes pass through.
 */
function mountDjangoIncludes(
  declared: readonly { method: string; path: string; file: string; line: number; target?: string }[],
  fileSet: ReadonlySet<string>,
): { method: string; path: string; file: string; line: number }[] {
  const includes = declared.filter((route) => route.method === 'INCLUDE' && route.target !== undefined);
  const plain = declared.filter((route) => route.method !== 'INCLUDE');
  /** The file a dotted module names, looked up from the including file's folders upwards. */
  const moduleFile = (dotted: string, from: string): string | undefined => {
    const modulePath = dotted.replace(/\./g, '/');
    const folders = from.split('/').slice(0, -1);
    for (let depth = folders.length; depth >= 0; depth--) {
      const base = folders.slice(0, depth).join('/');
      for (const candidate of [`${modulePath}.py`, `${modulePath}/__init__.py`]) {
        const file = base === '' ? candidate : `${base}/${candidate}`;
        if (fileSet.has(file)) return file;
      }
    }
    return undefined;
  };
  const mounts = new Map<string, { file: string; prefix: string }[]>();
  for (const include of includes) {
    const file = moduleFile(include.target!, include.file);
    if (file === undefined || file === include.file) continue;
    mounts.set(include.file, [...(mounts.get(include.file) ?? []), { file, prefix: include.path }]);
  }
  const included = new Set([...mounts.values()].flat().map((mount) => mount.file));
  // Prefixes of each URL module, from the modules nothing includes (the root URLconf) down.
  const prefixes = new Map<string, string[]>();
  const queue = [...new Set(declared.map((route) => route.file))]
    .filter((file) => !included.has(file))
    .map((file) => ({ file, prefix: '/' }));
  while (queue.length > 0) {
    const { file, prefix } = queue.shift()!;
    const known = prefixes.get(file) ?? [];
    if (known.includes(prefix) || known.length >= 8) continue;
    prefixes.set(file, [...known, prefix]);
    for (const mount of mounts.get(file) ?? [])
      queue.push({ file: mount.file, prefix: `${prefix}${mount.prefix}` });
  }
  return plain.flatMap(({ target: _target, ...route }) =>
    /\.py$/.test(route.file) && !route.path.startsWith('/')
      ? (prefixes.get(route.file) ?? ['/']).map((prefix) => ({ ...route, path: `${prefix}${route.path}` }))
      : [route],
  );
}

/** Routes that files declare by their path (Next.js app and pages folders, static HTML pages). */
function routesFromPaths(files: readonly string[]): { method: string; path: string; file: string }[] {
  const routes: { method: string; path: string; file: string }[] = [];
  for (const file of files) {
    const next = /(^|\/)app\/(.*\/)?(page|route)\.[cm]?[jt]sx?$/.exec(file);
    if (next !== null) {
      routes.push({
        method: next[3] === 'page' ? 'PAGE' : 'ANY',
        path: `/${(next[2] ?? '').replace(/\/$/, '').replace(/\([^)]*\)\/?/g, '')}`,
        file,
      });
      continue;
    }
    const pages = /(^|\/)pages\/(.+)\.[cm]?[jt]sx?$/.exec(file);
    if (pages !== null && !/^_/.test(path.posix.basename(pages[2]!))) {
      routes.push({
        method: pages[2]!.startsWith('api/') ? 'ANY' : 'PAGE',
        path: `/${pages[2]!.replace(/(^|\/)index$/, '')}`,
        file,
      });
      continue;
    }
    // A server's templates (Django's and Flask's templates/, a static site's layouts and
    // includes) are rendered into pages, not served at their own paths: djangoproject.com's
    // `templates/400.html` was listed as the page /djangoproject/templates/400.html.
    if (/\.html?$/i.test(file) && !isTestFile(file) && !TEMPLATE_FOLDER.test(file))
      routes.push({ method: 'PAGE', path: `/${file.replace(/(^|\/)index\.html?$/i, '$1')}`, file });
  }
  return routes;
}
