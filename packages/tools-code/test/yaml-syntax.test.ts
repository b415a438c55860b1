import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyzeText } from '../src/syntax/analyze-file.js';
import { MAX_JSON_KEYS } from '../src/syntax/strict-json-keys.js';
import {
  callOk,
  type FixtureSession,
  openFixtureProject,
  type Structured,
} from './helpers/fixture-projects.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

// On ansible (1,849 YAML files) file_outline answered LANGUAGE_NOT_SUPPORTED for every playbook
// and role: no grammar covered YAML. The ansible-site fixture is a playbook of two plays with
// tasks and handlers, a role and group variables.
describe('YAML through the syntax engine (ansible-site fixture)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('ansible-site', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it("outlines a playbook: each play by its name, the play's keys, its tasks by name", async () => {
    const { data, text } = await callOk(session, 'file_outline', { path: 'site.yml' });
    expect(data.engine).toBe('syntax');
    expect(text).toBe(
      [
        'site.yml (YAML, 37 lines, 30 symbols, engine: syntax)',
        'L2  item Install web servers',
        'L2    key name',
        'L3    key hosts',
        'L4    key become',
        'L5    key vars',
        'L6      key http_port',
        'L7      key server_name',
        'L8    key roles',
        'L10    key tasks',
        'L11      item Install nginx',
        'L11        key name',
        'L12        key ansible.builtin.apt',
        'L16      item Write the site configuration',
        'L16        key name',
        'L17        key ansible.builtin.template',
        'L20        key notify',
        'L21      item [2]',
        'L21        key ansible.builtin.debug',
        'L23    key handlers',
        'L24      item Restart nginx',
        'L24        key name',
        'L25        key ansible.builtin.service',
        'L29  item Set up the database',
        'L29    key name',
        'L30    key hosts',
        'L31    key become',
        'L32    key tasks',
        'L33      item Install PostgreSQL',
        'L33        key name',
        'L34        key ansible.builtin.apt',
      ].join('\n'),
    );
    // The item spans the whole play or task; its keys are inside it.
    expect((data.symbols as Structured[]).slice(0, 2)).toEqual([
      { name: 'Install web servers', kind: 'item', line: 2, character: 1, end_line: 27 },
      { name: 'name', kind: 'key', line: 2, character: 3, end_line: 2, container: 'Install web servers' },
    ]);
  });

  it("outlines a role's task list and finds a task by name across the workspace", async () => {
    const { text } = await callOk(session, 'file_outline', { path: 'roles/web/tasks/main.yml' });
    expect(text.split('\n').slice(1)).toEqual([
      'L2  item Create the web root',
      'L2    key name',
      'L3    key ansible.builtin.file',
      'L4      key path',
      'L5      key state',
      'L6      key mode',
      'L8  item Copy the index page',
      'L8    key name',
      'L9    key ansible.builtin.copy',
      'L10      key src',
      'L11      key dest',
      'L12    key notify',
    ]);
    const found = await callOk(session, 'code_workspace_symbols', { query: 'Restart nginx' });
    expect(
      (found.data.symbols as Structured[]).map((symbol) => `${symbol.path}:${symbol.line} ${symbol.kind}`),
    ).toEqual(['roles/web/handlers/main.yml:2 item', 'site.yml:24 item']);
  });

  it('counts a whole YAML scalar as a reference, never a word inside one', async () => {
    const { data } = await callOk(session, 'code_find_references', { symbol: 'nginx' });
    // `name: nginx` (the package, the service); not "Install nginx" nor "Restart nginx".
    expect(data.locations.map((location: Structured) => `${location.path}:${location.line}`)).toEqual([
      'roles/web/handlers/main.yml:4',
      'site.yml:13',
      'site.yml:26',
    ]);
  });

  it('counts a variable used inside a template expression, not the same word in prose', async () => {
    const { data } = await callOk(session, 'code_find_references', { symbol: 'http_port' });
    expect(
      data.locations.map((location: Structured) => `${location.path}:${location.line}:${location.character}`),
    ).toEqual(['group_vars/all.yml:2:1', 'site.yml:6:5', 'site.yml:22:52']);
    // "port" is a word of the message's prose, outside the braces.
    const port = await callOk(session, 'code_find_references', { symbol: 'port' });
    expect(port.data.locations).toEqual([]);
  });

  it('lists plays and top-level keys in the repo map, not the tasks inside them', async () => {
    const { text } = await callOk(session, 'repo_map', { include: ['modules'] });
    expect(text).toContain('  site.yml: item Install web servers, item Set up the database\n');
    expect(text).toContain('  group_vars/all.yml: key http_port, key server_name, key admins');
    expect(text).not.toContain('Install nginx');
  });

  it('reports the syntax problem of an invalid YAML file, and none for the valid ones', async () => {
    await writeFile(
      path.join(session.root, 'broken.yml'),
      '- name: Broken play\n  hosts: [web, db\n  tasks:\n    - name: Ping\n',
    );
    const { data } = await callOk(session, 'code_diagnostics', {});
    expect(data.diagnostics).toEqual([
      {
        path: 'broken.yml',
        line: 2,
        character: 10,
        message: 'Syntax error near "[web, db".',
        severity: 'error',
        source: 'syntax',
        engine: 'syntax',
      },
    ]);
    expect((data.checked as Structured[]).map((entry) => entry.path)).toEqual([
      'broken.yml',
      'group_vars/all.yml',
      'roles/web/handlers/main.yml',
      'roles/web/tasks/main.yml',
      'site.yml',
    ]);
  });
});

describe('YAML manifests and workflows (go-router fixture)', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openFixtureProject('go-router', { modules: 'none' });
  });
  afterAll(() => session?.close());

  it('outlines every document of a multi-document Kubernetes manifest', async () => {
    const { text } = await callOk(session, 'file_outline', { path: 'deploy/kubernetes.yaml' });
    expect(text.split('\n')).toEqual([
      'deploy/kubernetes.yaml (YAML, 34 lines, 16 symbols, engine: syntax)',
      'L2  key apiVersion',
      'L3  key kind',
      'L4  key metadata',
      'L5    key name',
      'L6    key labels',
      'L8  key spec',
      'L9    key selector',
      'L11    key ports',
      'L15  key apiVersion',
      'L16  key kind',
      'L17  key metadata',
      'L18    key name',
      'L19  key spec',
      'L20    key replicas',
      'L21    key selector',
      'L24    key template',
    ]);
  });

  it('outlines a GitHub Actions workflow down to its jobs', async () => {
    const { data } = await callOk(session, 'file_outline', { path: '.github/workflows/ci.yml' });
    expect(
      (data.symbols as Structured[]).map(
        (symbol) => `${symbol.line} ${symbol.container ?? ''}.${symbol.name}`,
      ),
    ).toEqual([
      '1 .name',
      '3 .on',
      '4 on.push',
      '6 on.pull_request',
      '8 .jobs',
      '9 jobs.test',
      '19 jobs.vet',
    ]);
    // `needs: test` names the job: a whole scalar, so a reference.
    const references = await callOk(session, 'code_find_references', { symbol: 'test', glob: '**/*.yml' });
    expect(references.data.locations).toMatchObject([
      { path: '.github/workflows/ci.yml', line: 9 },
      { line: 20 },
    ]);
  });
});

describe('YAML extraction', () => {
  const keys = async (text: string) =>
    (await analyzeText('config.yaml', text))!.symbols.map(
      (symbol) => `${symbol.kind} ${symbol.container ?? ''}.${symbol.name}`,
    );

  it('reads quoted keys, skips complex keys, and lists two levels of mappings as JSON does', async () => {
    expect(
      await keys(
        [
          '"double quoted": 1',
          "'it''s': 2",
          '[a, list]: 3',
          '? {a: mapping}',
          ': 4',
          '? explicit',
          ': 5',
          'anchored: &base',
          '  level2:',
          '    level3: hidden',
          'flow: {inner: 1, "quoted": {deeper: 2}}',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      'key .double quoted',
      "key .it's",
      'key .explicit',
      'key .anchored',
      'key anchored.level2',
      'key .flow',
      'key flow.inner',
      'key flow.quoted',
    ]);
  });

  it('labels a list item by its name, else by its index, and lists items only where their keys are', async () => {
    expect(
      await keys(
        [
          'steps:',
          '  - uses: actions/checkout@v4',
          '  - name: "Run the tests"',
          '    run: make test',
          '  - plain scalar',
          'matrix:',
          '  include:',
          '    - os: linux',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      'key .steps',
      'item steps.[0]',
      'key [0].uses',
      'item steps.Run the tests',
      'key Run the tests.name',
      'key Run the tests.run',
      'key .matrix',
      'key matrix.include',
    ]);
  });

  it(`stops listing new mappings after ${MAX_JSON_KEYS} symbols`, async () => {
    const text = Array.from(
      { length: MAX_JSON_KEYS + 20 },
      (_, index) => `k${index}:\n  inner: ${index}\n`,
    ).join('');
    const symbols = await keys(text);
    expect(symbols.filter((symbol) => symbol.startsWith('key .k'))).toHaveLength(MAX_JSON_KEYS + 20);
    expect(symbols.filter((symbol) => symbol.endsWith('.inner'))).toHaveLength(MAX_JSON_KEYS / 2);
  });

  it('finds no syntax problem in a valid file and one in an invalid file', async () => {
    expect((await analyzeText('ok.yaml', 'a: 1\nb:\n  - c\n'))!.syntaxProblems).toEqual([]);
    expect((await analyzeText('bad.yaml', 'a: [1, 2\nb: 3\n'))!.syntaxProblems).not.toEqual([]);
  });
});
