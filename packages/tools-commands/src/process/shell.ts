import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { commandError } from '../errors.js';
import type { CommandShell } from './process-spec.js';

export function findOnPath(names: readonly string[], searchPath: string): string | undefined {
  for (const directory of searchPath.split(path.delimiter)) {
    if (directory === '') continue;
    for (const name of names) {
      const candidate = path.join(directory, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

// PowerShell writes with the console's code page unless told otherwise; the spec asks for UTF-8.
const POWERSHELL_UTF8_PRELUDE =
  '[Console]::InputEncoding = [Console]::OutputEncoding = $OutputEncoding = [System.Text.UTF8Encoding]::new($false); ';

/**
 * The argv that runs a script in the given shell. Throws SHELL_UNAVAILABLE when the shell is not
 * installed on this machine.
 */
export function scriptArgv(command: string, shell: CommandShell, searchPath: string): string[] {
  if (shell === 'powershell') {
    const executable = findOnPath(['pwsh', 'powershell'], searchPath);
    if (executable === undefined) {
      throw commandError(
        'SHELL_UNAVAILABLE',
        'PowerShell is not installed on this machine (no pwsh or powershell on PATH). Use shell "bash", or install PowerShell.',
        { details: { shell } },
      );
    }
    return [
      executable,
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      `${POWERSHELL_UTF8_PRELUDE}${command}`,
    ];
  }
  const bash = findOnPath(['bash'], searchPath);
  if (bash === undefined) {
    throw commandError('SHELL_UNAVAILABLE', 'bash is not installed on this machine (not on PATH).', {
      details: { shell },
    });
  }
  return [bash, '-c', command];
}
