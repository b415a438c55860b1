import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSession, openWrittenProject } from './helpers/fixture-projects.js';

// On a Go repository (go-chi/chi: 37 Go files use NewRouter) code_find_references answered
// "1 reference (engine: syntax tree)": a long comment string in a JSON file. No grammar covered Go,
// so every Go file was skipped in silence, and a word inside a JSON string value counted. Go has a
// grammar now, and Rust since; Java stands for the languages that still have none.
describe('references from syntax trees, in files no grammar covers', () => {
  let session: FixtureSession;
  beforeAll(async () => {
    session = await openWrittenProject('syntax-coverage', {
      'pom.xml': '<project><artifactId>router</artifactId></project>\n',
      'src/Router.java':
        'public class Router {\n  public static Mux NewRouter() {\n    return new Mux();\n  }\n}\n\nclass Mux {}\n',
      'test/RouterTest.java': 'class RouterTest {\n  void builds() {\n    Router.NewRouter();\n  }\n}\n',
      'README.md': 'Call NewRouter to start.\n',
      'docs/routes.json':
        '{\n  "NewRouter": 1,\n  "comment": "builds a NewRouter and mounts it",\n  "name": "NewRouter"\n}\n',
    });
  });
  afterAll(() => session?.close());

  it('counts the code files that mention the name and could not be read as trees, and says so first', async () => {
    const result = await session.runtime.call('code_find_references', {
      symbol: 'NewRouter',
      path: 'src/Router.java',
    });
    expect(result.isError ?? false).toBe(false);
    const text = (result.content[0] as { text: string }).text;
    const data = result.structuredContent as {
      locations: { path: string; line: number }[];
      unanalysed: number;
    };
    // A JSON key or a whole string value is the name; a word inside a sentence is not.
    expect(data.locations.map((location) => `${location.path}:${location.line}`)).toEqual([
      'docs/routes.json:2',
      'docs/routes.json:4',
    ]);
    expect(data.unanalysed).toBe(2);
    expect(text.split('\n')[0]).toBe(
      '2 references (engine: syntax tree, by name; incomplete: 2 files mentioning it not analysed)',
    );
    expect(text).toContain(
      'Note: 2 files that mention "NewRouter" could not be analysed from syntax trees: src/Router.java (no grammar for Java), test/RouterTest.java (no grammar for Java); search_files finds every mention by text.',
    );
  });

  it('does not call a definition missing when the files that could hold it were never read as trees', async () => {
    const result = await session.runtime.call('code_find_definition', { symbol: 'Mux' });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string; details: unknown } })
      .error;
    expect(error).toMatchObject({
      code: 'SYMBOL_NOT_FOUND',
      message:
        'No definition of "Mux" was found in the workspace, but 1 file that mentions "Mux" could not be analysed from syntax trees: src/Router.java (no grammar for Java); search_files finds every mention by text.',
      details: { unanalysed: 1 },
    });
    // A name nothing mentions is simply not found.
    expect(
      (
        (await session.runtime.call('code_find_definition', { symbol: 'NothingNamesThis' }))
          .structuredContent as {
          error: { message: string };
        }
      ).error.message,
    ).toBe('No definition of "NothingNamesThis" was found in the workspace.');
  });
});
