import { invalidArguments, isToolError, sha256Hex, type Workspace } from '@assistant-kit/tool-core';
import type { CommandSourceArgument } from '../schemas.js';

/** Largest evidence file whose UTF-8 and hash are checked. */
export const MAX_EVIDENCE_BYTES = 10 * 1024 * 1024;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks sources before the command runs: http(s) URLs only, evidence paths confined to the
 * workspace. The evidence file itself may be written by the command, so it is read afterwards.
 */
export async function checkSources(
  sources: readonly CommandSourceArgument[],
  workspace: Workspace,
): Promise<void> {
  for (const [index, source] of sources.entries()) {
    let url: URL;
    try {
      url = new URL(source.url);
    } catch {
      throw invalidArguments(`sources[${index}].url is not a valid URL: "${source.url}".`, [
        { path: `/sources/${index}/url`, message: 'is not a valid URL' },
      ]);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw invalidArguments(`sources[${index}].url must be an external http(s) URL, not ${url.protocol}.`, [
        { path: `/sources/${index}/url`, message: 'must be an http(s) URL' },
      ]);
    }
    if (source.evidence_path !== undefined) await workspace.resolve(source.evidence_path);
  }
}

/** Evidence file status recorded with a source. */
type EvidenceRecord =
  | { status: 'ok'; path: string; bytes: number; sha256: string }
  | { status: 'missing' | 'not_utf8' | 'too_large' | 'not_a_file'; path: string };

async function evidenceOf(evidencePath: string, workspace: Workspace): Promise<EvidenceRecord> {
  const resolved = await workspace.resolve(evidencePath);
  if (resolved.kind === 'missing') return { status: 'missing', path: resolved.relative };
  if (resolved.kind !== 'file') return { status: 'not_a_file', path: resolved.relative };
  if (resolved.size > MAX_EVIDENCE_BYTES) return { status: 'too_large', path: resolved.relative };
  try {
    const file = await workspace.readFile(evidencePath, { observe: false, maxBytes: MAX_EVIDENCE_BYTES });
    strictUtf8.decode(file.bytes);
    return { status: 'ok', path: resolved.relative, bytes: file.bytes.length, sha256: sha256Hex(file.bytes) };
  } catch (error) {
    if (isToolError(error)) throw error;
    return { status: 'not_utf8', path: resolved.relative };
  }
}

/** The provenance recorded with a command's result: each source and the state of its evidence. */
export async function recordSources(
  sources: readonly CommandSourceArgument[],
  workspace: Workspace,
): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for (const source of sources) {
    const record: Record<string, unknown> = { url: source.url, coverage: source.coverage };
    if (source.title !== undefined) record.title = source.title;
    if (source.evidence_path !== undefined)
      record.evidence = await evidenceOf(source.evidence_path, workspace);
    records.push(record);
  }
  return records;
}
