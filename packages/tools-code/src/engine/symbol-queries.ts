import { invalidArguments, isToolError, quoteArgument, type WorkspacePath } from '@assistant-kit/tool-core';
import type { DocumentSymbol, SymbolInformation } from 'vscode-languageserver-protocol';
import { codeError } from '../errors.js';
import { globMatcher } from '../files/glob.js';
import { languageOfPath } from '../languages.js';
import { symbolKindName } from '../lsp/conversions.js';
import { protocol } from '../lsp/protocol.js';
import { REGISTER_LANGUAGE_SERVER_HINT } from '../lsp/registrations.js';
import { LineIndex, type ZeroBasedPosition } from '../positions.js';
import { analyzeText, hasSyntaxSupport } from '../syntax/analyze-file.js';
import type { CodeSymbol, SymbolKindName } from '../syntax/symbols.js';
import type { CodeContext, EngineName } from './code-context.js';

/** Most bytes a file may have to be outlined or searched. */
export const MAX_OUTLINE_BYTES = 2_000_000;

/** A symbol with the file it lives in and the engine that found it. */
export interface LocatedSymbol extends CodeSymbol {
  path: string;
  engine: EngineName;
}

/** A symbol's name as it is written in code: CSS's `.button` and `#main` are `button` and `main`. */
export function bareSymbolName(name: string): string {
  return name.replace(/^[#.]/, '');
}

/** Splits `Class.member` into the member name and its container. */
export function splitSymbol(symbol: string): { name: string; container?: string } {
  const trimmed = symbol.trim();
  const separator = Math.max(trimmed.lastIndexOf('.'), trimmed.lastIndexOf('::'));
  if (separator <= 0 || trimmed.startsWith('#') || trimmed.startsWith('.')) return { name: trimmed };
  const cut = trimmed.lastIndexOf('::') === separator ? 2 : 1;
  return { name: trimmed.slice(separator + cut), container: trimmed.slice(0, separator) };
}

/** Reads a file's text through the workspace (confined, not recorded as observed). */
export async function readText(
  context: CodeContext,
  input: string,
): Promise<{ path: WorkspacePath; text: string; hash: string }> {
  const file = await context.workspace.readFile(input, { observe: false, maxBytes: MAX_OUTLINE_BYTES });
  return { path: file.path, text: file.bytes.toString('utf8'), hash: file.hash };
}

/**
 * Reads a file's text for a read-only query through the family's document cache: confined on
 * every call, read again only when its size or mtime changed. Edits use {@link readText}.
 */
export async function readDocument(
  context: CodeContext,
  input: string,
): Promise<{ path: WorkspacePath; text: string; hash: string; lines: LineIndex }> {
  return context.languages.documents.read(input, MAX_OUTLINE_BYTES);
}

/** Syntax-tree symbols of one file (confined path). */
export async function syntaxSymbolsOf(relative: string, text: string): Promise<CodeSymbol[] | undefined> {
  if (!hasSyntaxSupport(languageOfPath(relative))) return undefined;
  return (await analyzeText(relative, text))?.symbols;
}

/**
 * Kinds whose children are implementation details (locals, callbacks, object-literal keys) rather
 * than declarations an agent navigates by.
 */
const OPAQUE_CONTAINERS = new Set<SymbolKindName>([
  'function',
  'method',
  'constructor',
  'variable',
  'constant',
  'property',
  'field',
  'object',
  'key',
  'array',
]);
/** Kinds that are values rather than declarations, wherever they appear. */
const VALUE_KINDS = new Set<SymbolKindName>([
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'event',
  'operator',
  'type_parameter',
]);

/** Names servers give to anonymous code: `<unknown>`, `<function>`, `describe() callback`. */
function isAnonymous(name: string): boolean {
  return name === '' || /^<.*>$/.test(name) || / callback$/.test(name);
}

function flattenDocumentSymbols(
  symbols: readonly DocumentSymbol[],
  container: string | undefined,
  output: CodeSymbol[],
  declarationsOnly: boolean,
): void {
  for (const symbol of symbols) {
    const kind = symbolKindName(symbol.kind);
    if (declarationsOnly && (isAnonymous(symbol.name) || VALUE_KINDS.has(kind))) continue;
    const entry: CodeSymbol = {
      name: symbol.name,
      kind,
      line: symbol.selectionRange.start.line + 1,
      character: symbol.selectionRange.start.character + 1,
      endLine: symbol.range.end.line + 1,
    };
    if (container !== undefined) entry.container = container;
    output.push(entry);
    if (symbol.children !== undefined && !(declarationsOnly && OPAQUE_CONTAINERS.has(kind)))
      flattenDocumentSymbols(symbol.children, symbol.name, output, declarationsOnly);
  }
}

/**
 * Converts a documentSymbol answer (hierarchical or flat) to the family's symbol list. With
 * `declarationsOnly` (code files) it keeps what an agent navigates by and drops locals, callbacks
 * and anonymous entries; data files (JSON keys) keep everything.
 */
export function fromDocumentSymbolAnswer(
  answer: readonly (DocumentSymbol | SymbolInformation)[] | null,
  declarationsOnly = true,
): CodeSymbol[] {
  const output: CodeSymbol[] = [];
  if (answer === null) return output;
  const hierarchical = answer.filter((item): item is DocumentSymbol => 'selectionRange' in item);
  flattenDocumentSymbols(hierarchical, undefined, output, declarationsOnly);
  for (const item of answer) {
    if (!('location' in item)) continue;
    if (declarationsOnly && (isAnonymous(item.name) || VALUE_KINDS.has(symbolKindName(item.kind)))) continue;
    const entry: CodeSymbol = {
      name: item.name,
      kind: symbolKindName(item.kind),
      line: item.location.range.start.line + 1,
      character: item.location.range.start.character + 1,
      endLine: item.location.range.end.line + 1,
    };
    if (item.containerName) entry.container = item.containerName;
    output.push(entry);
  }
  return output.sort((a, b) => a.line - b.line || a.character - b.character);
}

/** Document symbols from the file's language server, or from its syntax tree. */
export async function documentSymbols(
  context: CodeContext,
  input: string,
  signal?: AbortSignal,
): Promise<{
  path: string;
  symbols: CodeSymbol[];
  engine: EngineName;
  server?: string;
  note?: string;
  lineCount: number;
}> {
  const { path, text, hash, lines } = await readDocument(context, input);
  const lineCount = lines.lineCount;
  const server = context.languages.serverFor(path.relative);
  let note: string | undefined;
  let serverError: unknown;
  if (server !== undefined) {
    try {
      const lsp = await protocol();
      const answer = await context.languages.withDocument(
        path.relative,
        (document) =>
          context.languages.request(
            document,
            lsp.DocumentSymbolRequest.type,
            { textDocument: { uri: document.uri } },
            signal,
          ),
        { path, text, hash, lines },
      );
      return {
        path: path.relative,
        symbols: fromDocumentSymbolAnswer(answer, languageOfPath(path.relative)?.code === true),
        engine: 'language_server',
        server,
        lineCount,
      };
    } catch (error) {
      if (isToolError(error, 'CANCELLED')) throw error;
      serverError = error;
      note = `The ${server} language server failed (${(error as Error).message}); answered from the syntax tree.`;
    }
  }
  const symbols = await syntaxSymbolsOf(path.relative, text);
  if (symbols === undefined && serverError !== undefined) throw serverError;
  if (symbols === undefined) {
    throw codeError(
      'LANGUAGE_NOT_SUPPORTED',
      `No language server or grammar covers "${path.relative}"${note === undefined ? '' : ` (${note})`}. ${REGISTER_LANGUAGE_SERVER_HINT}`,
      { details: { path: path.relative } },
    );
  }
  return {
    path: path.relative,
    symbols,
    engine: 'syntax',
    lineCount,
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * Declarations named `symbol` across the workspace, from the syntax index (every language with a
 * grammar). `Class.member` narrows to members of that container.
 */
export async function findDeclarations(
  context: CodeContext,
  symbol: string,
  options: { glob?: string; maxFiles?: number; signal?: AbortSignal; preferPath?: string } = {},
): Promise<LocatedSymbol[]> {
  const { name, container } = splitSymbol(symbol);
  const matchesGlob = globMatcher(options.glob);
  const snapshot = await context.syntax.refresh({
    signal: options.signal,
    maxFiles: options.maxFiles,
    filter: matchesGlob,
  });
  const found: LocatedSymbol[] = [];
  for (const [relative, analysis] of snapshot.analyses) {
    for (const candidate of analysis.symbols) {
      if (candidate.name !== name && candidate.name !== `#${name}` && candidate.name !== `.${name}`) continue;
      if (container !== undefined && candidate.container !== container) continue;
      found.push({ ...candidate, path: relative, engine: 'syntax' });
    }
  }
  return found.sort(
    (a, b) => rankDeclaration(b, options.preferPath) - rankDeclaration(a, options.preferPath),
  );
}

function rankDeclaration(symbol: LocatedSymbol, preferPath: string | undefined): number {
  let rank = 0;
  if (symbol.path === preferPath) rank += 4;
  if (symbol.exported) rank += 2;
  if (symbol.container === undefined) rank += 1;
  if (/(^|\/)(test|tests|__tests__)\/|\.(test|spec)\./.test(symbol.path)) rank -= 3;
  return rank;
}

const WORD_CHARACTER = /[\p{L}\p{N}_$]/u;

/** Offsets where `name` occurs as a whole word in `text`. */
export function wordOccurrences(text: string, name: string): number[] {
  const offsets: number[] = [];
  if (name === '') return offsets;
  let from = 0;
  for (;;) {
    const index = text.indexOf(name, from);
    if (index === -1) break;
    const before = text[index - 1];
    const after = text[index + name.length];
    if (
      (before === undefined || !WORD_CHARACTER.test(before)) &&
      (after === undefined || !WORD_CHARACTER.test(after))
    ) {
      offsets.push(index);
    }
    from = index + name.length;
  }
  return offsets;
}

/** Lines named when a symbol is not on the line given. */
const MAX_LINES_SUGGESTED = 5;

/**
 * The 1-based lines holding `name` as a word: at most {@link MAX_LINES_SUGGESTED}, the nearest to
 * `line`, in order, and how many there are in all.
 */
function linesHolding(lines: LineIndex, name: string, line: number): { nearest: number[]; total: number } {
  const holding: number[] = [];
  for (let index = 0; index < lines.lineCount; index++)
    if (wordOccurrences(lines.lineText(index), name).length > 0) holding.push(index + 1);
  const nearest = holding
    .sort((a, b) => Math.abs(a - line) - Math.abs(b - line) || a - b)
    .slice(0, MAX_LINES_SUGGESTED)
    .sort((a, b) => a - b);
  return { nearest, total: holding.length };
}

/**
 * Resolves the position a request is about: `line` (+ `character`, or the symbol on that line, or
 * its first non-blank character), else the symbol's declaration in the file, else its first
 * occurrence. Positions in results and arguments are 1-based; this returns 0-based.
 */
export async function resolvePosition(
  _context: CodeContext,
  relative: string,
  text: string,
  request: { symbol?: string; line?: number; character?: number },
  lineIndex?: LineIndex,
): Promise<ZeroBasedPosition> {
  const lines = lineIndex ?? new LineIndex(text);
  const name = request.symbol === undefined ? undefined : bareSymbolName(splitSymbol(request.symbol).name);
  if (request.line !== undefined) {
    if (request.line < 1 || request.line > lines.lineCount) {
      throw codeError(
        'POSITION_OUT_OF_RANGE',
        `Line ${request.line} is outside "${relative}" (1 to ${lines.lineCount}).`,
        {
          details: { path: relative, line: request.line, lineCount: lines.lineCount },
        },
      );
    }
    const lineText = lines.lineText(request.line - 1);
    if (request.character !== undefined) {
      if (request.character < 1 || request.character > lineText.length + 1) {
        throw codeError(
          'POSITION_OUT_OF_RANGE',
          `Character ${request.character} is outside line ${request.line} of "${relative}" (1 to ${lineText.length + 1}).`,
          { details: { path: relative, line: request.line, character: request.character } },
        );
      }
      return { line: request.line - 1, character: request.character - 1 };
    }
    if (name !== undefined) {
      const onLine = wordOccurrences(lineText, name)[0];
      if (onLine !== undefined) return { line: request.line - 1, character: onLine };
      // A line guessed or remembered from an older text: say where the name is, so the next call
      // can hit it.
      const { nearest, total } = linesHolding(lines, name, request.line);
      throw codeError(
        'SYMBOL_NOT_FOUND',
        `"${quoteArgument(name)}" does not occur on line ${request.line} of "${relative}"${
          nearest.length === 0
            ? ', nor anywhere in it.'
            : `; it occurs on line${nearest.length === 1 ? '' : 's'} ${nearest.join(', ')}${total > nearest.length ? ` (the ${nearest.length} nearest of ${total})` : ''}. Give ${nearest.length === 1 ? 'that line' : 'one of them'}, or leave line out to use its declaration.`
        }`,
        {
          details: {
            path: relative,
            line: request.line,
            symbol: request.symbol === undefined ? undefined : quoteArgument(request.symbol),
            occurs_on_lines: nearest,
          },
        },
      );
    }
    return { line: request.line - 1, character: lineText.length - lineText.trimStart().length };
  }
  if (name === undefined) {
    throw invalidArguments('Give a symbol, or a line (and character), to say which code is meant.', [
      { path: '/symbol', message: 'is required unless line is given' },
    ]);
  }
  const declared = (await syntaxSymbolsOf(relative, text))?.filter(
    (symbol) => symbol.name === name || symbol.name === `#${name}`,
  );
  const container = request.symbol === undefined ? undefined : splitSymbol(request.symbol).container;
  const declaration =
    declared?.find((symbol) => container === undefined || symbol.container === container) ?? declared?.[0];
  if (declaration !== undefined) {
    const lineText = lines.lineText(declaration.line - 1);
    const onLine = wordOccurrences(lineText, name)[0];
    return { line: declaration.line - 1, character: onLine ?? declaration.character - 1 };
  }
  const first = wordOccurrences(text, name)[0];
  if (first === undefined) {
    throw codeError('SYMBOL_NOT_FOUND', `"${quoteArgument(name)}" does not occur in "${relative}".`, {
      details: {
        path: relative,
        symbol: request.symbol === undefined ? undefined : quoteArgument(request.symbol),
      },
    });
  }
  return lines.positionAt(first);
}
