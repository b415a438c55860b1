import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../../../bench-support/index.js';
import type { BenchRow } from './row.js';

const ROUNDS = 7;
const GRAMMARS = ['typescript', 'tsx', 'javascript', 'python', 'css', 'json'];
const sourceModule = (relative: string) => JSON.stringify(new URL(relative, import.meta.url).href);

/**
 * A new process loads the six grammars of a mixed repository and parses a line with each: the
 * family's loader (`parserFor`) beside web-tree-sitter's own `Language.load`, each in its own
 * fresh Node process (both keep what they loaded for the process), alternating which goes first.
 * The loaded grammars are most of a small repository's first repo_map.
 */
export function benchGrammarLoad(): BenchRow[] {
  const ours = `
    const { parserFor } = await import(${sourceModule('../src/syntax/tree-sitter-loader.ts')});
    const TreeSitter = await import('web-tree-sitter');
    await TreeSitter.Parser.init();
    const start = performance.now();
    for (const grammar of ${JSON.stringify(GRAMMARS)}) (await parserFor(grammar)).parse('x = 1;\\n').delete();
    console.log(performance.now() - start);`;
  const reference = `
    const { grammarWasmPath } = await import(${sourceModule('../src/syntax/grammar-modules.ts')});
    const TreeSitter = await import('web-tree-sitter');
    await TreeSitter.Parser.init();
    const start = performance.now();
    for (const grammar of ${JSON.stringify(GRAMMARS)}) {
      const parser = new TreeSitter.Parser();
      parser.setLanguage(await TreeSitter.Language.load(grammarWasmPath(grammar)));
      parser.parse('x = 1;\\n').delete();
    }
    console.log(performance.now() - start);`;
  const run = (script: string) =>
    Number(
      execFileSync(
        process.execPath,
        ['--conditions=@assistant-kit/source', '--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' },
      ).trim(),
    );
  const oursTimes: number[] = [];
  const referenceTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      oursTimes.push(run(ours));
      referenceTimes.push(run(reference));
    } else {
      referenceTimes.push(run(reference));
      oursTimes.push(run(ours));
    }
  }
  const value = median(oursTimes);
  const referenceValue = median(referenceTimes);
  return [
    {
      name: `six grammars loaded in a new process, each parsing a line (median of ${ROUNDS})`,
      value,
      unit: 'ms',
      reference: { name: "web-tree-sitter's Language.load, same grammars", value: referenceValue },
      target: '≤ 0.5× Language.load',
      met: value <= referenceValue * 0.5,
    },
  ];
}

// Run alone: node --conditions=@assistant-kit/source --import tsx bench/grammar-load.ts
if (process.argv[1]?.endsWith('grammar-load.ts')) {
  for (const row of benchGrammarLoad())
    console.log(
      `${row.name} | ${row.value.toFixed(1)} ms | ${row.reference?.name}: ${row.reference?.value.toFixed(1)} ms | ${row.target} | ${row.met ? 'yes' : 'NO'}`,
    );
}
