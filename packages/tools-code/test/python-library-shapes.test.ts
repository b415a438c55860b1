import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyzeText } from '../src/syntax/analyze-file.js';
import {
  callOk,
  type FixtureSession,
  openWrittenProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const symbolsOf = async (text: string) =>
  (await analyzeText('pkg/models.py', text))!.symbols.map(
    (symbol) =>
      `${symbol.kind} ${symbol.container === undefined ? '' : `${symbol.container}.`}${symbol.name}`,
  );

// On python-attrs/attrs and encode/httpx (fetched for the probe, not kept), the map's module lines
// read `class Attribute, variable Attribute, class Factory, variable Factory` and spent a place
// of twelve on `variable __all__`.
describe("a Python module's symbols", () => {
  it('takes a name rebound after its declaration for one symbol', async () => {
    const source = [
      'class Attribute:',
      '    slots = ()',
      '    slots = ("name",)',
      '',
      'Attribute = _add_hash(_add_repr(Attribute))',
      '',
      'try:',
      '    import json',
      'except ImportError:',
      '    json = None',
      '',
      'TIMEOUT = 5',
      'TIMEOUT = 10',
      '',
      'def build():',
      '    build = 1',
      '    return build',
      '',
    ].join('\n');
    expect(await symbolsOf(source)).toEqual([
      'class Attribute',
      'property Attribute.slots',
      'variable json',
      'constant TIMEOUT',
      'function build',
    ]);
  });

  it("leaves a module's dunder settings out, and keeps a class's", async () => {
    const source = [
      '__all__ = ["Client"]',
      '__version__ = "1.0"',
      'class Client:',
      '    __slots__ = ("url",)',
      '    def __iter__(self):',
      '        return iter(())',
    ].join('\n');
    expect(await symbolsOf(source)).toEqual([
      'class Client',
      'property Client.__slots__',
      'method Client.__iter__',
    ]);
  });
});

describe('a Python library: its related tests and entry points', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('py-library-shapes', {
      'pyproject.toml': [
        '[project]',
        'name = "fetcher"',
        '',
        '[project.scripts]',
        'fetcher = "fetcher:main"',
        'fetch-debug = "fetcher.debug.tools:run"',
      ].join('\n'),
      'fetcher/__init__.py': 'from fetcher._urls import URL\n\n\ndef main():\n    print(URL("x"))\n',
      'fetcher/_urls.py': [
        'class URL:',
        '    def __init__(self, raw):',
        '        self.raw = raw',
        '',
        '    def __iter__(self):',
        '        return iter(self.raw)',
        '',
        '    def copy_with(self, raw):',
        '        return URL(raw)',
      ].join('\n'),
      'fetcher/debug/__init__.py': '',
      'fetcher/debug/tools.py': 'def run():\n    pass\n',
      // A transport named like an entry file, in a private package.
      'fetcher/_transports/__init__.py': '',
      'fetcher/_transports/asgi.py': 'class ASGITransport:\n    pass\n',
      'tests/test_urls.py':
        'import fetcher\n\n\ndef test_copy():\n    assert fetcher.URL("a").copy_with("b").raw == "b"\n',
      // Defines its own __iter__, as httpx's tests do in their stream helpers.
      'tests/test_iteration.py': [
        'import fetcher',
        '',
        '',
        'class Chunks:',
        '    def __iter__(self):',
        '        yield b"a"',
        '',
        '',
        'def test_iter():',
        '    assert list(Chunks()) == [b"a"] and fetcher.URL("a")',
      ].join('\n'),
      'tests/test_other.py': 'import fetcher\n\n\ndef test_main():\n    for item in []:\n        pass\n',
    });
  });
  afterAll(() => session?.close());

  it("names its console scripts' modules as entry points, and no module of a private package", async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['entrypoints'] });
    expect(data.entrypoints).toEqual([
      { path: 'fetcher/__init__.py', reason: 'pyproject.toml script fetcher' },
      { path: 'fetcher/debug/tools.py', reason: 'pyproject.toml script fetch-debug' },
    ]);
  });

  it('ranks a test by the rare names it uses, never by a dunder method every iteration calls', async () => {
    const { data } = await callOk(session, 'code_related_tests', { path: 'fetcher/_urls.py' });
    const tests = data.tests as Structured[];
    expect(tests[0]).toMatchObject({ path: 'tests/test_urls.py' });
    expect(tests[0]!.reasons).toContain('uses copy_with');
    for (const test of tests) expect((test.reasons as string[]).join(' ')).not.toContain('__iter__');
  });
});

// psf/requests (fetched for the probe, not kept) declares no console script: its map said
// "entrypoints: (none found)", where a JavaScript library's package.json `main` names its entry.
describe('a Python library without console scripts', () => {
  const entrypointsOf = async (files: Record<string, string>) => {
    const session = await openWrittenProject('py-library-entry', files);
    try {
      return (await callOk(session, 'repo_map', { include: ['entrypoints'] })).data.entrypoints;
    } finally {
      await session.close();
    }
  };

  it('names the package it installs, in src/ or beside pyproject.toml, under its normalised name', async () => {
    expect(
      await entrypointsOf({
        'pyproject.toml':
          '[project]\nname = "requests"\nversion = "1"\n\n[tool.setuptools]\nlicense-files = []\n',
        'src/requests/__init__.py': 'from .api import get\n',
        'src/requests/api.py': 'def get(url):\n    return url\n',
      }),
    ).toEqual([
      {
        path: 'src/requests/__init__.py',
        reason: 'pyproject.toml project requests, the package it installs',
      },
    ]);
    expect(
      await entrypointsOf({
        'pyproject.toml': '[tool.poetry]\nname = "python-DateUtil"\n',
        'dateutil/__init__.py': '',
        'dateutil/parser.py': 'def parse(text):\n    return text\n',
      }),
    ).toEqual([
      {
        path: 'dateutil/__init__.py',
        reason: 'pyproject.toml project python-DateUtil, the package it installs',
      },
    ]);
    // A single-module project.
    expect(
      await entrypointsOf({ 'pyproject.toml': '[project]\nname = "six"\n', 'six.py': 'PY3 = True\n' }),
    ).toEqual([{ path: 'six.py', reason: 'pyproject.toml project six, the package it installs' }]);
    // A name no package bears names nothing.
    expect(
      await entrypointsOf({
        'pyproject.toml': '[project]\nname = "beautifulsoup4"\n',
        'bs4/__init__.py': '',
      }),
    ).toEqual([]);
  });
});

// fastapi/fastapi (fetched for the probe, not kept): ten of its fourteen entry points were
// `docs_src/…/main.py` (its tutorial's code) and one was `fastapi/middleware/wsgi.py`, a middleware.
describe('entry files by name', () => {
  it('are not the documentation’s code, and wsgi.py or asgi.py only where a web project keeps them', async () => {
    const session = await openWrittenProject('py-entry-names', {
      'pyproject.toml': '[project]\nname = "webkit"\n',
      'webkit/__init__.py': 'from .app import App\n',
      'webkit/app.py': 'class App:\n    pass\n',
      'webkit/middleware/wsgi.py': 'class WSGIMiddleware:\n    pass\n',
      'webkit/__main__.py': 'print("cli")\n',
      'docs_src/first_steps/main.py': 'from webkit import App\n\napp = App()\n',
      'docs/examples/app.py': 'from webkit import App\n',
      'site/site/settings.py': 'DEBUG = False\n',
      'site/site/wsgi.py': 'application = None\n',
      'wsgi.py': 'from webkit import App\n\napplication = App()\n',
    });
    try {
      const { data } = await callOk(session, 'repo_map', { include: ['entrypoints'] });
      expect((data.entrypoints as Structured[]).map((entry) => entry.path).sort()).toEqual([
        'site/site/wsgi.py',
        'webkit/__init__.py',
        'webkit/__main__.py',
        'webkit/app.py',
        'wsgi.py',
      ]);
    } finally {
      await session.close();
    }
  });
});
