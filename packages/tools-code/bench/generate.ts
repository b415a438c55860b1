import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A TypeScript file of about `lines` lines with classes, methods and functions. */
export function largeTypeScriptFile(lines: number): string {
  const parts: string[] = ["import { helper } from './helper.js';", ''];
  let index = 0;
  while (parts.length < lines) {
    parts.push(
      `export class Service${index} {`,
      `  private count = ${index};`,
      `  run(value: number): number {`,
      `    return helper(value + this.count);`,
      '  }',
      '}',
      '',
      `export function compute${index}(input: number): number {`,
      `  const doubled = input * 2;`,
      `  return new Service${index}().run(doubled);`,
      '}',
      '',
    );
    index++;
  }
  return `${parts.join('\n')}\n`;
}

/** Writes a TypeScript project of `count` files in folders of 100 that import each other. */
export async function generateProject(root: string, count: number): Promise<void> {
  await writeFile(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'generated', type: 'module', scripts: { test: 'vitest run' } }),
  );
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext' } }),
  );
  await writeFile(path.join(root, 'README.md'), '# Generated\n');
  const folders = Math.ceil(count / 100);
  for (let folder = 0; folder < folders; folder++)
    await mkdir(path.join(root, 'src', `module${folder}`), { recursive: true });
  const writes: Promise<void>[] = [];
  for (let file = 0; file < count; file++) {
    const folder = Math.floor(file / 100);
    const dependency = (file * 7 + 3) % count;
    const dependencyFolder = Math.floor(dependency / 100);
    const core = file % 100 === 0 ? '' : `import { core${folder} } from './file${folder * 100}.js';\n`;
    const text = `${core}import { value${dependency} } from '../module${dependencyFolder}/file${dependency}.js';

export const value${file} = ${file};

export function function${file}(input: number): number {
  return input + value${dependency}${file % 100 === 0 ? '' : ` + core${folder}()`};
}

export class Class${file} {
  method${file}(): number {
    return function${file}(${file});
  }
}
${file % 100 === 0 ? `\nexport function core${folder}(): number {\n  return ${folder};\n}\n` : ''}`;
    writes.push(writeFile(path.join(root, 'src', `module${folder}`, `file${file}.ts`), text));
    if (writes.length >= 200) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}
