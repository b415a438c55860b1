/** Security classes a tool call is authorised under (SPEC 2.4, 5.6). */
export const EFFECT_CLASSES = [
  'read',
  'workspace_write',
  'process',
  'network_read',
  'external_mutation',
] as const;
/** One security class a call is authorised under (SPEC 2.4, 5.6): read, write, process, network read, external change. */
export type EffectClass = (typeof EFFECT_CLASSES)[number];

/** Capabilities a tool declares about the workspace (SPEC 2.4). */
export const TOOL_CAPABILITIES = ['workspace.file', 'workspace.write', 'workspace.file-version'] as const;
/** One of the workspace capabilities a tool may declare (SPEC 2.4). */
export type ToolCapability = (typeof TOOL_CAPABILITIES)[number];

/** Execution modes; `sequential` tools run one at a time per workspace. */
export type ExecutionMode = 'sequential';

/** Where a result's content came from; browser content may carry injected instructions. */
export type ResultOrigin = 'browser';

/** The network grant of a tool. Every tool of the three configurations has `none`. */
export type NetworkGrant = 'none';
