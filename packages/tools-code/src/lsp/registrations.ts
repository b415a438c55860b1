import { createRequire } from 'node:module';
import path from 'node:path';
import { codeError } from '../errors.js';
import { isExecutableFile } from './server-spawn.js';

const requireFromHere = createRequire(import.meta.url);

/** How to start a language server over stdio. */
export interface LanguageServerCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /**
   * `initializationOptions` found when the command is resolved (they may name installed files,
   * which must not be looked up before the server is needed); they replace the registration's.
   */
  initializationOptions?: unknown;
}

/**
 * A language server the family may start. Register others (pyright, gopls, rust-analyzer…) with
 * `createCodeTools({ languageServers: [...] })`; a registration with the id of a built-in one
 * replaces it.
 *
 * @example
 * const pyright: LanguageServerRegistration = {
 *   id: 'pyright',
 *   languageIds: ['python'],
 *   command: () => ({ command: 'pyright-langserver', args: ['--stdio'] }),
 *   settings: { python: { analysis: { diagnosticMode: 'openFilesOnly' } } },
 * };
 */
export interface LanguageServerRegistration {
  /** Stable id, also shown in results (`server`). */
  id: string;
  /** LSP language ids it serves (`typescript`, `python`, `go`…). */
  languageIds: readonly string[];
  /**
   * File extensions (with the dot) it serves beyond the built-in language table; files with
   * these extensions get `languageIds[0]` as their language id.
   */
  fileExtensions?: readonly string[];
  /** The process to start; resolved lazily on first use. */
  command: () => LanguageServerCommand | Promise<LanguageServerCommand>;
  /** `initializationOptions` of the initialize request. */
  initializationOptions?: unknown;
  /** Settings answered to `workspace/configuration` and sent with `didChangeConfiguration`. */
  settings?: Record<string, unknown>;
  /**
   * Whether the server publishes diagnostics for opened files (default true). code_diagnostics
   * waits for them only from servers that do.
   */
  publishesDiagnostics?: boolean;
}

/**
 * How a user registers a language server, named in errors: the MCP bin's flags for MCP users,
 * the factory option for library users.
 */
export const REGISTER_LANGUAGE_SERVER_HINT =
  'Register one: start assistant-kit-mcp with --language-server "id=NAME,languages=LANGUAGE_ID,extensions=.EXT,command=PROGRAM,args=ARG ARG" (or --language-servers FILE.json), or pass createCodeTools({ languageServers }) in the library.';

function resolveInstalled(specifier: string, packageName: string): string {
  try {
    return requireFromHere.resolve(specifier);
  } catch (error) {
    throw codeError(
      'LANGUAGE_SERVER_UNAVAILABLE',
      `The language server is not installed: install ${packageName}.`,
      {
        cause: error,
      },
    );
  }
}

let hostPythonPath: string | null | undefined;

/** Absolute path of the host's python3 (from PATH at first use), or undefined when none. */
function hostPython(): string | undefined {
  if (hostPythonPath === undefined) {
    hostPythonPath = null;
    for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
      if (!path.isAbsolute(folder)) continue;
      const candidate = path.join(folder, 'python3');
      if (isExecutableFile(candidate)) {
        hostPythonPath = candidate;
        break;
      }
    }
  }
  return hostPythonPath ?? undefined;
}

function nodeScript(specifier: string, packageName: string): LanguageServerCommand {
  return { command: process.execPath, args: [resolveInstalled(specifier, packageName), '--stdio'] };
}

/**
 * typescript-language-server's options, resolved when the server starts: the tsserver of the
 * installed TypeScript (an optional peer) is looked up only then.
 */
function typescriptInitializationOptions(): Record<string, unknown> {
  return {
    hostInfo: 'assistant-kit',
    // Typing acquisition would try to download @types packages: there is no network.
    disableAutomaticTypingAcquisition: true,
    // No global plugins and so no plugin probe locations: tsserver then resolves the plugins
    // a tsconfig names (compilerOptions.plugins) only next to its own installation, never in
    // the workspace (typescript-language-server never passes --allowLocalPluginLoads), so a
    // workspace cannot run code in the server by shipping a plugin in its node_modules.
    plugins: [],
    // One semantic tsserver: a separate syntax server would answer navigation requests
    // approximately (an import instead of the declaration) while the project loads.
    tsserver: {
      path: resolveInstalled('typescript/lib/tsserver.js', 'typescript'),
      useSyntaxServer: 'never',
    },
    // Without this, a rename at an import site renames only the local alias.
    preferences: { providePrefixAndSuffixTextForRename: false, allowRenameOfImportPath: false },
  };
}

/** The built-in servers: TypeScript/JavaScript, Python (pyright), HTML, CSS and JSON. */
export function defaultLanguageServers(): LanguageServerRegistration[] {
  return [
    {
      id: 'typescript',
      languageIds: ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'],
      command: () => ({
        ...nodeScript('typescript-language-server/lib/cli.mjs', 'typescript-language-server'),
        initializationOptions: typescriptInitializationOptions(),
      }),
      settings: {},
    },
    {
      id: 'pyright',
      languageIds: ['python'],
      command: () => nodeScript('pyright/langserver.index.js', 'pyright'),
      settings: {
        python: {
          // Pyright runs the interpreter to learn its search paths: name the host's python3
          // explicitly rather than whichever `python` comes first on the workspace's PATH.
          ...(hostPython() === undefined ? {} : { pythonPath: hostPython() }),
          analysis: {
            // Only files the tools open are checked, so a large repository costs no full analysis.
            diagnosticMode: 'openFilesOnly',
            autoSearchPaths: true,
            useLibraryCodeForTypes: true,
            typeCheckingMode: 'standard',
          },
        },
      },
    },
    {
      id: 'html',
      languageIds: ['html'],
      command: () =>
        nodeScript(
          'vscode-langservers-extracted/lib/html-language-server/node/htmlServerMain.js',
          'vscode-langservers-extracted',
        ),
      initializationOptions: { provideFormatter: true, embeddedLanguages: { css: true, javascript: true } },
      // The HTML server validates only embedded scripts and styles, and only on request.
      publishesDiagnostics: false,
      settings: {
        html: { format: { enable: true }, validate: { scripts: true, styles: true } },
        css: {},
        javascript: {},
      },
    },
    {
      id: 'css',
      languageIds: ['css', 'scss', 'less'],
      command: () =>
        nodeScript(
          'vscode-langservers-extracted/lib/css-language-server/node/cssServerMain.js',
          'vscode-langservers-extracted',
        ),
      initializationOptions: { provideFormatter: true },
      settings: { css: { validate: true }, scss: { validate: true }, less: { validate: true } },
    },
    {
      id: 'json',
      languageIds: ['json', 'jsonc'],
      command: () =>
        nodeScript(
          'vscode-langservers-extracted/lib/json-language-server/node/jsonServerMain.js',
          'vscode-langservers-extracted',
        ),
      initializationOptions: { provideFormatter: true, handledSchemaProtocols: ['file'] },
      // No network: schemas are never downloaded.
      settings: {
        json: {
          validate: { enable: true },
          format: { enable: true },
          schemaDownload: { enable: false },
          schemas: [],
        },
      },
    },
  ];
}

/** Merges extra registrations into the defaults; an extra one with a built-in id replaces it. */
export function mergeRegistrations(
  extra: readonly LanguageServerRegistration[] = [],
): LanguageServerRegistration[] {
  const merged = new Map(defaultLanguageServers().map((registration) => [registration.id, registration]));
  for (const registration of extra) merged.set(registration.id, registration);
  return [...merged.values()];
}
