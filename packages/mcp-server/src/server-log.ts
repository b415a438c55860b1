import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type LoggingLevel, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** MCP's logging levels (RFC 5424 severities), least to most severe. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const satisfies readonly LoggingLevel[];
/** An MCP logging level, or `off`; messages below the chosen level are dropped. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `--log-level`: a level, or `off` for nothing on stderr. */
export type LogThreshold = LogLevel | 'off';

export function isLogThreshold(value: unknown): value is LogThreshold {
  return value === 'off' || (LOG_LEVELS as readonly unknown[]).includes(value);
}

const severity = (level: LogLevel) => LOG_LEVELS.indexOf(level);

/**
 * The server's log: each entry goes to stderr (stdout carries the protocol) when it reaches the
 * `--log-level` threshold, and to the client as an MCP `notifications/message` when it reaches the
 * level the client chose with `logging/setLevel` (before it chooses, the same threshold).
 */
export class ServerLog {
  readonly #threshold: LogThreshold;
  readonly #writeLine: (line: string) => void;
  #server: Server | undefined;
  #clientLevel: LogLevel | undefined;

  constructor(threshold: LogThreshold, writeLine: (line: string) => void) {
    this.#threshold = threshold;
    this.#writeLine = writeLine;
  }

  /** Sends entries to this server's client from now on, at the level the client sets. */
  attach(server: Server): void {
    this.#server = server;
    // Replaces the SDK's handler, which without a level set sends every entry, debug included.
    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.#clientLevel = request.params.level;
      return {};
    });
  }

  /** Writes one message to stderr and, once the client has connected, as an MCP log notification. */
  log(level: LogLevel, message: string, data?: Record<string, unknown>): void {
    const reaches = (threshold: LogThreshold) =>
      threshold !== 'off' && severity(level) >= severity(threshold);
    if (reaches(this.#threshold)) {
      const detail = data === undefined ? '' : ` ${JSON.stringify(data)}`;
      this.#writeLine(`assistant-kit-mcp [${level}] ${message}${detail}`);
    }
    const server = this.#server;
    if (server === undefined || server.transport === undefined) return;
    if (!reaches(this.#clientLevel ?? this.#threshold)) return;
    void server
      .sendLoggingMessage({
        level,
        logger: 'assistant-kit',
        data: data === undefined ? message : { message, ...data },
      })
      .catch(() => {});
  }
}
