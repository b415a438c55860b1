import { createRequire } from 'node:module';
import { importOptional } from '@assistant-kit/kernel';
import type { Language, Parser } from 'web-tree-sitter';
import type { GrammarName } from '../languages.js';

const requireFromHere = createRequire(import.meta.url);

// Errors are built with a dynamic import of the family's error module (and so tool-core) only
// when loading fails: the analysis worker threads load this module and must start light.

const grammarFiles: Record<GrammarName, string> = {
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  css: 'tree-sitter-css/tree-sitter-css.wasm',
  html: 'tree-sitter-html/tree-sitter-html.wasm',
  json: 'tree-sitter-json/tree-sitter-json.wasm',
  python: 'tree-sitter-python/tree-sitter-python.wasm',
};

type TreeSitterModule = typeof import('web-tree-sitter');

/** The syntax engine's packages (optional peers of this package), as one install line names them. */
const SYNTAX_PACKAGES = [
  'web-tree-sitter',
  ...new Set(Object.values(grammarFiles).map((file) => file.slice(0, file.indexOf('/')))),
];

let moduleLoading: Promise<TreeSitterModule> | undefined;
const languages = new Map<GrammarName, Promise<Language>>();
const parsers = new Map<GrammarName, Parser>();

/** A failed import of web-tree-sitter, turned into the family's error outside the hot path. */
class TreeSitterImportFailure extends Error {
  constructor(
    readonly failure: 'missing' | 'broken',
    cause: unknown,
  ) {
    super('web-tree-sitter could not be loaded', { cause });
  }
}

async function loadTreeSitter(): Promise<TreeSitterModule> {
  moduleLoading ??= (async () => {
    let module: TreeSitterModule;
    try {
      module = await importOptional<TreeSitterModule>(() => import('web-tree-sitter'), {
        packageName: 'web-tree-sitter',
        expect: 'Parser',
        onFailure: (failure, cause) => new TreeSitterImportFailure(failure, cause),
      });
    } catch (error) {
      if (!(error instanceof TreeSitterImportFailure)) throw error;
      const { codeError } = await import('../errors.js');
      throw codeError(
        'LANGUAGE_NOT_SUPPORTED',
        error.failure === 'missing'
          ? `Syntax trees need web-tree-sitter and the grammars, optional peers of @assistant-kit/tools-code: install them (npm install ${SYNTAX_PACKAGES.join(' ')}).`
          : 'web-tree-sitter is installed but failed to load; reinstall web-tree-sitter.',
        { cause: error.cause },
      );
    }
    await module.Parser.init();
    return module;
  })();
  return moduleLoading;
}

/** Absolute path of a grammar's wasm file, found through normal package resolution. */
export function grammarWasmPath(grammar: GrammarName): string {
  return requireFromHere.resolve(grammarFiles[grammar]);
}

/**
 * A parser for one grammar, loaded once per process and reused (parsers are not re-entrant, but
 * parsing is synchronous, so sharing one per grammar is safe in one thread).
 */
export async function parserFor(grammar: GrammarName): Promise<Parser> {
  const existing = parsers.get(grammar);
  if (existing !== undefined) return existing;
  const module = await loadTreeSitter();
  let language = languages.get(grammar);
  let loaded: Language;
  try {
    if (language === undefined) {
      // Resolving the wasm file throws when the grammar package (an optional peer) is missing.
      language = Promise.resolve().then(() => module.Language.load(grammarWasmPath(grammar)));
      languages.set(grammar, language);
    }
    loaded = await language;
  } catch (error) {
    languages.delete(grammar);
    const { codeError } = await import('../errors.js');
    throw codeError(
      'LANGUAGE_NOT_SUPPORTED',
      `The ${grammar} grammar could not be loaded: install tree-sitter-${grammar === 'tsx' ? 'typescript' : grammar}.`,
      { cause: error },
    );
  }
  const again = parsers.get(grammar);
  if (again !== undefined) return again;
  const parser = new module.Parser();
  parser.setLanguage(loaded);
  parsers.set(grammar, parser);
  return parser;
}
