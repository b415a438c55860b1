import { TaskQueue } from '@assistant-kit/kernel';
import type { ToolCatalog } from '@assistant-kit/tool-catalog';

/**
 * The `_meta` key a client sets on tools/call to say which turn of its conversation a call
 * belongs to. Calls carrying the same value are one undo dispatch, so one undo reverses the
 * whole turn. MCP reserves unprefixed and `…modelcontextprotocol…/` keys; this one is ours.
 */
export const TURN_META_KEY = 'assistant-kit/turn';

/** What the dispatch bookkeeping needs to know about one call. */
export interface DispatchedCall {
  /** The tool's name, the label of a per-call dispatch. */
  tool: string;
  /** The client's turn id from `_meta`, if it marked one. */
  turn: string | undefined;
  /** The call may change the workspace (effects workspace_write or process). */
  changesWorkspace: boolean;
  /** The call is the undo tool, which reverses dispatches and must not become one. */
  undoesDispatches: boolean;
}

/**
 * Groups changing calls into undo dispatches: by the client's turn when it marks one, otherwise
 * one dispatch per call (when `perCall`).
 *
 * A turn's dispatch opens with its first changing call and stays open while calls carry the same
 * turn. It ends when a call carries another turn or none, before the undo tool runs (so "undo my
 * last turn" is `count: 1`), and when the server closes. Changing calls and these transitions run
 * one at a time, as changing tools do anyway; reads never wait for them.
 *
 * A per-call dispatch answers as soon as its call has finished: its checkpoint is recorded after
 * the result went back, in the same queue, so the next changing call, the undo tool and the
 * server's close wait for it, and the client does not. (The checkpoints themselves serialise
 * every operation, so a workspace_diff that arrives meanwhile sees the finished checkpoint.)
 */
export class TurnDispatches {
  readonly #catalog: ToolCatalog;
  readonly #perCall: boolean;
  readonly #queue = new TaskQueue();
  #openTurn: string | undefined;

  readonly #onLateFailure: (error: unknown) => void;

  constructor(
    catalog: ToolCatalog,
    options: {
      perCall: boolean;
      /** Told when a per-call dispatch could not be recorded after its result went back. */
      onLateFailure?: (error: unknown) => void;
    },
  ) {
    this.#catalog = catalog;
    this.#perCall = options.perCall;
    this.#onLateFailure = options.onLateFailure ?? (() => {});
  }

  run<Value>(call: DispatchedCall, work: () => Promise<Value>): Promise<Value> {
    if (call.undoesDispatches) {
      return this.#queue.run(async () => {
        await this.#endOpenTurn();
        return work();
      });
    }
    if (!call.changesWorkspace) {
      // A read that names another turn means the client moved on: the open turn is complete.
      if (this.#openTurn !== undefined && call.turn !== undefined && call.turn !== this.#openTurn) {
        void this.#queue.run(() => this.#endOpenTurn()).catch(() => {});
      }
      return work();
    }
    if (call.turn === undefined && this.#perCall) return this.#ownDispatch(call.tool, work);
    return this.#queue.run(async () => {
      if (call.turn !== undefined) {
        if (this.#openTurn !== call.turn) {
          await this.#endOpenTurn();
          // Ended by a later call, after this one's answer: nothing for the end may slow it down.
          await this.#catalog.beginDispatch(`turn ${call.turn}`, { endsAfterTheAnswer: true });
          this.#openTurn = call.turn;
        }
        return work();
      }
      await this.#endOpenTurn();
      return work();
    });
  }

  /** Runs one call as its own dispatch and answers before the dispatch's checkpoint is recorded. */
  #ownDispatch<Value>(label: string, work: () => Promise<Value>): Promise<Value> {
    return new Promise<Value>((resolve, reject) => {
      void this.#queue
        .run(async () => {
          try {
            await this.#endOpenTurn();
            // Its end is recorded after the answer: nothing for it may slow the call down.
            await this.#catalog.beginDispatch(label, { endsAfterTheAnswer: true });
          } catch (error) {
            reject(error);
            return;
          }
          try {
            resolve(await work());
          } catch (error) {
            reject(error);
          } finally {
            try {
              await this.#catalog.endDispatch();
            } catch (error) {
              this.#onLateFailure(error);
            }
          }
        })
        .catch(() => {});
    });
  }

  /** Ends the open turn's dispatch, if any (the server calls it before closing). */
  close(): Promise<void> {
    return this.#queue.run(() => this.#endOpenTurn());
  }

  async #endOpenTurn(): Promise<void> {
    if (this.#openTurn === undefined) return;
    this.#openTurn = undefined;
    await this.#catalog.endDispatch();
  }
}
