import type {
  DeclaredToolDefinition,
  ProcessLauncher,
  ToolFamily,
  Workspace,
} from '@assistant-kit/tool-core';
import type { createBrowserTools } from '@assistant-kit/tools-browser';
import type { createCodeTools } from '@assistant-kit/tools-code';
import type { createCommandTools, ProcessLauncherOptions } from '@assistant-kit/tools-commands';
import type { createFileTools } from '@assistant-kit/tools-files';
import type { createUndoTools, EndedDispatch, OpenDispatch } from '@assistant-kit/tools-undo';
import type { Configuration } from './configurations.js';
import { catalogError } from './errors.js';

/**
 * A family factory's options without the workspace, which the catalogue supplies.
 *
 * @typeParam Factory - the family's factory, such as `createFileTools`.
 */
export type OptionsOf<Factory extends (options: never) => unknown> = Omit<
  Parameters<Factory>[0],
  'workspace'
>;

/** Extra options passed to each family's factory (the catalogue sets workspace and the R switches). */
export interface FamilyOptions {
  /** Options of the file tools (tools-files). */
  files?: Partial<OptionsOf<typeof createFileTools>>;
  /** Options of the command tools (tools-commands), and the sandbox of every process a tool starts. */
  commands?: Partial<Omit<OptionsOf<typeof createCommandTools>, 'allowBackground'>> & {
    /**
     * The sandbox of every process a tool starts (run_command, run_tests, the browser's app
     * servers): bubblewrap path, hidden and readable paths, limits. The catalogue builds one
     * process launcher from it and gives it to its runtimes.
     */
    sandbox?: ProcessLauncherOptions;
  };
  /** Options of the undo tools and checkpoints (tools-undo). */
  undo?: Partial<OptionsOf<typeof createUndoTools>>;
  /** Options of the browser tools (tools-browser): Chromium, permitted URLs, limits. */
  browser?: Partial<OptionsOf<typeof createBrowserTools>>;
  /** Options of the code tools (tools-code): language servers, test runners, limits. */
  code?: Partial<Omit<OptionsOf<typeof createCodeTools>, 'allowApply'>>;
}

/** Marks the beginning and end of a dispatch for undo checkpoints (the undo family's checkpoints). */
export interface DispatchCheckpoints {
  /** Opens a dispatch: the calls until {@link DispatchCheckpoints.endDispatch} are undone together. */
  beginDispatch(label?: string, options?: { observedWrites?: boolean }): Promise<OpenDispatch>;
  /** Closes the open dispatch and records its checkpoint when it changed something. */
  endDispatch(): Promise<EndedDispatch>;
  /**
   * Before a call that may change files outside the Workspace (see tools-undo); `notice` says
   * when it had to wait for the workspace's first undo baseline.
   */
  noteUnobservedChanges(): Promise<{ waitedForBaselineMs: number; notice?: string }>;
  /** Milliseconds writes have waited, in all, for the workspace's first undo baseline. */
  readonly baselineWaitMs: number;
  /** The sentence for a call during which writes waited for that baseline (`since`: baselineWaitMs before). */
  baselineWaitNotice(since: number): string | undefined;
}

/** The families a host may leave out of a catalogue (see `ToolCatalogOptions.omitFamilies`). */
export const OMITTABLE_FAMILIES = ['browser', 'code'] as const;
/** One of {@link OMITTABLE_FAMILIES}. */
export type OmittableFamily = (typeof OMITTABLE_FAMILIES)[number];

/** A family the catalogue has created: its name, how many tools it declares and what it took. */
export interface LoadedFamily {
  name: string;
  tools: number;
  milliseconds: number;
}

export interface AssembledFamilies {
  families: ToolFamily[];
  tools: DeclaredToolDefinition[];
  checkpoints: DispatchCheckpoints;
  /** The process launcher of every tool call (built once from `families.commands.sandbox`). */
  processes: ProcessLauncher;
  /** The code family's report of what a write broke (new diagnostics of the written files). */
  diagnosticsAfterWrite?: (
    paths: readonly string[],
  ) => Promise<{ text: string; data: Record<string, unknown> } | undefined>;
}

/**
 * Creates the five families bound to one workspace. They are imported on demand so importing the
 * catalogue stays cheap; each family loads its own heavy dependencies (Playwright, language
 * servers) on the first call that needs them. If one factory fails, the families already created
 * are closed before the error is passed on.
 */
export async function assembleFamilies(
  configuration: Configuration,
  workspace: Workspace,
  options: FamilyOptions,
  executionTimeoutSeconds: number,
  onFamilyLoaded?: (family: LoadedFamily) => void,
  omitFamilies: readonly OmittableFamily[] = [],
): Promise<AssembledFamilies> {
  let since = performance.now();
  const readOnly = configuration === 'R';
  for (const name of omitFamilies) {
    if (!(OMITTABLE_FAMILIES as readonly string[]).includes(name)) {
      throw catalogError(
        'INVALID_OPTIONS',
        `omitFamilies names "${String(name)}"; only ${OMITTABLE_FAMILIES.join(' and ')} can be left out.`,
        { details: { family: String(name) } },
      );
    }
  }
  const omitted = new Set<string>(omitFamilies);
  const [files, commands, undo, browser, code] = await Promise.all([
    import('@assistant-kit/tools-files'),
    import('@assistant-kit/tools-commands'),
    import('@assistant-kit/tools-undo'),
    omitted.has('browser') ? undefined : import('@assistant-kit/tools-browser'),
    omitted.has('code') ? undefined : import('@assistant-kit/tools-code'),
  ]);
  const created: ToolFamily[] = [];
  const keep = <Family extends ToolFamily>(name: string, family: Family): Family => {
    created.push(family);
    const now = performance.now();
    onFamilyLoaded?.({ name, tools: family.tools.length, milliseconds: Math.round(now - since) });
    since = now;
    return family;
  };
  const { sandbox, ...commandOptions } = options.commands ?? {};
  const processes = commands.createProcessLauncher(sandbox);
  try {
    keep('files', await files.createFileTools({ ...options.files, workspace }));
    keep(
      'commands',
      await commands.createCommandTools({
        // A command may not outlive the execution timeout of a call.
        maxTimeoutSeconds: executionTimeoutSeconds,
        ...commandOptions,
        workspace,
        allowBackground: !readOnly,
      }),
    );
    const undoFamily = keep('undo', await undo.createUndoTools({ ...options.undo, workspace }));
    if (browser !== undefined) {
      keep('browser', await browser.createBrowserTools({ ...options.browser, workspace }));
    }
    const codeFamily =
      code === undefined
        ? undefined
        : keep('code', await code.createCodeTools({ ...options.code, workspace, allowApply: !readOnly }));
    const assembled: AssembledFamilies = {
      families: created,
      tools: created.flatMap((family) => [...family.tools]),
      checkpoints: undoFamily.checkpoints,
      processes,
    };
    if (codeFamily !== undefined) {
      assembled.diagnosticsAfterWrite = async (paths) => {
        const report = await codeFamily.diagnosticsAfterWrite(paths);
        return report === undefined ? undefined : { text: report.text, data: { ...report.data } };
      };
    }
    return assembled;
  } catch (error) {
    await Promise.allSettled(created.map((family) => family.close()));
    throw error;
  }
}
