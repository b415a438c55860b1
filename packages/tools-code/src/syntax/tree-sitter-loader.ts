import { importOptional } from '@assistant-kit/kernel';
import type { Language, Parser } from 'web-tree-sitter';
import type { GrammarName } from '../languages.js';
import { compileGrammar, GRAMMAR_PACKAGES, grammarPackage } from './grammar-modules.js';

// Errors are built with a dynamic import of the family's error module (and so tool-core) only
// when loading fails: the analysis worker threads load this module and must start light.

type TreeSitterModule = typeof import('web-tree-sitter');

/** The syntax engine's packages (optional peers of this package), as one install line names them. */
const SYNTAX_PACKAGES = ['web-tree-sitter', ...GRAMMAR_PACKAGES];

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
      // Compiled synchronously, which is several times quicker here (see compileGrammar).
      language = Promise.resolve().then(() => module.Language.loadSync(compileGrammar(grammar)));
      languages.set(grammar, language);
    }
    loaded = await language;
  } catch (error) {
    languages.delete(grammar);
    const { codeError } = await import('../errors.js');
    throw codeError(
      'LANGUAGE_NOT_SUPPORTED',
      `The ${grammar} grammar could not be loaded: install ${grammarPackage(grammar)}.`,
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
