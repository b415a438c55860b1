/**
 * Variables copied from the service's environment into a command's. Everything else (provider
 * keys, tokens, database URLs, the service's own configuration) is left out: an allow-list, so a
 * secret with an unexpected name cannot slip through.
 */
const PASSED_THROUGH_VARIABLES = [
  'PATH',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_MONETARY',
  'TZ',
  'USER',
  'LOGNAME',
] as const;

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface CommandEnvironmentOptions {
  /** HOME as the command sees it. */
  home: string;
  /** TMPDIR as the command sees it. */
  temporaryDirectory: string;
  /** Marks sandboxed runs so scripts can tell (ASSISTANT_KIT_SANDBOX=1). */
  sandboxed: boolean;
  /** Caller-supplied variables, added after scrubbing (they win). */
  extra?: Record<string, string>;
  /** The environment to scrub; defaults to process.env. */
  source?: NodeJS.ProcessEnv;
}

/** The scrubbed environment a command runs with. */
export function buildCommandEnvironment(options: CommandEnvironmentOptions): Record<string, string> {
  const source = options.source ?? process.env;
  const environment: Record<string, string> = {};
  for (const name of PASSED_THROUGH_VARIABLES) {
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  environment.PATH ??= FALLBACK_PATH;
  // Commands decode and print text; without a UTF-8 locale many tools fall back to ASCII.
  if (environment.LANG === undefined && environment.LC_ALL === undefined) environment.LANG = 'C.UTF-8';
  environment.HOME = options.home;
  environment.TMPDIR = options.temporaryDirectory;
  // No terminal is attached; tools should not emit cursor movement or ask questions.
  environment.TERM = 'dumb';
  if (options.sandboxed) environment.ASSISTANT_KIT_SANDBOX = '1';
  for (const [name, value] of Object.entries(options.extra ?? {})) environment[name] = value;
  return environment;
}
