import path from 'node:path';
import { tomlTable } from '../project/python-source-roots.js';

export const INSTRUCTION_FILES =
  /^(README(\.[a-z]+)?|AGENTS\.md|CLAUDE\.md|GEMINI\.md|CONTRIBUTING\.md|CONVENTIONS\.md|\.cursorrules|\.windsurfrules|copilot-instructions\.md)$/i;
export const NESTED_INSTRUCTION_FILES = /^(AGENTS\.md|CLAUDE\.md)$/;
export const ENTRYPOINT_PATTERNS = [
  /^(src\/)?(index|main|app|server|cli)\.[cm]?[jt]sx?$/,
  /^[^/]+\/(src\/)?(index|main|app|server|cli)\.[cm]?[jt]sx?$/,
  // Not inside a private package: httpx's `_transports/asgi.py` is a transport, not the app.
  /^(?:(?:[^_/][^/]*|__\w+__)\/)*(__main__|main|app|manage|wsgi|asgi)\.py$/,
  /(^|\/)main\.go$/,
  /(^|\/)src\/(main|lib)\.rs$/,
  /^([^/]+\/)?index\.html?$/,
];

/** Characters of an instruction file's summary. */
export const SUMMARY_CHARACTERS = 200;

/**
 * What a README or instructions file is about: its first prose paragraph. HTML blocks, badges,
 * headings, code fences, tables and link-only lines are skipped (a README often opens with a logo
 * in HTML and a row of badges); a blockquote tagline counts as prose.
 */
export function proseSummary(text: string): string {
  const withoutHtml = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/^<(\w+)[^>]*>[\s\S]*?^<\/\1>\s*$/gm, '');
  const paragraphs = withoutHtml.split(/\n\s*\n/);
  for (const paragraph of paragraphs) {
    const lines = paragraph
      .split('\n')
      .map((line) => line.trim().replace(/^>\s?/, ''))
      .filter(
        (line) =>
          line !== '' &&
          !/^</.test(line) &&
          !/^#{1,6}\s/.test(line) &&
          !/^[|=-]/.test(line) &&
          !/^(\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)\s*|!\[[^\]]*\]\([^)]*\)\s*|\[[^\]]*\]\([^)]*\)\s*)+$/.test(
            line,
          ),
      );
    const prose = lines
      .join(' ')
      .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (/[A-Za-z]{3,}/.test(prose))
      return prose.length > SUMMARY_CHARACTERS ? `${prose.slice(0, SUMMARY_CHARACTERS - 1)}…` : prose;
  }
  return '';
}

/**
 * The source file a package's build output comes from, when the output is not in the tree (it is
 * usually ignored): `dist/`, `lib/` or `build/` read as `src/`, and a `.js` as `.ts`, `.tsx` or itself.
 */
function sourceOfBuildOutput(output: string, files: ReadonlySet<string>): string | undefined {
  const inSource = output.replace(/^(.*\/)?(dist|lib|build)\//, '$1src/');
  const stem = inSource.replace(/\.(m|c)?js$/, '');
  const candidates = stem === inSource ? [inSource] : [`${stem}.ts`, `${stem}.tsx`, inSource];
  return candidates.find((candidate) => candidate !== output && files.has(candidate));
}

/**
 * The modules a pyproject.toml's console scripts start (`[project.scripts]`, Poetry's
 * `[tool.poetry.scripts]`): `httpx = "httpx:main"` starts httpx/__init__.py, in the project's
 * folder or its `src/`.
 */
export function pyprojectEntrypoints(
  folder: string,
  text: string,
  files: ReadonlySet<string>,
): { path: string; reason: string }[] {
  const found: { path: string; reason: string }[] = [];
  for (const table of ['project.scripts', 'tool.poetry.scripts']) {
    const body = tomlTable(text, table);
    for (const match of body?.matchAll(/^\s*["']?([\w.-]+)["']?\s*=\s*["']([\w.]+)(?::[\w.]+)?["']/gm) ??
      []) {
      const modulePath = match[2]!.replace(/\./g, '/');
      const candidates = ['', 'src/'].flatMap((root) => [
        `${root}${modulePath}.py`,
        `${root}${modulePath}/__init__.py`,
      ]);
      const file = candidates
        .map((candidate) => (folder === '.' ? candidate : `${folder}/${candidate}`))
        .find((candidate) => files.has(candidate));
      if (file !== undefined) found.push({ path: file, reason: `pyproject.toml script ${match[1]}` });
    }
  }
  // A library's entry is the package it installs, named after the project: psf/requests (no
  // console script) had no entry point at all, where package.json's `main` gives a JavaScript
  // library one. `python-dateutil` installs `dateutil`; names are normalised as pip does.
  const name = pyprojectName(text);
  if (name !== undefined) {
    const normalised = name.toLowerCase().replace(/[-.]+/g, '_');
    const packages = [normalised, normalised.replace(/^py(thon)?_/, '')];
    const file = [...new Set(packages)]
      .flatMap((module) =>
        ['', 'src/'].flatMap((root) => [`${root}${module}/__init__.py`, `${root}${module}.py`]),
      )
      .map((candidate) => (folder === '.' ? candidate : `${folder}/${candidate}`))
      .find((candidate) => files.has(candidate));
    if (file !== undefined)
      found.push({ path: file, reason: `pyproject.toml project ${name}, the package it installs` });
  }
  return found;
}

/** The project's name in a pyproject.toml (`[project]`, or Poetry's `[tool.poetry]`). */
function pyprojectName(text: string): string | undefined {
  for (const table of ['project', 'tool.poetry']) {
    const match = tomlTable(text, table)?.match(/^\s*name\s*=\s*["']([\w.-]+)["']/m);
    if (match !== null && match !== undefined) return match[1];
  }
  return undefined;
}

export function packageEntrypoints(
  folder: string,
  json: Record<string, unknown>,
  files: ReadonlySet<string>,
): { path: string; reason: string }[] {
  const found: { path: string; reason: string }[] = [];
  const add = (value: unknown, reason: string) => {
    if (typeof value === 'string') {
      const joined = path.posix.normalize(path.posix.join(folder, value));
      // `"./package.json": "./package.json"` only exposes the manifest to tools: not an entry point.
      if (path.posix.basename(joined) === 'package.json') return;
      if (files.has(joined)) found.push({ path: joined, reason });
      else {
        const source = sourceOfBuildOutput(joined, files);
        if (source !== undefined) found.push({ path: source, reason: `${reason} (source of ${joined})` });
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, nested] of Object.entries(value)) if (key !== 'types') add(nested, reason);
    }
  };
  add(json.main, 'package.json main');
  add(json.module, 'package.json module');
  add(json.bin, 'package.json bin');
  add(json.exports, 'package.json exports');
  return found;
}
