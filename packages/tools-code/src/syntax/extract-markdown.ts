import type { FileAnalysis } from './symbols.js';

/** Extracts ATX headings (`# Title`) outside fenced code blocks as `heading` symbols. */
export function extractMarkdown(text: string, analysis: FileAnalysis): void {
  const lines = text.split('\n');
  let fence: string | undefined;
  const stack: { level: number; name: string }[] = [];
  lines.forEach((line, index) => {
    const fenceMatch = /^\s{0,3}(```|~~~)/.exec(line);
    if (fenceMatch !== null) {
      if (fence === undefined) fence = fenceMatch[1];
      else if (fenceMatch[1] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const heading = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading === null) return;
    const level = heading[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    const name = heading[2]!;
    analysis.symbols.push({
      name,
      kind: 'heading',
      line: index + 1,
      character: line.indexOf(name) + 1,
      endLine: index + 1,
      ...(stack.length > 0 ? { container: stack[stack.length - 1]!.name } : {}),
    });
    stack.push({ level, name });
  });
  for (const match of text.matchAll(/\]\((\.{0,2}\/?[^)\s:#]+\.[a-z0-9]+)[)#\s]/gi))
    analysis.imports.push(match[1]!);
}
