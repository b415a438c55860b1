/** Public API of @assistant-kit/mcp-server. */
export { elicitationApprover } from './approval.js';
export {
  CommandLineError,
  type CommandLineLanguageServer,
  parseCommandLine,
  type ServerCommandLine,
  USAGE,
} from './command-line.js';
export { type RunningServer, serveStdio } from './serve.js';
export { type CatalogServerOptions, type CatalogSource, createCatalogServer } from './server.js';
export { LOG_LEVELS, type LogLevel, type LogThreshold, ServerLog } from './server-log.js';
