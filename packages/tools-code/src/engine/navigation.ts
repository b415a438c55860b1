import { invalidArguments, isToolError, textResult } from '@assistant-kit/tool-core';
import type { Location, LocationLink } from 'vscode-languageserver-protocol';
import type { Node } from 'web-tree-sitter';
import { yieldToEventLoop } from '../files/folder-scan.js';
import { globMatcher } from '../files/glob.js';
import { languageOfPath } from '../languages.js';
import { protocol } from '../lsp/protocol.js';
import { joinCapped } from '../output/format.js';
import { LineIndex } from '../positions.js';
import { yamlScalarValue } from '../syntax/extract-yaml.js';
import { parserFor } from '../syntax/tree-sitter-loader.js';
import type { CodeContext, EngineName } from './code-context.js';
import type { SourceLocation } from './language-service.js';
import { canBeMemberOccurrence } from './member-occurrences.js';
import {
  MENTION_SCAN_BATCH,
  openMentioningFiles,
  type UnanalysedFile,
  unanalysedNote,
  unlinkedMentions,
  unlinkedMentionsNote,
} from './reference-scope.js';
import {
  bareSymbolName,
  findDeclarations,
  MAX_OUTLINE_BYTES,
  readDocument,
  resolvePosition,
  splitSymbol,
  wordOccurrences,
} from './symbol-queries.js';

export interface PositionRequest {
  symbol: string;
  path?: string;
  line?: number;
  character?: number;
}

/** A located answer with the engine that produced it. */
export interface Answer {
  locations: (SourceLocation & { engine: EngineName; kind?: string })[];
  engine: EngineName;
  server?: string;
  notes: string[];
  /** Files that mention the symbol but the language server could not analyse. */
  unanalysed?: number;
  /** Files the server analysed that mention the symbol and hold no location (inferred languages only). */
  unlinked?: string[];
}

export function asArray(answer: Location | Location[] | LocationLink[] | null): (Location | LocationLink)[] {
  if (answer === null) return [];
  return Array.isArray(answer) ? answer : [answer];
}

export function isCancellation(error: unknown): boolean {
  return isToolError(error, 'CANCELLED');
}

export async function serverLocations(
  context: CodeContext,
  relative: string,
  file: { text: string; hash: string; lines: LineIndex },
  request: PositionRequest,
  method: 'textDocument/definition' | 'textDocument/references',
  signal: AbortSignal,
): Promise<SourceLocation[]> {
  const position = await resolvePosition(context, relative, file.text, request, file.lines);
  const { DefinitionRequest, ReferencesRequest } = await protocol();
  const answer = await context.languages.withDocument(
    relative,
    (document): Promise<Location | Location[] | LocationLink[] | null> => {
      const textDocument = { uri: document.uri };
      return method === 'textDocument/references'
        ? context.languages.request(
            document,
            ReferencesRequest.type,
            { textDocument, position, context: { includeDeclaration: true } },
            signal,
          )
        : context.languages.request(document, DefinitionRequest.type, { textDocument, position }, signal);
    },
    { path: { relative }, text: file.text, hash: file.hash, lines: file.lines },
  );
  return Promise.all(asArray(answer).map((location) => context.languages.toSourceLocation(location)));
}

/** Definitions: the language server at a position when one covers the file, else the syntax index by name. */
export async function findDefinition(
  context: CodeContext,
  request: PositionRequest,
  signal: AbortSignal,
): Promise<Answer> {
  const notes: string[] = [];
  if (request.path !== undefined) {
    const { path, text, hash, lines } = await readDocument(context, request.path);
    const server = context.languages.serverFor(path.relative);
    if (server !== undefined) {
      try {
        const locations = await serverLocations(
          context,
          path.relative,
          { text, hash, lines },
          request,
          'textDocument/definition',
          signal,
        );
        if (locations.length > 0) {
          return {
            locations: locations.map((location) => ({ ...location, engine: 'language_server' })),
            engine: 'language_server',
            server,
            notes,
          };
        }
        notes.push(
          `The ${server} language server found no definition at that position; searched declarations by name.`,
        );
      } catch (error) {
        if (
          isCancellation(error) ||
          isToolError(error, 'SYMBOL_NOT_FOUND') ||
          isToolError(error, 'POSITION_OUT_OF_RANGE')
        )
          throw error;
        notes.push(
          `The ${server} language server failed (${(error as Error).message}); searched declarations by name.`,
        );
      }
    } else {
      await resolvePosition(context, path.relative, text, request, lines).catch((error: unknown) => {
        if (isToolError(error, 'POSITION_OUT_OF_RANGE')) throw error;
      });
    }
    const declarations = await findDeclarations(context, request.symbol, {
      signal,
      preferPath: path.relative,
    });
    return {
      locations: declarations.map((symbol) => ({
        path: symbol.path,
        line: symbol.line,
        character: symbol.character,
        endLine: symbol.endLine,
        endCharacter: symbol.character + symbol.name.length,
        engine: 'syntax',
        kind: symbol.kind,
      })),
      engine: 'syntax',
      notes,
    };
  }
  const declarations = await findDeclarations(context, request.symbol, { signal });
  const locations: Answer['locations'] = [];
  let engine: EngineName = 'syntax';
  let usedServer: string | undefined;
  // Confirm each declaration in a server-covered file with the server (it resolves re-exports
  // and overloads); fall back to the syntax position when the server has nothing.
  for (const declaration of declarations.slice(0, 20)) {
    const server = context.languages.serverFor(declaration.path);
    if (server !== undefined) {
      try {
        const { text, hash, lines } = await readDocument(context, declaration.path);
        const confirmed = await serverLocations(
          context,
          declaration.path,
          { text, hash, lines },
          { symbol: request.symbol, line: declaration.line },
          'textDocument/definition',
          signal,
        );
        if (confirmed.length > 0) {
          for (const location of confirmed)
            locations.push({ ...location, engine: 'language_server', kind: declaration.kind });
          engine = 'language_server';
          usedServer = server;
          continue;
        }
      } catch (error) {
        if (isCancellation(error)) throw error;
        notes.push(
          `The ${server} language server failed on ${declaration.path} (${(error as Error).message}).`,
        );
      }
    }
    locations.push({
      path: declaration.path,
      line: declaration.line,
      character: declaration.character,
      endLine: declaration.endLine,
      endCharacter: declaration.character + declaration.name.length,
      engine: 'syntax',
      kind: declaration.kind,
    });
  }
  return {
    locations: dedupe(locations),
    engine,
    ...(usedServer === undefined ? {} : { server: usedServer }),
    notes,
  };
}

export function dedupe<Location extends SourceLocation>(locations: Location[]): Location[] {
  const seen = new Set<string>();
  return locations.filter((location) => {
    const key = `${location.path}:${location.line}:${location.character}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Largest file read only to tell whether it mentions a name (one no syntax tree is made of). */
const MAX_MENTION_SCAN_BYTES = 16_000_000;

export const IDENTIFIER_LIKE =
  /identifier|name|attribute_value|tag_name|class_name|id_name|string_content|property/;

/**
 * In YAML, as in JSON, only a whole scalar that is the name counts (a key such as an Ansible task's
 * module, `apt:`, or a value such as `needs: build`), never a word inside a longer one.
 */
function isWholeYamlScalar(node: Node, name: string): boolean {
  return node.type !== 'plain_scalar' && yamlScalarValue(node) === name;
}

const YAML_SCALARS = new Set([
  'string_scalar',
  'plain_scalar',
  'double_quote_scalar',
  'single_quote_scalar',
  'block_scalar',
]);

/**
 * A whole word inside a template expression of a YAML scalar: Ansible's and Helm's `{{ … }}` and
 * `{% … %}`, GitHub Actions' `${{ … }}`. Those are uses of the names they hold (an Ansible
 * variable is used as `msg: "port {{ http_port }}"`), unlike a word of prose in a task's name.
 */
function isInYamlTemplateExpression(node: Node, offset: number): boolean {
  if (!YAML_SCALARS.has(node.type)) return false;
  const text = node.text;
  const at = offset - node.startIndex;
  const opened = Math.max(text.lastIndexOf('{{', at), text.lastIndexOf('{%', at));
  if (opened === -1) return false;
  const closedBefore = Math.max(text.lastIndexOf('}}', at), text.lastIndexOf('%}', at));
  if (closedBefore > opened) return false;
  const closer = text.startsWith('{{', opened) ? '}}' : '%}';
  return text.indexOf(closer, at) !== -1;
}

/**
 * References by name from syntax trees: whole-word occurrences that parse as identifiers (in
 * JSON and YAML, a key or a whole string that is the name; in YAML, also a word inside a template
 * expression, `{{ http_port }}`). Code files no grammar covers, or too large to
 * parse, that mention the name are returned as `unanalysed`, never skipped in silence: on a Go
 * repository every Go file was, and the answer claimed the one JSON match it found was all.
 */
export async function syntaxReferences(
  context: CodeContext,
  symbol: string,
  options: { glob?: string; signal: AbortSignal; parse?: boolean },
): Promise<{ locations: Answer['locations']; unanalysed: UnanalysedFile[] }> {
  const { name, container } = splitSymbol(symbol);
  const bare = bareSymbolName(name);
  // A member asked by its container (`Context.JSON`): only what can be that member counts.
  const member = container === undefined || bare !== name ? undefined : { name: bare, container };
  const matchesGlob = globMatcher(options.glob);
  const snapshot = await context.syntax.refresh({ signal: options.signal, filter: matchesGlob });
  const locations: Answer['locations'] = [];
  const unanalysed: UnanalysedFile[] = [];
  const needle = Buffer.from(bare, 'utf8');
  let looked = 0;
  for (const file of snapshot.files) {
    if (!matchesGlob(file.relative)) continue;
    if (++looked % MENTION_SCAN_BATCH === 0) await yieldToEventLoop();
    const language = languageOfPath(file.relative);
    const grammar = language?.grammar;
    const parsable = grammar !== undefined && file.size <= MAX_OUTLINE_BYTES;
    // With `parse: false` only the files no tree can be made of are looked at.
    if (parsable && options.parse === false) continue;
    // A file no tree is made of is read only to tell whether it mentions the name, and only code
    // counts: prose and data without a tree (Markdown, TOML, a huge JSON or YAML file) hold no references.
    if (!parsable && !language?.code) continue;
    const readLimit = parsable ? MAX_OUTLINE_BYTES : MAX_MENTION_SCAN_BYTES;
    if (!context.syntax.mayHold(file, needle, readLimit)) continue;
    const text = await context.languages.documents
      .read(file.relative, readLimit)
      .then((document) => document.text)
      .catch(() => undefined);
    if (text === undefined || !text.includes(bare)) continue;
    const offsets = wordOccurrences(text, bare);
    if (offsets.length === 0) continue;
    if (!parsable) {
      unanalysed.push({
        path: file.relative,
        reason: grammar === undefined ? `no grammar for ${language!.name}` : 'too large to parse',
      });
      continue;
    }
    const parser = await parserFor(grammar!);
    const tree = parser.parse(text);
    if (tree === null) continue;
    const lines = new LineIndex(text);
    try {
      for (const offset of offsets) {
        const node = tree.rootNode.descendantForIndex(offset, offset + bare.length);
        if (node === null) continue;
        if (grammar === 'yaml') {
          if (!isWholeYamlScalar(node, bare) && !isInYamlTemplateExpression(node, offset)) continue;
        } else {
          if (!IDENTIFIER_LIKE.test(node.type) || node.type === 'comment') continue;
          if (node.type === 'string_content' && (grammar !== 'json' || node.text !== bare)) continue;
        }
        const start = lines.positionAt(offset);
        if (
          member !== undefined &&
          !canBeMemberOccurrence(node, member, snapshot.analyses.get(file.relative), start.line + 1, grammar!)
        )
          continue;
        locations.push({
          path: file.relative,
          line: start.line + 1,
          character: start.character + 1,
          endLine: start.line + 1,
          endCharacter: start.character + bare.length + 1,
          preview: lines.lineText(start.line).trim().slice(0, 200),
          engine: 'syntax',
        });
      }
    } finally {
      tree.delete();
    }
  }
  return { locations, unanalysed };
}

export async function findReferences(
  context: CodeContext,
  request: PositionRequest & { glob?: string },
  signal: AbortSignal,
): Promise<Answer> {
  const notes: string[] = [];
  let target: { path: string; line?: number; character?: number } | undefined;
  if (request.path !== undefined) {
    target = {
      path: request.path,
      ...(request.line === undefined ? {} : { line: request.line }),
      ...(request.character === undefined ? {} : { character: request.character }),
    };
  } else {
    const declaration = (await findDeclarations(context, request.symbol, { signal })).find(
      (candidate) => context.languages.serverFor(candidate.path) !== undefined,
    );
    if (declaration !== undefined) target = { path: declaration.path, line: declaration.line };
  }
  if (target !== undefined) {
    const { path, text, hash, lines } = await readDocument(context, target.path);
    const server = context.languages.serverFor(path.relative);
    if (server !== undefined) {
      try {
        const scope = await openMentioningFiles(
          context,
          path.relative,
          splitSymbol(request.symbol).name,
          signal,
        );
        const unanalysed = unanalysedNote(request.symbol, scope.unanalysed);
        if (unanalysed !== undefined) notes.push(unanalysed);
        const locations = await serverLocations(
          context,
          path.relative,
          { text, hash, lines },
          {
            symbol: request.symbol,
            ...(target.line === undefined ? {} : { line: target.line }),
            ...(target.character === undefined ? {} : { character: target.character }),
          },
          'textDocument/references',
          signal,
        );
        const matchesGlob = globMatcher(request.glob);
        const unlinked = (
          await unlinkedMentions(
            context,
            path.relative,
            splitSymbol(request.symbol).name,
            scope,
            locations.map((location) => location.path),
            signal,
          )
        ).filter(matchesGlob);
        const unlinkedNote = unlinkedMentionsNote(request.symbol, unlinked);
        if (unlinkedNote !== undefined) notes.push(unlinkedNote);
        return {
          // Sorted: servers answer in an order that depends on which files they happened to load.
          locations: locations
            .filter((location) => !location.external && matchesGlob(location.path))
            .sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.character - b.character)
            .map((location) => ({ ...location, engine: 'language_server' })),
          engine: 'language_server',
          server,
          notes,
          unanalysed: scope.unanalysed.length,
          unlinked,
        };
      } catch (error) {
        if (
          isCancellation(error) ||
          isToolError(error, 'SYMBOL_NOT_FOUND') ||
          isToolError(error, 'POSITION_OUT_OF_RANGE')
        )
          throw error;
        notes.push(
          `The ${server} language server failed (${(error as Error).message}); answered from syntax trees by name.`,
        );
      }
    } else {
      await resolvePosition(context, path.relative, text, { symbol: request.symbol, ...target }, lines);
    }
  }
  const { locations, unanalysed } = await syntaxReferences(context, request.symbol, {
    glob: request.glob,
    signal,
  });
  const unanalysedText = unanalysedNote(request.symbol, unanalysed, 'from syntax trees');
  if (unanalysedText !== undefined) notes.push(unanalysedText);
  const { name, container } = splitSymbol(request.symbol);
  if (container !== undefined)
    notes.push(
      `Matched as uses of a member named ${name} (${container}'s declaration and every \`x.${name}\`): a syntax tree does not know types, so another type's member of that name is included; bare names, other declarations and members of imported packages are not.`,
    );
  return { locations, engine: 'syntax', notes, unanalysed: unanalysed.length };
}

export function renderAnswer(title: string, answer: Answer, limit: number) {
  const kept = answer.locations.slice(0, limit);
  const engineText =
    answer.engine === 'language_server'
      ? `language server ${answer.server ?? ''}`.trim()
      : 'syntax tree, by name';
  const lines = kept.map(
    (location) =>
      `${location.path}:${location.line}:${location.character}${location.kind === undefined ? '' : ` ${location.kind}`}${location.preview === undefined ? '' : `  ${location.preview}`}`,
  );
  if (answer.locations.length > kept.length)
    lines.push(`[${answer.locations.length - kept.length} more omitted: raise max_results]`);
  for (const note of answer.notes) lines.push(`Note: ${note}`);
  const body = joinCapped(lines);
  const unlinked = answer.unlinked ?? [];
  const incomplete =
    (answer.unanalysed === undefined || answer.unanalysed === 0
      ? ''
      : `; incomplete: ${answer.unanalysed} file${answer.unanalysed === 1 ? '' : 's'} mentioning it not analysed`) +
    (unlinked.length === 0
      ? ''
      : `; possibly incomplete: ${unlinked.length} other file${unlinked.length === 1 ? '' : 's'} mention${unlinked.length === 1 ? 's' : ''} it with nothing linked, see the note`);
  return textResult(
    `${answer.locations.length} ${title} (engine: ${engineText}${incomplete})\n${body.text}`,
    {
      engine: answer.engine,
      ...(answer.server === undefined ? {} : { server: answer.server }),
      locations: kept.map((location) => ({
        path: location.path,
        line: location.line,
        character: location.character,
        end_line: location.endLine,
        end_character: location.endCharacter,
        engine: location.engine,
        ...(location.kind === undefined ? {} : { kind: location.kind }),
        ...(location.external ? { external: true } : {}),
        ...(location.preview === undefined ? {} : { preview: location.preview }),
      })),
      total: answer.locations.length,
      truncated: answer.locations.length > kept.length || body.truncated,
      ...(answer.notes.length > 0 ? { notes: answer.notes } : {}),
      ...(answer.unanalysed === undefined ? {} : { unanalysed: answer.unanalysed }),
      ...(unlinked.length === 0
        ? {}
        : { unlinked_mentions: unlinked.slice(0, 100), unlinked_mentions_total: unlinked.length }),
    },
  );
}

export function requireSymbol(symbol: string): void {
  if (symbol.trim() === '') {
    throw invalidArguments('symbol must not be empty.', [{ path: '/symbol', message: 'must not be empty' }]);
  }
}
