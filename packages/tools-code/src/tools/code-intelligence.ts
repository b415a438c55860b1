import { defineTool, type ToolResult } from '@assistant-kit/tool-core';
import type { CodeContext } from '../engine/code-context.js';
import { readText, resolvePosition } from '../engine/symbol-queries.js';
import { boundedCount, codeError } from '../errors.js';
import type { EditTokenStore, PreviewKind } from '../intelligence/edit-tokens.js';
import { applyPreview } from '../intelligence/operations/apply.js';
import { callHierarchyOperation } from '../intelligence/operations/call-hierarchy.js';
import { findImplementationsOperation } from '../intelligence/operations/find-implementations.js';
import { hoverOperation } from '../intelligence/operations/hover.js';
import { listActionsOperation } from '../intelligence/operations/list-actions.js';
import type {
  DocumentOperation,
  IntelligenceArguments,
  OperationScope,
} from '../intelligence/operations/operation.js';
import { previewFormatOperation } from '../intelligence/operations/preview-format.js';
import { previewRenameOperation } from '../intelligence/operations/preview-rename.js';
import { syntaxHoverOperation } from '../intelligence/operations/syntax-hover.js';
import { protocol } from '../lsp/protocol.js';
import { REGISTER_LANGUAGE_SERVER_HINT } from '../lsp/registrations.js';
import type { Requester } from '../lsp/typescript-server.js';
import {
  type CodeIntelligenceOperation,
  CodeIntelligenceParameters,
  CodeIntelligenceParametersReadOnly,
} from '../schemas.js';

/** The operations that write: each applies the preview of its kind. */
type ApplyOperation = 'apply_rename' | 'apply_action' | 'apply_format';

const APPLY_OPERATIONS = {
  apply_rename: 'rename',
  apply_action: 'action',
  apply_format: 'format',
} as const satisfies Record<ApplyOperation, PreviewKind>;

/**
 * Every operation that reads a document through its language server, one handler each. The
 * `satisfies` makes the table exhaustive: an operation added to the schema without a handler
 * does not compile.
 */
const DOCUMENT_OPERATIONS = {
  hover: hoverOperation,
  find_implementations: findImplementationsOperation,
  call_hierarchy: callHierarchyOperation,
  preview_rename: previewRenameOperation,
  preview_format: previewFormatOperation,
  list_actions: listActionsOperation,
} as const satisfies Record<Exclude<CodeIntelligenceOperation, ApplyOperation>, DocumentOperation>;

function isApplyOperation(operation: CodeIntelligenceOperation): operation is ApplyOperation {
  return Object.hasOwn(APPLY_OPERATIONS, operation);
}

function requireServer(context: CodeContext, relative: string, operation: string): string {
  const server = context.languages.serverFor(relative);
  if (server === undefined) {
    throw codeError(
      'NO_LANGUAGE_SERVER',
      `${operation} needs a language server and none covers "${relative}". ${REGISTER_LANGUAGE_SERVER_HINT}`,
      { details: { path: relative, operation } },
    );
  }
  return server;
}

/** code_intelligence: hover, implementations, call hierarchy, and previewed refactorings. */
export function codeIntelligenceTool(context: CodeContext, tokens: EditTokenStore, allowApply: boolean) {
  const parameters = allowApply ? CodeIntelligenceParameters : CodeIntelligenceParametersReadOnly;
  return defineTool({
    name: 'code_intelligence',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 31,
      planMode: 'read-only-variant',
      readOnlyParameters: CodeIntelligenceParametersReadOnly,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      'Runs one advanced language-server operation. The apply operations require the edit_token of the matching preview.',
    parameters,
    effects: ['workspace_write'],
    capabilities: ['workspace.write'],
    execution: 'sequential',
    network: 'none',
    handler: async (rawArgs, { signal }): Promise<ToolResult> => {
      const args = rawArgs as IntelligenceArguments;
      const scope: OperationScope = {
        args,
        context,
        tokens,
        allowApply,
        signal,
        limit: boundedCount('max_results', args.max_results, 50, 1_000),
      };
      const { operation } = args;
      if (isApplyOperation(operation)) return applyPreview(scope, APPLY_OPERATIONS[operation]);
      const { path, text, hash } = await readText(context, args.path);
      const relative = path.relative;
      if (operation === 'hover' && context.languages.serverFor(relative) === undefined) {
        return syntaxHoverOperation(scope, relative, text);
      }
      const server = requireServer(context, relative, operation);
      return context.languages.withDocument(
        relative,
        async (document) => {
          const request: Requester = (type, params) =>
            context.languages.request(document, type, params, signal);
          const needsPosition = operation !== 'preview_format' || args.line !== undefined;
          const position = needsPosition
            ? await resolvePosition(context, relative, document.text, args)
            : { line: 0, character: 0 };
          return DOCUMENT_OPERATIONS[operation]({
            ...scope,
            document,
            request,
            lsp: await protocol(),
            position,
            textDocument: { uri: document.uri },
            base: { operation, engine: 'language_server', server, path: relative },
            relative,
            server,
          });
        },
        { path: { relative }, text, hash },
      );
    },
  });
}
