import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

it('the README usage snippet is the type-checked test/readme-example.ts', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const example = await readFile(new URL('./readme-example.ts', import.meta.url), 'utf8');
  const snippet = example.split('// README-SNIPPET-START\n')[1]!.split('// README-SNIPPET-END')[0]!;
  expect(readme).toContain(`\`\`\`ts\n${snippet}\`\`\``);
});
