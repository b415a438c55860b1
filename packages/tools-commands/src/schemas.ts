import { type Static, Type } from '@assistant-kit/kernel/typebox';
import { StringEnum } from '@assistant-kit/tool-core';

/** Most items `sources` may hold (SPEC 8). */
export const MAX_SOURCES = 50;
/** Longest wait_command wait, in seconds (SPEC 8). */
export const MAX_WAIT_SECONDS = 60;
/** Default wait_command wait, in seconds (SPEC 8). */
export const DEFAULT_WAIT_SECONDS = 30;

/** One external http(s) source a command reads (additional properties forbidden). */
export const CommandSource = Type.Object(
  {
    url: Type.String({ description: 'exact source URL' }),
    title: Type.Optional(Type.String()),
    coverage: StringEnum(['complete', 'partial', 'unknown']),
    evidence_path: Type.Optional(
      Type.String({ description: 'optional workspace-relative UTF-8 evidence file' }),
    ),
  },
  { additionalProperties: false },
);

const command = Type.Optional(Type.String({ description: 'a script' }));
const argv = Type.Optional(
  Type.Array(Type.String(), {
    minItems: 1,
    description: 'literal executable and arguments',
  }),
);
const shell = Type.Optional(
  StringEnum(['bash', 'powershell'], {
    description: 'applies to command only; default bash; powershell uses UTF-8',
    default: 'bash',
  }),
);
const executionContext = Type.Optional(
  StringEnum(['sandbox', 'host'], {
    description:
      "default sandbox. host runs on the normal desktop with this account's file and device authority, the same network grant and no workspace isolation; the permission mode authorises it separately",
    default: 'sandbox',
  }),
);
const background = Type.Optional(Type.Boolean({ description: 'returns a handle for wait_command' }));
const cwd = Type.Optional(Type.String({ description: "workspace-relative; default '.'", default: '.' }));
const timeoutSeconds = Type.Optional(
  Type.Integer({ description: 'kill the whole process tree after this many seconds' }),
);
const sources = Type.Optional(
  Type.Array(CommandSource, {
    maxItems: MAX_SOURCES,
    description: 'external http(s) sources the command reads; omitted for local-only commands',
  }),
);

/**
 * run_command parameters in configurations W and U (with `background`). At least one of command
 * or argv must be given, and not both; the handler checks that (a top-level oneOf is refused by
 * several function-calling APIs).
 */
export const RunCommandParameters = Type.Object({
  command,
  argv,
  shell,
  execution_context: executionContext,
  background,
  cwd,
  timeout_seconds: timeoutSeconds,
  sources,
});

/** run_command parameters in configuration R: no `background`. */
export const RunCommandParametersReadOnly = Type.Object({
  command,
  argv,
  shell,
  execution_context: executionContext,
  cwd,
  timeout_seconds: timeoutSeconds,
  sources,
});

/** wait_command parameters. */
export const WaitCommandParameters = Type.Object({
  handle: Type.String({ description: 'handle returned by a background run_command' }),
  timeout_seconds: Type.Optional(
    Type.Integer({
      maximum: MAX_WAIT_SECONDS,
      default: DEFAULT_WAIT_SECONDS,
      description: 'maximum 60; default wait is 30 seconds',
    }),
  ),
  // An extension of SPEC 4.4 (issue 14): see docs/decisions/tools-commands.md.
  until_output: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1_000,
      description:
        'regular expression (JavaScript syntax); return as soon as output printed during this wait matches it, e.g. "Listening on|ready in"; without it the wait lasts until the command exits or the timeout ends',
    }),
  ),
});

/** run_command's arguments, as its schema validates them. */
export type RunCommandArguments = Static<typeof RunCommandParameters>;
/** wait_command's arguments, as its schema validates them. */
export type WaitCommandArguments = Static<typeof WaitCommandParameters>;
export type CommandSourceArgument = Static<typeof CommandSource>;
