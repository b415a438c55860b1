/**
 * The one module of the language-server layer that touches the host directly (allow-listed by
 * path): language servers are service processes of the session, started by the code family
 * itself from binaries it ships, not commands a tool call asks for, so they are spawned here
 * rather than through the call context's process launcher (which sandboxes per-call commands and
 * would end them with the call). It also reads /proc for their memory and checks executables on
 * PATH. Nothing here reads or writes workspace files: those go through the Workspace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** Starts a language server over stdio in `cwd`. */
export function spawnLanguageServer(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcess {
  return spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Whether `absolute` is a regular file this process may execute. */
export function isExecutableFile(absolute: string): boolean {
  try {
    accessSync(absolute, constants.X_OK);
    return statSync(absolute).isFile();
  } catch {
    return false;
  }
}

/**
 * Resident memory in bytes of a process and all its descendants (Linux; for example
 * typescript-language-server and the tsserver processes it starts), or undefined.
 */
export async function processTreeResidentBytes(pid: number): Promise<number | undefined> {
  let total = 0;
  const pending = [pid];
  const seen = new Set<number>();
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const status = await readFile(`/proc/${current}/status`, 'utf8').catch(() => undefined);
    const match = status?.match(/VmRSS:\s+(\d+)\s+kB/);
    if (match !== undefined && match !== null) total += Number(match[1]) * 1024;
    const children = await readFile(`/proc/${current}/task/${current}/children`, 'utf8').catch(() => '');
    for (const child of children.split(/\s+/)) if (child !== '') pending.push(Number(child));
  }
  return total === 0 ? undefined : total;
}
