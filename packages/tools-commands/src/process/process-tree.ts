import { readdirSync, readFileSync } from 'node:fs';

/** Sends a signal to a whole process group; a group that is already gone is not an error. */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-groupId, signal);
  } catch {
    // ESRCH: every member has exited.
  }
}

/**
 * Sends a signal to every process of a group except bubblewrap's own supervisor processes. Those
 * must stay alive during the grace period: when they die the kernel kills the whole sandbox at
 * once (SIGKILL), which would deny the command its chance to clean up after SIGTERM.
 * Returns how many processes were signalled.
 */
export function signalGroupMembersExceptSupervisor(groupId: number, signal: NodeJS.Signals): number {
  let signalled = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Format: "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
    const commandEnd = stat.lastIndexOf(')');
    const command = stat.slice(stat.indexOf('(') + 1, commandEnd);
    const fields = stat.slice(commandEnd + 2).split(' ');
    if (Number(fields[2]) !== groupId || command === 'bwrap') continue;
    try {
      process.kill(Number(entry), signal);
      signalled++;
    } catch {
      // exited meanwhile
    }
  }
  return signalled;
}
