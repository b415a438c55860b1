import { joinNul } from './git-runner.js';
import type { UserRepository } from './user-repository.js';

/**
 * Which of `paths` (workspace-relative) the user's repository stores with line endings
 * converted: git turns CRLF into LF when it commits them, so a CRLF working copy of an LF blob is
 * not a change. True for paths whose `text` attribute is set or `auto`, whose `eol` attribute is
 * set, or, with `text` unspecified, when `core.autocrlf` is true or input. `-text` (binary) never
 * converts. Reads attributes and config only: nothing the repository configures runs.
 */
export async function pathsWithConvertedLineEndings(
  repository: UserRepository,
  paths: readonly string[],
): Promise<Set<string>> {
  const converted = new Set<string>();
  if (paths.length === 0) return converted;
  const autocrlf = await repository.git.runWithExitCode(['config', '--get', 'core.autocrlf'], {
    acceptExitCodes: [1],
  });
  const autocrlfConverts = ['true', 'input'].includes(autocrlf.stdout.trim().toLowerCase());
  const output = await repository.git.run(['check-attr', '-z', '--stdin', 'text', 'eol'], {
    input: joinNul(paths),
  });
  // -z output: path NUL attribute NUL value NUL, for each path and attribute.
  const fields = output.split('\0');
  const attributes = new Map<string, { text?: string; eol?: string }>();
  for (let index = 0; index + 2 < fields.length; index += 3) {
    const [file, attribute, value] = [fields[index]!, fields[index + 1]!, fields[index + 2]!];
    const entry = attributes.get(file) ?? {};
    if (attribute === 'text') entry.text = value;
    if (attribute === 'eol') entry.eol = value;
    attributes.set(file, entry);
  }
  for (const file of paths) {
    const { text = 'unspecified', eol = 'unspecified' } = attributes.get(file) ?? {};
    if (text === 'unset') continue;
    if (text === 'set' || text === 'auto' || eol !== 'unspecified' || autocrlfConverts) converted.add(file);
  }
  return converted;
}
