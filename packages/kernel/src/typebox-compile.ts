/**
 * TypeBox's schema compiler, from the same copy of TypeBox as `@assistant-kit/kernel/typebox`
 * (see typebox.ts for why the packages import TypeBox through the kernel). Loaded on its own so
 * that a process that never validates (an MCP server answering tools/list) never loads it.
 *
 * @example
 * ```ts
 * import { Type } from '@assistant-kit/kernel/typebox';
 * import { Compile } from '@assistant-kit/kernel/typebox-compile';
 * Compile(Type.String()).Check('text'); // true
 * ```
 */
export * from 'typebox/compile';
