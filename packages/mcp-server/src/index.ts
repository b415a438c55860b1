/** Public API of @assistant-kit/mcp-server. */
export { elicitationApprover } from './approval.js';
export { CommandLineError, parseCommandLine, type ServerCommandLine, USAGE } from './command-line.js';
export { type RunningServer, serveStdio } from './serve.js';
export { type CatalogServerOptions, createCatalogServer } from './server.js';
