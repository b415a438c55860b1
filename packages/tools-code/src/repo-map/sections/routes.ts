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
  for (const file of applicationFiles) {
    for (const route of snapshot.analyses.get(file)?.routes ?? []) routes.push({ ...route, file });
  }
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
