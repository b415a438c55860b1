import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

// The repository's whole type check, as `pnpm typecheck` runs it, is part of the test suite: the
// closed error codes and the declared tool facts are guarantees of the type system
// (packages/tool-catalog/test/type-contracts.ts and packages/settings-http/test/type-contracts.ts hold
// the attempts that must fail), so CI must see a type error.

const root = fileURLToPath(new URL('../', import.meta.url));

it('type-checks the whole repository without a diagnostic', () => {
  const configPath = path.join(root, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const described = diagnostics.map((diagnostic) => {
    const where =
      diagnostic.file && diagnostic.start !== undefined
        ? `${path.relative(root, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}`
        : '(global)';
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
  });
  expect(described).toEqual([]);
}, 600_000);
