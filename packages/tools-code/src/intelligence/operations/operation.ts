import type { ToolResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../../engine/code-context.js';
import type { OpenedDocument } from '../../engine/language-service.js';
import type { protocol } from '../../lsp/protocol.js';
import type { Requester } from '../../lsp/typescript-server.js';
import type { ZeroBasedPosition } from '../../positions.js';
import type { CodeIntelligenceOperation } from '../../schemas.js';
import type { EditTokenStore } from '../edit-tokens.js';

/** code_intelligence's arguments, as its schema validated them. */
export interface IntelligenceArguments {
  operation: CodeIntelligenceOperation;
  path: string;
  symbol?: string;
  line?: number;
  character?: number;
  end_line?: number;
  end_character?: number;
  direction?: 'incoming' | 'outgoing' | 'both';
  max_results?: number;
  new_name?: string;
  only?: string[];
  action_id?: string;
  edit_token?: string;
  tab_size?: number;
  insert_spaces?: boolean;
}

/** What every operation of the tool shares: the family's context, the edit tokens, the call. */
export interface OperationScope {
  args: IntelligenceArguments;
  context: CodeContext;
  tokens: EditTokenStore;
  /** False in R and plan mode: previews say applying is not available. */
  allowApply: boolean;
  signal: AbortSignal;
  /** max_results, bounded. */
  limit: number;
}

/** An operation on one document the language server has open. */
export interface DocumentOperationInput extends OperationScope {
  document: OpenedDocument;
  request: Requester;
  lsp: Awaited<ReturnType<typeof protocol>>;
  position: ZeroBasedPosition;
  textDocument: { uri: string };
  /** The fields every result's structured content starts with. */
  base: { operation: CodeIntelligenceOperation; engine: 'language_server'; server: string; path: string };
  relative: string;
  server: string;
}

export type DocumentOperation = (input: DocumentOperationInput) => Promise<ToolResult>;
