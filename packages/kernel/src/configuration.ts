/**
 * The three tool configurations of SPEC 4.4: W (workspace write, 31 tools), U (W plus undo, 32)
 * and R (read-only, 28). Here rather than in tool-core so a program that only parses a
 * configuration name (the MCP bin's command line) does not load the tool stack to do it.
 */
export const CONFIGURATIONS = ['W', 'U', 'R'] as const;
/** One tool configuration: W (workspace), U (W with undo) or R (read-only). */
export type Configuration = (typeof CONFIGURATIONS)[number];

/** True for `W`, `U` and `R`. */
export function isConfiguration(value: unknown): value is Configuration {
  return typeof value === 'string' && (CONFIGURATIONS as readonly string[]).includes(value);
}
