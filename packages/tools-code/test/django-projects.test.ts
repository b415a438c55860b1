import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { selectionArgv } from '../src/project/test-runners.js';
import {
  callOk,
  type FixtureSession,
  openFixtureProject,
  openWrittenProject,
  relatedTestPaths,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On django/djangoproject.com (fetched for the probe, not kept), the profile offered
// `python3 -m unittest`, which cannot set a Django project up (settings, a test database), and
// counted 22 test files: each app's tests.py, the Django convention, was no test.
describe('a Django project (py-django-site)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('py-django-site', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it("runs its tests with manage.py, and counts an app's tests.py as tests", async () => {
    const { data, text } = await callOk(session, 'code_project_profile', {});
    expect(data.commands).toEqual([
      expect.objectContaining({
        command_id: 'django',
        argv: ['python3', 'manage.py', 'test'],
        framework: 'django',
      }),
    ]);
    expect(text).toContain('Test frameworks: django; 2 test files');
  });

  it("relates a model's tests and runs them by their dotted labels", async () => {
    const related = await callOk(session, 'code_related_tests', { path: 'catalog/models.py' });
    expect((related.data.tests as Structured[]).map((test) => test.path)).toEqual([
      'catalog/tests.py',
      'orders/tests/test_totals.py',
    ]);
    expect(related.text).toContain('django: python3 manage.py test catalog.tests orders.tests.test_totals');
    // Whether Django is installed for this machine's python3 or not, the run is Django's runner on
    // those labels (the run itself was checked with Debian's python3-django 3.2: 3 passed).
    const run = await session.runtime.call('run_tests', { path: 'catalog/models.py' });
    const first = (run.content[0] as { text: string }).text.split('\n')[0]!;
    expect(first).toMatch(
      /^(PASSED|FAILED): python3 manage\.py test -v 2 catalog\.tests orders\.tests\.test_totals \(tests related to catalog\/models\.py\)/,
    );
  });

  it('lists its URL patterns below the prefix they are included at, and no template as a page', async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['routes'] });
    expect(data.routes).toEqual([
      { method: 'ANY', path: '/catalog/', file: 'catalog/urls.py', line: 6 },
      { method: 'ANY', path: '/catalog/<int:pk>/', file: 'catalog/urls.py', line: 7 },
    ]);
  });

  it('serves the URL patterns of a module nothing includes at the root', async () => {
    const { data } = await callOk(session, 'repo_map', { include: ['routes'], scope: 'catalog' });
    expect(data.routes).toEqual([
      { method: 'ANY', path: '/', file: 'catalog/urls.py', line: 6 },
      { method: 'ANY', path: '/<int:pk>/', file: 'catalog/urls.py', line: 7 },
    ]);
  });

  it('names a test by its module, and a package by its folder', () => {
    expect(
      selectionArgv('django', ['python3', 'manage.py', 'test'], {
        files: ['orders/tests/__init__.py', 'catalog/tests.py'],
        testName: 'test_total',
      }),
    ).toEqual(['python3', 'manage.py', 'test', '-k', 'test_total', 'orders.tests', 'catalog.tests']);
  });
});

// On djangoproject.com, code_related_tests blog/models.py listed checklists/, fundraising/ and
// members/ test_models.py as "named like blog/models.py": every app has a models.py.
describe('a test named like a source that several apps have', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('shared-stems', {
      'blog/models.py': 'class Entry:\n    pass\n',
      'shop/models.py': 'class Product:\n    pass\n',
      'shop/tests/test_models.py': 'def test_nothing_imported():\n    assert True\n',
      'tests/test_views.py': 'def test_views():\n    assert True\n',
      'src/pricing/rules.py': 'RATE = 1\n',
      'tests/pricing/test_rules.py': 'def test_rate():\n    assert True\n',
    });
  });
  afterAll(() => session?.close());

  it("relates it to the source beside it only, and a unique name's test wherever it is", async () => {
    expect(await relatedTestPaths(session, 'blog/models.py')).toEqual([]);
    expect(await relatedTestPaths(session, 'shop/models.py')).toEqual(['shop/tests/test_models.py']);
    expect(await relatedTestPaths(session, 'src/pricing/rules.py')).toEqual(['tests/pricing/test_rules.py']);
  });
});
