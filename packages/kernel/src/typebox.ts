/**
 * TypeBox's type builders, as the assistant-kit packages import them (`@assistant-kit/kernel/typebox`).
 *
 * Why through the kernel: TypeBox ships as several hundred ES modules, and Node resolves, reads
 * and links each one separately; importing its type builders took about a quarter of a second,
 * some 40 % of the MCP server's start to its tools/list answer. Built, this entry and
 * {@link ./typebox-compile.ts} are TypeBox bundled into a few files that share one copy of it.
 * From source they are TypeBox's own modules. Schemas are plain JSON Schema objects, so they work
 * with any other copy of TypeBox a caller uses.
 *
 * @example
 * ```ts
 * import { Type } from '@assistant-kit/kernel/typebox';
 * const parameters = Type.Object({ path: Type.String() });
 * ```
 */
export * from 'typebox';
export { default } from 'typebox';
