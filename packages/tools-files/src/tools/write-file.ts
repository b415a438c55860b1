import { defineTool, textResult } from '@assistant-kit/tool-core';
import { fileToolError } from '../errors.js';
import type { FamilyContext } from '../family-context.js';
import { WriteFileParameters } from '../schemas.js';
import { decodeText, detectEncoding, encodeText, type TextEncoding } from '../text/encoding.js';
import {
  applyLineEndings,
  detectLineEndings,
  type LineEndingStyle,
  lineEndingLabel,
} from '../text/line-endings.js';
import { isBinaryContent } from '../text/text-file.js';

const NEW_FILE_ENCODING: TextEncoding = { name: 'utf-8', bom: false, source: 'utf-8' };

export function createWriteFileTool(family: FamilyContext) {
  const { options } = family;
  return defineTool({
    name: 'write_file',
    facts: {
      offeredIn: ['W', 'U'],
      order: 1,
      planMode: 'hidden',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    purpose:
      'Creates a file, or atomically replaces the full content of a file already read in this session (keeping its encoding and line endings).',
    parameters: WriteFileParameters,
    effects: ['workspace_write'],
    capabilities: ['workspace.file', 'workspace.write', 'workspace.file-version'],
    execution: 'sequential',
    network: 'none',
    handler: async (args) => {
      const { workspace } = family.options;
      workspace.assertWritable();
      const target = await workspace.resolve(args.path);
      if (target.kind === 'directory') {
        throw fileToolError('PATH_IS_DIRECTORY', `"${target.relative}" is a directory; give a file path.`, {
          details: { path: target.relative },
        });
      }
      if (target.kind === 'missing') {
        const bytes = encodeText(args.content, NEW_FILE_ENCODING, target.relative);
        const created = await workspace.createFile(args.path, bytes);
        const style = detectLineEndings(args.content);
        return textResult(`Created ${created.relative} (${bytes.length} bytes, utf-8).`, {
          path: created.relative,
          action: 'created',
          bytes: bytes.length,
          encoding: 'utf-8',
          bom: false,
          line_endings: style,
          hash: workspace.ledger.get(created.relative)?.hash,
        });
      }
      if (workspace.ledger.get(target.relative) === undefined) {
        throw fileToolError(
          'FILE_NOT_OBSERVED',
          `"${target.relative}" already exists and was not read in this session; read it with read_file first, then replace it (or edit it with edit_file).`,
          { details: { path: target.relative } },
        );
      }
      const current = await workspace.readFile(args.path, { observe: false, maxBytes: options.maxEditBytes });
      let encoding = NEW_FILE_ENCODING;
      let style: LineEndingStyle = 'none';
      if (!isBinaryContent(current.bytes, undefined)) {
        const remembered = family.encodingMemory.recall(target.relative, current.hash);
        encoding = detectEncoding(current.bytes, target.relative, remembered);
        style = detectLineEndings(decodeText(current.bytes, encoding));
      }
      const content = applyLineEndings(args.content, style);
      const bytes = encodeText(content, encoding, target.relative);
      const unchanged = bytes.equals(current.bytes);
      // replaceFile re-checks that the file is the observed version right before the rename.
      const written = unchanged ? target : await workspace.replaceFile(args.path, bytes);
      if (unchanged) workspace.observe(target.relative, { hash: current.hash, size: current.bytes.length });
      const hash = workspace.ledger.get(written.relative)?.hash;
      if (encoding.source === 'named' && hash !== undefined) {
        family.encodingMemory.remember(written.relative, hash, encoding.name);
      }
      const encodingLabel = `${encoding.name}${encoding.bom ? ' with BOM' : ''}`;
      const kept = style === 'lf' || style === 'crlf' ? `, ${lineEndingLabel(style)} line endings kept` : '';
      return textResult(
        unchanged
          ? `${written.relative} already has this content; nothing was written.`
          : `Replaced ${written.relative} (${bytes.length} bytes, ${encodingLabel}${kept}).`,
        {
          path: written.relative,
          action: unchanged ? 'unchanged' : 'replaced',
          bytes: bytes.length,
          encoding: encoding.name,
          bom: encoding.bom,
          line_endings: style === 'none' ? detectLineEndings(content) : style,
          hash,
        },
      );
    },
  });
}
