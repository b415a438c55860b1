import { isToolError } from '@assistant-kit/tool-core';
import { yieldToEventLoop } from '../files/folder-scan.js';
import { languageOfPath } from '../languages.js';
import type { IndexSnapshot } from '../syntax/syntax-index.js';
import type { CodeContext } from './code-context.js';
import { MAX_SERVER_FILE_BYTES } from './language-service.js';
import { bareSymbolName, wordOccurrences } from './symbol-queries.js';

/** Most files that mention a symbol opened in its server before one references or rename request. */
export const MAX_MENTIONING_FILES_OPENED = 300;

/** Files whose bytes a search for a name looks at between two turns of the event loop. */
export const MENTION_SCAN_BATCH = 256;

/** A file that mentions the symbol but the language server could not look at, and why. */
export interface UnanalysedFile {
  path: string;
  reason: string;
}

/** What was done so the server sees every file that mentions a symbol. */
export interface ReferenceScope {
  /** Files (other than the query's own) that mention the name as a whole word. */
  mentioning: number;
  /** Of those, the files opened in the server so its projects include them. */
  opened: number;
  /** The files opened: each mentions the name and the server looked at it. */
  openedFiles: string[];
  /** Files that mention the name but were not analysed by the server. */
  unanalysed: UnanalysedFile[];
  /** The listing the files were found in (for their syntax analyses). */
  snapshot?: IndexSnapshot;
}

/**
 * Opens in the query file's language server every workspace file that mentions `name` as a whole
 * word (bounded). Servers search only the projects they have loaded: tsserver, for example, knows
 * a tsconfig's files but not tests outside it or other tsconfig projects until a file of theirs is
 * opened (which gives it an inferred or configured project). Files that mention the name and that
 * no server covers, that are too large, beyond the bound or that failed to open are returned as
 * `unanalysed`, so results can say their count instead of looking complete.
 */
export async function openMentioningFiles(
  context: CodeContext,
  queryPath: string,
  name: string,
  signal?: AbortSignal,
): Promise<ReferenceScope> {
  const server = context.languages.serverFor(queryPath);
  const bare = bareSymbolName(name);
  const scope: ReferenceScope = { mentioning: 0, opened: 0, openedFiles: [], unanalysed: [] };
  if (bare === '') return scope;
  const snapshot = await context.syntax.refresh({ signal, analyze: false });
  scope.snapshot = snapshot;
  const needle = Buffer.from(bare, 'utf8');
  let looked = 0;
  for (const file of snapshot.files) {
    if (file.relative === queryPath) continue;
    // The bytes are looked at in this thread: other calls and cancellations get a turn now and then.
    if (++looked % MENTION_SCAN_BATCH === 0) await yieldToEventLoop();
    const language = languageOfPath(file.relative);
    const fileServer = context.languages.serverFor(file.relative);
    if (fileServer === undefined && !language?.code) continue;
    if (file.size > MAX_SERVER_FILE_BYTES) {
      scope.unanalysed.push({ path: file.relative, reason: 'too large for the language server' });
      continue;
    }
    if (!context.syntax.mayHold(file, needle, MAX_SERVER_FILE_BYTES)) continue;
    const text = await context.languages.documents
      .read(file.relative, MAX_SERVER_FILE_BYTES)
      .then((document) => document.text)
      .catch(() => undefined);
    if (text === undefined || !text.includes(bare) || wordOccurrences(text, bare).length === 0) continue;
    scope.mentioning++;
    if (fileServer !== server) {
      // Another language (a Python file naming a TypeScript function) is no reference to check.
      if (
        fileServer === undefined &&
        language?.code &&
        server !== undefined &&
        sameFamily(queryPath, file.relative)
      )
        scope.unanalysed.push({ path: file.relative, reason: 'no language server covers it' });
      continue;
    }
    if (scope.opened >= MAX_MENTIONING_FILES_OPENED) {
      scope.unanalysed.push({
        path: file.relative,
        reason: `over the ${MAX_MENTIONING_FILES_OPENED} files opened for one request`,
      });
      continue;
    }
    try {
      await context.languages.open(file.relative);
      scope.opened++;
      scope.openedFiles.push(file.relative);
    } catch (error) {
      if (isToolError(error) && error.code === 'CANCELLED') throw error;
      scope.unanalysed.push({
        path: file.relative,
        reason: `could not be opened (${(error as Error).message})`,
      });
    }
  }
  return scope;
}

/** Whether two files are of languages that can reference each other (JS/TS family, or equal). */
function sameFamily(a: string, b: string): boolean {
  const family = (relative: string) => {
    const id = languageOfPath(relative)?.languageId;
    return id !== undefined && /^(type|java)script(react)?$/.test(id) ? 'script' : id;
  };
  return family(a) === family(b);
}

/** One line for a result: how many files mention the symbol but were not analysed. */
export function unanalysedNote(
  name: string,
  unanalysed: readonly UnanalysedFile[],
  by: 'by the language server' | 'from syntax trees' = 'by the language server',
): string | undefined {
  if (unanalysed.length === 0) return undefined;
  const shown = unanalysed
    .slice(0, 10)
    .map((file) => `${file.path} (${file.reason})`)
    .join(', ');
  const more = unanalysed.length > 10 ? ` and ${unanalysed.length - 10} more` : '';
  const hint = by === 'from syntax trees' ? '; search_files finds every mention by text' : '';
  const files = unanalysed.length === 1 ? '1 file that mentions' : `${unanalysed.length} files that mention`;
  return `${files} "${name}" could not be analysed ${by}: ${shown}${more}${hint}.`;
}

/**
 * Languages whose server knows a value's type only by inference. There a use through an object
 * assembled at run time is not linked to its definition: on Express, tsserver found 1 reference of
 * `app.handle` (its definition) and a rename would have changed only that line, while
 * `lib/express.js` calls `app.handle(req, res, next)` on an object filled by `mixin`. In TypeScript
 * the types say which files can refer to a name, so no such check is made.
 */
const INFERRED_LANGUAGE_IDS = new Set(['javascript', 'javascriptreact', 'python']);

/**
 * The files that use the name in code (not only in strings or comments), were analysed by the
 * server, and hold none of the answer's locations, when the query file's language is typed by
 * inference only (else none): uses the server may have missed. An answer from such a server is
 * not called complete while any remain.
 */
export async function unlinkedMentions(
  context: CodeContext,
  queryPath: string,
  name: string,
  scope: ReferenceScope,
  linkedPaths: Iterable<string>,
  signal?: AbortSignal,
): Promise<string[]> {
  const languageId = languageOfPath(queryPath)?.languageId;
  if (languageId === undefined || !INFERRED_LANGUAGE_IDS.has(languageId)) return [];
  const linked = new Set(linkedPaths);
  const candidates = scope.openedFiles.filter((file) => !linked.has(file));
  if (candidates.length === 0 || scope.snapshot === undefined) return candidates.sort();
  // A word only in a comment or a string is no use the server could have missed (Express's test
  // titles name `route` and `handle`): files whose syntax tree has the name as no identifier are
  // left out. A file no tree is made of stays.
  const analyses = await context.syntax.analysesOf(scope.snapshot, candidates, signal);
  const bare = bareSymbolName(name);
  return candidates
    .filter((file) => {
      const analysis = analyses.get(file);
      return analysis === undefined || analysis.identifiers.has(bare);
    })
    .sort();
}

/** One line for a result: the files {@link unlinkedMentions} found, and why they are named. */
export function unlinkedMentionsNote(name: string, files: readonly string[]): string | undefined {
  if (files.length === 0) return undefined;
  const shown = files.slice(0, 10).join(', ');
  const more = files.length > 10 ? ` and ${files.length - 10} more` : '';
  const subject = files.length === 1 ? '1 other file mentions' : `${files.length} other files mention`;
  return `${subject} "${name}" and the language server linked nothing in ${files.length === 1 ? 'it' : 'them'}: ${shown}${more}. The server links a use only when it can infer the object's type, so a call on an object it cannot type (one assembled at run time, an untyped parameter) is missed, though such a file may also name another symbol of the same name; search_files finds every mention by text.`;
}
