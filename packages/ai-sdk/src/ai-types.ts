/**
 * Types taken from the AI SDK's own declarations (never restated), so an upgrade of `ai` that
 * changes them breaks the build here instead of at run time.
 */
import type { LanguageModel, streamText, Tool, ToolSet } from 'ai';

/** `providerOptions` as `streamText` / `generateText` take it. */
export type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

/** What a tool's `toModelOutput` returns: the part of a tool result the model receives. */
export type ToolModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

export type { LanguageModel, ToolSet };
