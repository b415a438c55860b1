/** Paths remembered; older ones are forgotten first. */
const MAX_REMEMBERED = 200;

/**
 * The files this session wrote through the Workspace (every file tool and code_intelligence's
 * apply operations), most recent first: what a check capped at some number of files looks at
 * first. Without it, `code_diagnostics` without a glob checked the first 50 files in path order
 * (on ansible, CI scripts under `.azure-pipelines/`) whatever the agent had just edited.
 */
export class RecentWrites {
  /** Oldest first, each path once. */
  readonly #paths: string[] = [];

  note(paths: readonly string[]): void {
    for (const written of paths) {
      const index = this.#paths.indexOf(written);
      if (index !== -1) this.#paths.splice(index, 1);
      this.#paths.push(written);
    }
    if (this.#paths.length > MAX_REMEMBERED) this.#paths.splice(0, this.#paths.length - MAX_REMEMBERED);
  }

  /** The paths, the one written last first. */
  mostRecentFirst(): string[] {
    return [...this.#paths].reverse();
  }
}
