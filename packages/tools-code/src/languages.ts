import path from 'node:path';

/** Grammars shipped as wasm files by npm packages, loadable by web-tree-sitter 0.27. */
export type GrammarName =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'css'
  | 'html'
  | 'json'
  | 'python'
  | 'go'
  | 'rust'
  | 'yaml';

/** What the package knows about one language: how to recognise its files and how to read them. */
export interface LanguageInfo {
  /** Language id as language servers expect it in `textDocument/didOpen`. */
  languageId: string;
  /** Human name used in reports. */
  name: string;
  grammar?: GrammarName;
  /** True for languages whose files are code (counted in profiles and repo maps). */
  code: boolean;
  /**
   * True when the syntax engine reads only keys from its files (JSON, YAML): nothing that links
   * files (no definitions, uses or imports), so a repo map's ranking needs none of them parsed.
   */
  keysOnly?: true;
}

const languagesByExtension: Record<string, LanguageInfo> = {
  '.ts': { languageId: 'typescript', name: 'TypeScript', grammar: 'typescript', code: true },
  '.mts': { languageId: 'typescript', name: 'TypeScript', grammar: 'typescript', code: true },
  '.cts': { languageId: 'typescript', name: 'TypeScript', grammar: 'typescript', code: true },
  '.tsx': { languageId: 'typescriptreact', name: 'TypeScript', grammar: 'tsx', code: true },
  '.js': { languageId: 'javascript', name: 'JavaScript', grammar: 'javascript', code: true },
  '.mjs': { languageId: 'javascript', name: 'JavaScript', grammar: 'javascript', code: true },
  '.cjs': { languageId: 'javascript', name: 'JavaScript', grammar: 'javascript', code: true },
  '.jsx': { languageId: 'javascriptreact', name: 'JavaScript', grammar: 'javascript', code: true },
  '.css': { languageId: 'css', name: 'CSS', grammar: 'css', code: true },
  '.scss': { languageId: 'scss', name: 'SCSS', code: true },
  '.less': { languageId: 'less', name: 'Less', code: true },
  '.html': { languageId: 'html', name: 'HTML', grammar: 'html', code: true },
  '.htm': { languageId: 'html', name: 'HTML', grammar: 'html', code: true },
  '.json': { languageId: 'json', name: 'JSON', grammar: 'json', code: false, keysOnly: true },
  '.jsonc': { languageId: 'jsonc', name: 'JSON', grammar: 'json', code: false, keysOnly: true },
  '.py': { languageId: 'python', name: 'Python', grammar: 'python', code: true },
  '.pyi': { languageId: 'python', name: 'Python', grammar: 'python', code: true },
  '.md': { languageId: 'markdown', name: 'Markdown', code: false },
  '.markdown': { languageId: 'markdown', name: 'Markdown', code: false },
  '.go': { languageId: 'go', name: 'Go', grammar: 'go', code: true },
  '.rs': { languageId: 'rust', name: 'Rust', grammar: 'rust', code: true },
  '.java': { languageId: 'java', name: 'Java', code: true },
  '.kt': { languageId: 'kotlin', name: 'Kotlin', code: true },
  '.rb': { languageId: 'ruby', name: 'Ruby', code: true },
  '.php': { languageId: 'php', name: 'PHP', code: true },
  '.c': { languageId: 'c', name: 'C', code: true },
  '.h': { languageId: 'c', name: 'C', code: true },
  '.cc': { languageId: 'cpp', name: 'C++', code: true },
  '.cpp': { languageId: 'cpp', name: 'C++', code: true },
  '.hpp': { languageId: 'cpp', name: 'C++', code: true },
  '.cs': { languageId: 'csharp', name: 'C#', code: true },
  '.swift': { languageId: 'swift', name: 'Swift', code: true },
  '.vue': { languageId: 'vue', name: 'Vue', code: true },
  '.svelte': { languageId: 'svelte', name: 'Svelte', code: true },
  '.sh': { languageId: 'shellscript', name: 'Shell', code: true },
  '.yaml': { languageId: 'yaml', name: 'YAML', grammar: 'yaml', code: false, keysOnly: true },
  '.yml': { languageId: 'yaml', name: 'YAML', grammar: 'yaml', code: false, keysOnly: true },
  '.toml': { languageId: 'toml', name: 'TOML', code: false },
};

/**
 * JSON files whose readers take comments (JSON with comments, as editors know them): TypeScript's
 * and VS Code's configurations and the like. Checked as plain JSON, every commented tsconfig.json
 * was "Comments are not permitted in JSON", errors no reader of the file reports.
 */
const JSON_WITH_COMMENTS =
  /(^|\/)((ts|js)config([.-][^/]*)?\.json|\.vscode\/[^/]+\.json|\.?devcontainer(\/[^/]+)?\.json|\.eslintrc\.json|\.babelrc\.json|babel\.config\.json|api-extractor\.json|typedoc\.json|tslint\.json|language-configuration\.json|deno\.json)$/;

const JSON_WITH_COMMENTS_INFO: LanguageInfo = { ...languagesByExtension['.jsonc']! };

/**
 * Files whose readers also take trailing commas: TypeScript reads its configurations, and VS
 * Code its settings, with a parser that allows them.
 */
const TRAILING_COMMAS_ACCEPTED = /(^|\/)((ts|js)config([.-][^/]*)?\.json|\.vscode\/[^/]+\.json)$/;

/** Whether the file's readers take trailing commas (its JSON check leaves them alone). */
export function acceptsTrailingCommas(filePath: string): boolean {
  return TRAILING_COMMAS_ACCEPTED.test(filePath);
}

/** The language of a file by its extension (and, for JSON with comments, its name), or undefined. */
export function languageOfPath(filePath: string): LanguageInfo | undefined {
  const extension = path.extname(filePath).toLowerCase();
  if (extension === '.json' && JSON_WITH_COMMENTS.test(filePath)) return JSON_WITH_COMMENTS_INFO;
  return languagesByExtension[extension];
}

const assetExtensions = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.avif',
  '.svg',
  '.ico',
  '.bmp',
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.eot',
  '.mp3',
  '.wav',
  '.ogg',
  '.mp4',
  '.webm',
  '.mov',
  '.pdf',
  '.wasm',
]);

/** True for static assets (images, fonts, media) a repo map lists separately from code. */
export function isAssetPath(filePath: string): boolean {
  return assetExtensions.has(path.extname(filePath).toLowerCase());
}
