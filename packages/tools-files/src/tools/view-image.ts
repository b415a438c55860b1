import { defineTool, imageContent, type ToolResult, truncateText } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';
import type { FamilyContext } from '../family-context.js';
import { identifyImage } from '../image/image-format.js';
import { ViewImageParameters } from '../schemas.js';

export function createViewImageTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'view_image',
    facts: {
      offeredIn: ['W', 'U', 'R'],
      order: 4,
      planMode: 'offered',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    purpose: 'Views a workspace image (PNG, JPEG, GIF, WebP; SVG is returned as its source text).',
    parameters: ViewImageParameters,
    effects: ['read'],
    network: 'none',
    handler: async (args): Promise<ToolResult> => {
      const { workspace } = family.options;
      const target = await workspace.resolveFile(args.reference);
      if (target.size > options.maxImageBytes) {
        throw fileToolError(
          'IMAGE_TOO_LARGE',
          `"${target.relative}" has ${target.size} bytes; images up to ${options.maxImageBytes} bytes can be viewed. Make a smaller copy (for example with run_command) and view that.`,
          { details: { path: target.relative, size: target.size, limit: options.maxImageBytes } },
        );
      }
      const file = await workspace.readFile(args.reference, {
        observe: false,
        maxBytes: options.maxImageBytes,
      });
      const format = identifyImage(file.bytes);
      if (format === undefined) {
        throw fileToolError(
          'NOT_AN_IMAGE',
          `"${target.relative}" is not a PNG, JPEG, GIF, WebP or SVG image (judged by its content); read text files with read_file.`,
          { details: { path: target.relative } },
        );
      }
      const dimensions =
        format.width !== undefined && format.height !== undefined ? `, ${format.width}×${format.height}` : '';
      const summary = `${target.relative}: ${format.mimeType}${dimensions}, ${file.bytes.length} bytes`;
      const structured = {
        path: target.relative,
        mime_type: format.mimeType,
        bytes: file.bytes.length,
        width: format.width ?? null,
        height: format.height ?? null,
      };
      if (format.mimeType === 'image/svg+xml') {
        // The source is a workspace file already: read_file pages through it, so nothing is kept.
        const source = truncateText(file.bytes.toString('utf8'), options.maxOutputCharacters);
        return {
          content: [{ type: 'text', text: `${summary} (SVG source follows)\n${source.text}` }],
          structuredContent: { ...structured, truncated: source.truncated },
        };
      }
      return {
        content: [{ type: 'text', text: summary }, imageContent(file.bytes, format.mimeType)],
        structuredContent: structured,
      };
    },
  });
}
