import { randomUUID } from 'node:crypto';
import { copyFile, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@assistant-kit/kernel';
import { type TruncatedText, truncateText } from '../truncate.js';
import type { Workspace } from '../workspace/workspace.js';

/** Folder of kept outputs under the hidden app folder (readable with read_file, never writable). */
export const KEPT_OUTPUT_FOLDER = 'output';

/** Kept outputs beyond this many are deleted, oldest first, so the folder stays bounded. */
export const KEPT_OUTPUT_LIMIT = 100;

/** The full text of a result that was cut, kept where the model can page through it. */
export interface KeptOutput {
  /** Workspace-relative path, e.g. `.assistant-kit/output/1764000000000-run_command-3f9a2b1c.txt`. */
  path: string;
  /** Lines in the kept file. */
  lines: number;
}

/** What a tool keeps: text it holds, or a file (outside the workspace) it spooled to. */
export type OutputToKeep = string | { file: string };

function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/**
 * Keeps the full output of a call in `.assistant-kit/output/`, which every configuration may write
 * like the screenshots folder (service state, git-ignored, refused to every write tool) and
 * read_file can page through. Returns `undefined` when it could not be kept (a full disk): a cut
 * result then only says how much was cut, and the call itself never fails for it.
 */
export async function keepOutput(
  workspace: Workspace,
  tool: string,
  output: OutputToKeep,
): Promise<KeptOutput | undefined> {
  try {
    const folder = await workspace.ensureHiddenDirectory(KEPT_OUTPUT_FOLDER);
    // Time first, so names sort oldest first for pruning; the random part keeps calls apart.
    const name = `${Date.now()}-${tool.replace(/[^\w-]/g, '_')}-${randomUUID().slice(0, 8)}.txt`;
    const target = path.join(folder, name);
    let lines: number;
    if (typeof output === 'string') {
      await writeFileAtomic(target, output);
      lines = countLines(output);
    } else {
      await copyFile(output.file, target);
      lines = countLines(await readFile(target, 'utf8'));
    }
    await pruneKeptOutputs(folder);
    return { path: workspace.relativePath(target), lines };
  } catch {
    return undefined;
  }
}

async function pruneKeptOutputs(folder: string): Promise<void> {
  const names = (await readdir(folder)).filter((name) => name.endsWith('.txt')).sort();
  const excess = names.slice(0, Math.max(0, names.length - KEPT_OUTPUT_LIMIT));
  await Promise.all(excess.map((name) => rm(path.join(folder, name), { force: true })));
}

/**
 * The sentence a cut result ends with: where the full output is and how to page through it,
 * from the line where the cut began. Without a kept copy, it says that nothing could be kept.
 */
export function keptOutputNote(kept: KeptOutput | undefined, firstCutLine?: number): string {
  if (kept === undefined) return 'The full output could not be kept.';
  const from = firstCutLine === undefined ? '' : ` The cut begins at line ${firstCutLine}.`;
  return `The full output (${kept.lines} line${kept.lines === 1 ? '' : 's'}) is kept in ${kept.path}: read it with read_file (path "${kept.path}", offset_line and max_lines).${from}`;
}

/** 1-based line of `text` on which character `offset` lies. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1;
  }
  return line;
}

/** A result's text cut to its cap, with the full text kept when anything was cut. */
export interface CutOutput extends TruncatedText {
  kept?: KeptOutput;
}

/**
 * Cuts `text` to `cap` characters like {@link truncateText} and, when it cut, keeps the full text
 * through `keep` (a call's `context.keepOutput`) and says in the marker where it is and from which
 * line to read. Tools use it wherever they bound a text they hold in full.
 *
 * @example
 * const cut = await cutOutput(context.keepOutput, diff, maxChars);
 */
export async function cutOutput(
  keep: (output: OutputToKeep) => Promise<KeptOutput | undefined>,
  text: string,
  cap: number,
  strategy: 'head' | 'head-and-tail' = 'head',
): Promise<CutOutput> {
  if (text.length <= cap) return truncateText(text, cap, strategy);
  const kept = await keep(text);
  // The note about the kept copy comes out of the cap, so the result stays within it.
  const noteRoom = keptOutputNote(kept, 9_999_999).length + 2;
  const room = Math.max(Math.ceil(cap / 2), cap - noteRoom);
  const cut = truncateText(text, room, strategy);
  const cutAt = strategy === 'head' ? room : Math.ceil(room / 2);
  const marker = /\n\[truncated: [^\]]*\]/;
  return {
    ...cut,
    text: cut.text.replace(
      marker,
      (found) => `${found.slice(0, -1)}. ${keptOutputNote(kept, lineAt(text, cutAt))}]`,
    ),
    ...(kept === undefined ? {} : { kept }),
  };
}
