import type { ToolCatalog } from '@assistant-kit/tool-catalog';
import type { ToolResult } from '@assistant-kit/tool-core';
import type { ToolModelOutput, ToolSet } from './ai-types.js';
import { loadPeer } from './peer-modules.js';

/** The part of a catalogue the tools need: the offered tools and `call`. */
export type CatalogLike = Pick<ToolCatalog, 'tools' | 'call'>;

/** How catalogue tools become AI SDK tools. */
export interface CatalogToolsOptions {
  /**
   * Whether image parts of a result go to the model (`TurnModel.route.imagesInToolResults`).
   * When false, each image is named in the text instead. Default false.
   */
  readonly imagesInResults?: boolean;
}

function imageNote(mimeType: string, base64Length: number): string {
  const bytes = Math.floor((base64Length * 3) / 4);
  return `[${mimeType} image of about ${bytes} bytes left out: this provider cannot take images in tool results]`;
}

/**
 * A catalogue result as the model receives it: its text parts joined, and its images as image
 * parts when the provider takes them. An error result stays an error (`error-text`), so the model
 * sees the stable code and message the catalogue wrote.
 */
export function toModelOutputOf(result: ToolResult, imagesInResults: boolean): ToolModelOutput {
  const content = Array.isArray(result.content) ? result.content : [];
  const hasImage = content.some((part) => part.type === 'image');
  if (hasImage && imagesInResults) {
    return {
      type: 'content',
      value: content.map((part) =>
        part.type === 'image'
          ? { type: 'image-data' as const, data: part.data, mediaType: part.mimeType }
          : { type: 'text' as const, text: part.text },
      ),
    };
  }
  const text = content
    .map((part) => (part.type === 'image' ? imageNote(part.mimeType, part.data.length) : part.text))
    .join('\n');
  return result.isError === true ? { type: 'error-text', value: text } : { type: 'text', value: text };
}

/**
 * The catalogue's offered tools as the AI SDK's `tools` object: each tool's description and JSON
 * Schema (`jsonSchema()` from `ai`), executed through `catalog.call`, so argument validation, the
 * permission mode, the per-workspace queue, the execution timeout and the result envelope stay the
 * catalogue's. The tool's output (seen in `tool-result` stream parts) is the catalogue's
 * `ToolResult`; the model receives {@link toModelOutputOf} of it.
 *
 * Build it again after `catalog.applySettings` changes the permission mode: plan mode offers fewer
 * tools.
 */
export async function createCatalogTools(
  catalog: CatalogLike,
  options: CatalogToolsOptions = {},
): Promise<ToolSet> {
  const { tool, jsonSchema } = await loadPeer('ai');
  const imagesInResults = options.imagesInResults ?? false;
  const tools: ToolSet = {};
  for (const described of catalog.tools) {
    const name = described.name;
    tools[name] = tool<unknown, ToolResult>({
      description: described.purpose,
      inputSchema: jsonSchema(described.inputSchema),
      execute: (input, { abortSignal, toolCallId }) =>
        catalog.call(name, input, { signal: abortSignal, callId: toolCallId }),
      toModelOutput: ({ output }) => toModelOutputOf(output, imagesInResults),
    });
  }
  return tools;
}
