/** A file line that resembles the text an edit looked for. */
export interface CandidateLine {
  line: number;
  text: string;
  similarity: number;
}

function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index += 1) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

/** Sørensen–Dice similarity of character bigrams: cheap enough for every line of a large file. */
function similarity(left: Map<string, number>, leftSize: number, right: string): number {
  if (leftSize === 0 || right.length < 2) return 0;
  let shared = 0;
  const remaining = new Map(left);
  for (let index = 0; index < right.length - 1; index += 1) {
    const pair = right.slice(index, index + 2);
    const count = remaining.get(pair);
    if (count !== undefined && count > 0) {
      shared += 1;
      remaining.set(pair, count - 1);
    }
  }
  return (2 * shared) / (leftSize + right.length - 1);
}

const normalizeSpace = (text: string) => text.trim().replace(/\s+/g, ' ');

/**
 * Where an edit's old_text would match if whitespace (indentation, trailing spaces, line-break
 * style) were ignored: the 1-based line of each such place.
 */
export function whitespaceInsensitiveMatches(lines: readonly string[], oldText: string): number[] {
  const wanted = oldText.split('\n').map(normalizeSpace);
  while (wanted.length > 0 && wanted[wanted.length - 1] === '') wanted.pop();
  while (wanted.length > 0 && wanted[0] === '') wanted.shift();
  if (wanted.length === 0) return [];
  const normalized = lines.map(normalizeSpace);
  const found: number[] = [];
  for (let start = 0; start + wanted.length <= normalized.length && found.length < 5; start += 1) {
    let matches = true;
    for (let offset = 0; offset < wanted.length; offset += 1) {
      if (normalized[start + offset] !== wanted[offset]) {
        matches = false;
        break;
      }
    }
    if (matches) found.push(start + 1);
  }
  return found;
}

/** The lines most similar to the first non-blank line of old_text, best first. */
export function closestLines(lines: readonly string[], oldText: string, count = 3): CandidateLine[] {
  const probe = oldText
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 0);
  if (probe === undefined) return [];
  const probeBigrams = bigrams(probe);
  const probeSize = Math.max(probe.length - 1, 0);
  const scored: CandidateLine[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const trimmed = lines[index]!.trim();
    if (trimmed.length === 0 || Math.abs(trimmed.length - probe.length) > probe.length * 2 + 20) continue;
    const score = similarity(probeBigrams, probeSize, trimmed);
    if (score >= 0.4)
      scored.push({ line: index + 1, text: lines[index]!, similarity: Math.round(score * 100) / 100 });
  }
  scored.sort((left, right) => right.similarity - left.similarity || left.line - right.line);
  return scored.slice(0, count);
}
