import type { Workspace } from '@assistant-kit/tool-core';
import type { LanguageServerPool } from '../lsp/language-server-pool.js';
import type { SyntaxIndex } from '../syntax/syntax-index.js';
import type { LanguageService } from './language-service.js';
import type { RecentWrites } from './recent-writes.js';

/** Which engine produced an answer. */
export type EngineName = 'language_server' | 'syntax';

/** Everything the family's tools share within one session. */
export interface CodeContext {
  workspace: Workspace;
  syntax: SyntaxIndex;
  languages: LanguageService;
  pool: LanguageServerPool;
  /** Time to wait for a server's diagnostics of one file. */
  diagnosticsTimeoutMs: number;
  /** The files this session wrote, most recent first on request. */
  recentWrites: RecentWrites;
}
