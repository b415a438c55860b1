import { CONFIGURATIONS, type Configuration } from '@assistant-kit/kernel';
import type { Static, TSchema } from 'typebox';
import type { EffectClass, ExecutionMode, NetworkGrant, ResultOrigin, ToolCapability } from './effects.js';
import type { ToolResult } from './result.js';
import type { KeptOutput, OutputToKeep } from './runtime/kept-output.js';
import type { ProcessLauncher } from './runtime/process-launcher.js';
import type { Workspace } from './workspace/workspace.js';

export { CONFIGURATIONS, type Configuration };

/**
 * What the `plan` permission mode does with a tool: offer it unchanged, offer its read-only
 * variant (the definition's `facts.readOnlyParameters`, authorised as `read`), or hide it.
 */
export type PlanModeBehaviour = 'offered' | 'read-only-variant' | 'hidden';

/** MCP's behaviour hints for clients (MCP specification, `ToolAnnotations`). */
export interface ToolAnnotations {
  /** Shown to people; derived from the name when left out. */
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * The facts about a tool that the catalogue, the plan filter and the MCP server derive W, U, R,
 * plan mode and annotations from. They live on the tool so nothing keeps a parallel list by name.
 */
export interface ToolFacts {
  /** The configurations that offer the tool. */
  offeredIn: readonly Configuration[];
  /** Position in SPEC 4.4's tool order, 1 being first; unique across the catalogue. */
  order: number;
  planMode: PlanModeBehaviour;
  /**
   * For `planMode: 'read-only-variant'`: the parameters without any writing operation. Plan mode
   * and configuration R offer the tool with these parameters and the `read` effect only.
   */
  readOnlyParameters?: TSchema;
  annotations: ToolAnnotations;
  /**
   * True for the tool that reverses earlier dispatches (undo_workspace_dispatches): a host must not
   * record its call as a dispatch of its own, or the next undo would reverse the undo.
   */
  undoesDispatches?: boolean;
}

/** Progress of a long call, forwarded to MCP progress notifications by the server. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** What a handler receives besides its validated arguments. */
export interface ToolCallContext {
  /** The only way a handler reaches files: confinement, protected paths, ledger, atomic writes. */
  workspace: Workspace;
  /**
   * The only way a handler starts a process: it carries the host's sandbox options, so they
   * cover every tool that runs one (run_command, run_tests, an app's dev server).
   */
  processes: ProcessLauncher;
  /** Aborted when the caller cancels the call; long handlers must stop promptly. */
  signal: AbortSignal;
  /** Reports progress of a long call; a no-op when nobody listens. */
  reportProgress(progress: ToolProgress): void;
  /** Unique id of this call, for logs and correlation. */
  callId: string;
  /**
   * Keeps the full output of a result the tool cut, in the hidden app folder where read_file can
   * page through it (see `cutOutput`); `undefined` when it could not be kept.
   */
  keepOutput(output: OutputToKeep): Promise<KeptOutput | undefined>;
}

/**
 * A workspace tool (SPEC 2.4): its description for the model, its parameter schema, the effect
 * classes it is authorised under, and the handler that does the work.
 */
export interface ToolDefinition<Parameters extends TSchema = TSchema> {
  name: string;
  /** One-line purpose shown to the model. */
  purpose: string;
  /** JSON Schema of the arguments, written in TypeBox. */
  parameters: Parameters;
  effects: readonly EffectClass[];
  capabilities?: readonly ToolCapability[];
  execution?: ExecutionMode;
  origin?: ResultOrigin;
  network: NetworkGrant;
  /**
   * Says whether a call needs host execution, which the policy authorises separately from every
   * effect class (SPEC 5.6). Only run_command uses it.
   */
  requiresHostExecution?: (args: Static<Parameters>) => boolean;
  /**
   * The effect classes of one call, where they depend on its arguments: browser_screenshot reads
   * (SPEC 4.4's class) and also writes a workspace file when given a path. The policy authorises
   * these for the call instead of `effects`, so `ask` asks before that write.
   */
  effectsOf?: (args: Static<Parameters>) => readonly EffectClass[];
  /**
   * Does the work of one authorised call with arguments already validated against `parameters`;
   * reaches files and processes only through `context`, and reports failures as a thrown
   * {@link ToolError}.
   */
  handler: (args: Static<Parameters>, context: ToolCallContext) => Promise<ToolResult>;
  /** Required of every tool a family offers (see {@link ToolFamily}); optional for ad-hoc tools. */
  facts?: ToolFacts;
}

/** Any tool definition, whatever its parameter schema. */
export interface AnyToolDefinition
  extends Omit<ToolDefinition, 'handler' | 'requiresHostExecution' | 'effectsOf'> {
  // Method syntax on purpose: parameters are checked bivariantly, so a tool whose handler takes
  // its own argument type is still an AnyToolDefinition.
  /** Does the work of one call (see {@link ToolDefinition.handler}). */
  // biome-ignore lint/suspicious/noExplicitAny: the handler's argument type varies per tool.
  handler(args: any, context: ToolCallContext): Promise<ToolResult>;
  /** Whether a call needs host execution (see {@link ToolDefinition.requiresHostExecution}). */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  requiresHostExecution?(args: any): boolean;
  /** The effect classes of one call (see {@link ToolDefinition.effectsOf}). */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  effectsOf?(args: any): readonly EffectClass[];
}

/** A tool definition whose facts are declared: what a family offers to the catalogue. */
export type DeclaredToolDefinition = AnyToolDefinition & { facts: ToolFacts };

/**
 * Defines a tool so its schema, metadata and handler stay together and the handler's arguments
 * are typed from the schema.
 *
 * @example
 * const echo = defineTool({
 *   name: 'echo',
 *   purpose: 'Returns its text.',
 *   parameters: Type.Object({ text: Type.String() }),
 *   effects: ['read'],
 *   network: 'none',
 *   handler: async ({ text }) => textResult(text),
 * });
 */
export function defineTool<Parameters extends TSchema>(
  definition: ToolDefinition<Parameters> & { facts: ToolFacts },
): ToolDefinition<Parameters> & { facts: ToolFacts };
export function defineTool<Parameters extends TSchema>(
  definition: ToolDefinition<Parameters>,
): ToolDefinition<Parameters>;
export function defineTool<Parameters extends TSchema>(
  definition: ToolDefinition<Parameters>,
): ToolDefinition<Parameters> {
  return definition;
}

/**
 * A family's tools bound to one workspace session, and the clean-up that ends whatever they
 * started (browsers, language servers, background processes, servers).
 */
export interface ToolFamily {
  /** Every tool declares its facts, so the catalogue derives configurations and plan mode. */
  tools: readonly DeclaredToolDefinition[];
  /** Ends everything the family started for this session; safe to call more than once. */
  close(): Promise<void>;
}
