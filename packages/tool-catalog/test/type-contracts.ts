// Type-level guarantees of issue 18, checked by test/typecheck.test.ts: every `@ts-expect-error`
// below must stay an error. If a constraint is loosened (an open `string` code, optional facts),
// TypeScript reports the directive as unused and the type check fails.

import type { ErrorCodeTable } from '@assistant-kit/kernel';
import {
  defineTool,
  ToolError,
  type ToolFamily,
  textResult,
  toolErrorFactory,
} from '@assistant-kit/tool-core';
import type { FileToolErrorCode } from '@assistant-kit/tools-files';
import { Type } from 'typebox';

// A tool-core code compiles; a family's code raised through ToolError directly does not.
export const core = new ToolError('FILE_NOT_OBSERVED', 'Read it first.');
// @ts-expect-error BINARY_FILE belongs to tools-files: raise it with fileToolError.
export const misplaced = new ToolError('BINARY_FILE', 'binary');
const fileToolError = toolErrorFactory<FileToolErrorCode>();
export const throughFactory = fileToolError('BINARY_FILE', 'binary');
// @ts-expect-error A code in no table does not compile, even through a family's factory.
export const unknownFamilyCode = fileToolError('NOT_A_CODE', 'nothing');

const widgetError = toolErrorFactory<'WIDGET_BROKEN'>();
export const widget = widgetError('WIDGET_BROKEN', 'broken');
// @ts-expect-error Factories accept their own codes and tool-core's only.
export const widgetOther = widgetError('EDIT_NO_MATCH', 'no');

// @ts-expect-error INVALID_ARGUMENTS goes through invalidArguments(), for its one details shape.
export const shapeless = widgetError('INVALID_ARGUMENTS', 'bad');

// A code table lists every code of its union.
export const complete = { A: { description: 'a' }, B: { description: 'b' } } satisfies ErrorCodeTable<
  'A' | 'B'
>;
// @ts-expect-error B is missing from the table.
export const incomplete = { A: { description: 'a' } } satisfies ErrorCodeTable<'A' | 'B'>;

// A family's tools declare their facts.
const undeclared = defineTool({
  name: 'undeclared',
  purpose: 'Has no facts.',
  parameters: Type.Object({}),
  effects: ['read'],
  network: 'none',
  handler: async () => textResult('ok'),
});
// @ts-expect-error A tool without facts cannot be offered by a family.
export const family: ToolFamily = { tools: [undeclared], close: async () => {} };
