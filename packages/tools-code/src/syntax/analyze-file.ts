import { type LanguageInfo, languageOfPath } from '../languages.js';
import { extractCss } from './extract-css.js';
import { extractGo } from './extract-go.js';
import { extractHtml } from './extract-html.js';
import { extractJson } from './extract-json.js';
import { extractMarkdown } from './extract-markdown.js';
import { extractPython } from './extract-python.js';
import { extractRust } from './extract-rust.js';
import { extractScript } from './extract-script.js';
import { extractYaml } from './extract-yaml.js';
import { strictJsonKeys } from './strict-json-keys.js';
import { emptyAnalysis, type FileAnalysis } from './symbols.js';
import { collectSyntaxProblems } from './syntax-problems.js';
import { parserFor } from './tree-sitter-loader.js';

/** True when the syntax engine can read files of this language. */
export function hasSyntaxSupport(language: LanguageInfo | undefined): boolean {
  return language?.grammar !== undefined || language?.languageId === 'markdown';
}

/**
 * Parses one file with its grammar and extracts symbols, imports, routes, identifiers and syntax
 * problems. Returns undefined for languages without a grammar.
 */
export async function analyzeText(relativePath: string, text: string): Promise<FileAnalysis | undefined> {
  const language = languageOfPath(relativePath);
  if (language === undefined) return undefined;
  if (language.languageId === 'markdown') {
    const analysis = emptyAnalysis();
    extractMarkdown(text, analysis);
    return analysis;
  }
  if (language.grammar === undefined) return undefined;
  if (language.grammar === 'json') {
    // Strict JSON needs no syntax tree (and has no syntax problems): see strictJsonKeys.
    const keys = strictJsonKeys(text);
    if (keys !== undefined) return { ...emptyAnalysis(), symbols: keys };
  }
  const parser = await parserFor(language.grammar);
  const tree = parser.parse(text);
  if (tree === null) return undefined;
  const analysis = emptyAnalysis();
  try {
    switch (language.grammar) {
      case 'typescript':
      case 'tsx':
      case 'javascript':
        extractScript(tree, analysis);
        break;
      case 'css':
        extractCss(tree, analysis);
        break;
      case 'html':
        extractHtml(tree, analysis);
        break;
      case 'json':
        extractJson(tree, analysis);
        break;
      case 'python':
        extractPython(tree, analysis);
        break;
      case 'go':
        extractGo(tree, analysis);
        break;
      case 'rust':
        extractRust(tree, analysis);
        break;
      case 'yaml':
        extractYaml(tree, analysis);
        break;
    }
    analysis.syntaxProblems = collectSyntaxProblems(tree);
  } finally {
    tree.delete();
  }
  return analysis;
}
