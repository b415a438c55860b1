import { isSettingsError } from '@assistant-kit/settings-schema';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type AnySettingsErrorCode,
  type ErrorBody,
  HTTP_ERROR_STATUS,
  isAnySettingsErrorCode,
  type SettingsHttpErrorCode,
  settingsHttpError,
} from './errors.js';
import { pageViewSchema, saveBodySchema } from './page-view.js';
import type { PageSettings, SettingsService } from './settings-service.js';

/** Default largest accepted save body: a full settings object is about 3 KiB. */
export const DEFAULT_SETTINGS_BODY_LIMIT = 256 * 1024;

/** The path of both endpoints (SPEC 4.1). */
export const CLIENT_DEFAULTS_PATH = '/api/system-settings/client-defaults';

/**
 * Maps a request to its account id. Return `null` (or throw) to answer 401. A thrown error
 * with a 4xx `statusCode` and a string `code` is answered as is (e.g. a failed CSRF check).
 */
export type AuthenticateRequest = (request: FastifyRequest) => string | null | Promise<string | null>;

/** Options of {@link settingsHttpPlugin}. */
export interface SettingsHttpPluginOptions {
  service: SettingsService;
  authenticate: AuthenticateRequest;
  /** Largest save body in bytes (default {@link DEFAULT_SETTINGS_BODY_LIMIT}). */
  bodyLimit?: number;
}

const errorSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        problems: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'message'],
            additionalProperties: false,
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the settings plugin's authentication hook. */
    settingsAccountId?: string;
  }
}

function errorReply(
  reply: FastifyReply,
  code: AnySettingsErrorCode | (string & {}),
  status: number,
  message: string,
  problems?: unknown,
) {
  const body: ErrorBody = { error: { code, message } };
  if (Array.isArray(problems) && problems.length > 0) body.error.problems = problems;
  return reply.code(status).header('cache-control', 'no-store').send(body);
}

/** Fastify's own error codes for bodies, mapped to this adapter's codes and fixed messages. */
const FASTIFY_ERRORS: Record<string, [SettingsHttpErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [
    'BODY_TOO_LARGE',
    'The request body is larger than the settings endpoint accepts.',
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Send the settings as application/json.'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['INVALID_JSON', 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    'INVALID_JSON',
    'The request body is empty; send the settings as a JSON object.',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['BAD_REQUEST', 'The Content-Length header does not match the body.'],
};

function handleError(
  this: FastifyInstance,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const code = typeof error.code === 'string' ? error.code : undefined;
  if (isSettingsError(error) && isAnySettingsErrorCode(error.code)) {
    const known = error.code;
    const status = HTTP_ERROR_STATUS[known];
    if (status >= 500) request.log.error({ code }, 'settings request failed');
    return errorReply(reply, known, status, error.message, error.problems);
  }
  if (code && code in FASTIFY_ERRORS) {
    const [mapped, message] = FASTIFY_ERRORS[code]!;
    return errorReply(reply, mapped, HTTP_ERROR_STATUS[mapped], message);
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (error instanceof SyntaxError || (status === 400 && !code)) {
    // The parser's message quotes the body, which may hold a key: answer with a fixed text.
    return errorReply(reply, 'INVALID_JSON', 400, 'The request body is not valid JSON.');
  }
  if (status >= 400 && status < 500) {
    // A host's own coded client error (its authenticate hook's CSRF refusal, say) passes through
    // with its code: those codes belong to the host, not to this package's closed set.
    return errorReply(
      reply,
      code ?? 'BAD_REQUEST',
      status,
      code ? error.message : 'The request is not valid.',
    );
  }
  request.log.error({ code: code ?? 'UNKNOWN' }, 'settings request failed');
  return errorReply(reply, 'INTERNAL', 500, 'The settings service failed; try again later.');
}

/** The entity tag of a revision; `"0"` stands for "nothing saved yet" (revisions start at 1). */
export function revisionTag(revision: number | null): string {
  return `"${revision ?? 0}"`;
}

/**
 * The revision a save expects, from `If-Match: "<revision>"` (`"0"`: nothing saved yet) or
 * `If-None-Match: *`; undefined when the request sends neither (then the save replaces).
 */
function expectedRevisionOf(request: FastifyRequest): number | null | undefined {
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.trim() === '*') return null;
  const ifMatch = request.headers['if-match'];
  if (ifMatch === undefined) return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,15})"\s*$/.exec(String(ifMatch));
  if (!match) {
    throw settingsHttpError(
      'BAD_REQUEST',
      'If-Match must be the revision tag the settings were loaded with, e.g. "3" ("0": nothing saved).',
    );
  }
  const revision = Number(match[1]);
  return revision === 0 ? null : revision;
}

function pageReply(reply: FastifyReply, page: PageSettings) {
  reply.header('cache-control', 'no-store');
  reply.header('x-settings-source', page.source);
  reply.header('etag', revisionTag(page.revision));
  if (page.revision !== null) reply.header('x-settings-revision', String(page.revision));
  if (page.removedRetiredKeys.length > 0)
    reply.header('x-settings-removed-keys', page.removedRetiredKeys.join(','));
  return reply.send(page.settings);
}

/**
 * Fastify plugin mounting `GET` and `POST /api/system-settings/client-defaults`. Register it
 * (encapsulated, so its error handler applies only to these routes) with a service and an
 * authentication hook.
 *
 * @example
 * await app.register(settingsHttpPlugin, {
 *   service: new SettingsService({ store, broker }),
 *   authenticate: (request) => sessions.accountOf(request),
 * });
 */
export async function settingsHttpPlugin(
  app: FastifyInstance,
  options: SettingsHttpPluginOptions,
): Promise<void> {
  const { service, authenticate } = options;
  if (!service || typeof authenticate !== 'function') {
    throw settingsHttpError('INTERNAL', 'settingsHttpPlugin needs a service and an authenticate function.');
  }
  const bodyLimit = options.bodyLimit ?? DEFAULT_SETTINGS_BODY_LIMIT;
  const pageSchema = pageViewSchema();
  const responses = {
    200: pageSchema,
    '4xx': errorSchema,
    '5xx': errorSchema,
  };

  app.setErrorHandler(handleError);
  // Declared on the request the Fastify way, so every request has the same shape.
  app.decorateRequest('settingsAccountId', undefined);
  app.addHook('onRequest', async (request) => {
    let accountId: string | null;
    try {
      accountId = await authenticate(request);
    } catch (error) {
      const { statusCode, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
      const passThrough =
        typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 && typeof code === 'string';
      if (passThrough) throw error;
      throw settingsHttpError('UNAUTHENTICATED', 'Sign in to read or save settings.', { cause: error });
    }
    if (typeof accountId !== 'string' || accountId.length === 0) {
      throw settingsHttpError('UNAUTHENTICATED', 'Sign in to read or save settings.');
    }
    request.settingsAccountId = accountId;
  });

  app.get(CLIENT_DEFAULTS_PATH, { schema: { response: responses } }, async (request, reply) => {
    return pageReply(reply, await service.loadForPage(request.settingsAccountId!));
  });

  const requireJson = async (request: FastifyRequest) => {
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type !== 'application/json') {
      throw settingsHttpError('UNSUPPORTED_MEDIA_TYPE', 'Send the settings as application/json.');
    }
  };

  app.post(
    CLIENT_DEFAULTS_PATH,
    {
      bodyLimit,
      onRequest: requireJson,
      schema: {
        body: saveBodySchema(),
        headers: {
          type: 'object',
          properties: {
            'if-match': {
              type: 'string',
              description: 'The revision tag (ETag) the settings were loaded with.',
            },
            'if-none-match': { type: 'string', description: '`*`: save only if nothing is saved yet.' },
          },
        },
        response: responses,
      },
      // The schemas document the route; the sanitizer validates the body and reports each problem.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const expectedRevision = expectedRevisionOf(request);
      return pageReply(
        reply,
        await service.save(
          request.settingsAccountId!,
          request.body,
          expectedRevision === undefined ? {} : { expectedRevision },
        ),
      );
    },
  );
}
