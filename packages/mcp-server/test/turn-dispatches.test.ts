import type { ToolCatalog } from '@assistant-kit/tool-catalog';
import { describe, expect, it } from 'vitest';
import { TurnDispatches } from '../src/turn-dispatches.js';

/** A stand-in for the catalogue's dispatch API that records the order of events. */
function recordingCatalog() {
  const events: string[] = [];
  const beginOptions: unknown[] = [];
  let releaseEnd: () => void = () => {};
  let endFails = false;
  const catalog = {
    async beginDispatch(label: string, options?: unknown) {
      events.push(`begin ${label}`);
      beginOptions.push(options);
    },
    async endDispatch() {
      events.push('end requested');
      await new Promise<void>((resolve) => {
        releaseEnd = resolve;
      });
      if (endFails) throw new Error('disk full');
      events.push('end recorded');
    },
  } as unknown as ToolCatalog;
  return {
    catalog,
    events,
    beginOptions,
    finishEnd: () => releaseEnd(),
    failNextEnd: () => {
      endFails = true;
    },
  };
}

const changing = (tool: string) => ({
  tool,
  turn: undefined,
  changesWorkspace: true,
  undoesDispatches: false,
});

/** Lets every queued promise continuation run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('per-call dispatches', () => {
  it('tell the catalogue that their end comes after the answer, as a turn does', async () => {
    const { catalog, beginOptions, finishEnd } = recordingCatalog();
    const dispatches = new TurnDispatches(catalog, { perCall: true });
    await dispatches.run(changing('run_command'), async () => 'done');
    finishEnd();
    await dispatches.run({ ...changing('run_command'), turn: 't1' }, async () => 'done');
    expect(beginOptions).toEqual([{ endsAfterTheAnswer: true }, { endsAfterTheAnswer: true }]);
  });

  it('answer before the checkpoint is recorded, and the next changing call waits for it', async () => {
    const { catalog, events, finishEnd } = recordingCatalog();
    const dispatches = new TurnDispatches(catalog, { perCall: true });
    const first = await dispatches.run(changing('write_file'), async () => {
      events.push('work write_file');
      return 'first result';
    });
    // The result is back while the end of its dispatch is still being recorded.
    expect(first).toBe('first result');
    expect(events).toEqual(['begin write_file', 'work write_file', 'end requested']);
    const second = dispatches.run(changing('edit_file'), async () => {
      events.push('work edit_file');
      return 'second result';
    });
    await settle();
    expect(events).not.toContain('begin edit_file');
    finishEnd();
    await settle();
    expect(events.slice(3, 6)).toEqual(['end recorded', 'begin edit_file', 'work edit_file']);
    expect(await second).toBe('second result');
    finishEnd();
    await dispatches.close();
    expect(events.at(-1)).toBe('end recorded');
  });

  it('the undo tool and close wait for a checkpoint still being recorded', async () => {
    const { catalog, events, finishEnd } = recordingCatalog();
    const dispatches = new TurnDispatches(catalog, { perCall: true });
    await dispatches.run(changing('write_file'), async () => 'written');
    const undo = dispatches.run(
      { tool: 'undo_workspace_dispatches', turn: undefined, changesWorkspace: false, undoesDispatches: true },
      async () => {
        events.push('undo');
        return 'undone';
      },
    );
    const closed = dispatches.close();
    await settle();
    expect(events).not.toContain('undo');
    finishEnd();
    expect(await undo).toBe('undone');
    await closed;
    expect(events).toEqual(['begin write_file', 'end requested', 'end recorded', 'undo']);
  });

  it('report a checkpoint that failed after the answer instead of losing the failure', async () => {
    const { catalog, finishEnd, failNextEnd } = recordingCatalog();
    const late: unknown[] = [];
    const dispatches = new TurnDispatches(catalog, {
      perCall: true,
      onLateFailure: (error) => late.push(error),
    });
    failNextEnd();
    expect(await dispatches.run(changing('write_file'), async () => 'written')).toBe('written');
    finishEnd();
    await dispatches.close();
    expect(late).toHaveLength(1);
    expect(String(late[0])).toContain('disk full');
  });

  it('pass a failing call on to the caller and still end its dispatch', async () => {
    const { catalog, events, finishEnd } = recordingCatalog();
    const dispatches = new TurnDispatches(catalog, { perCall: true });
    await expect(
      dispatches.run(changing('run_command'), async () => {
        throw new Error('tool crashed');
      }),
    ).rejects.toThrow('tool crashed');
    finishEnd();
    await dispatches.close();
    expect(events).toEqual(['begin run_command', 'end requested', 'end recorded']);
  });
});
