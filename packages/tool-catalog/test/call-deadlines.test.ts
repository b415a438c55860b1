import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallDeadlines } from '../src/call-deadlines.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('CallDeadlines', () => {
  it('aborts a call past its deadline and resolves its wait, leaving calls in time alone', async () => {
    const deadlines = new CallDeadlines();
    const late = deadlines.start(1_000);
    const inTime = deadlines.start(60_000);
    await vi.advanceTimersByTimeAsync(1_250);
    expect(late.controller.signal.aborted).toBe(true);
    await expect(late.expired).resolves.toBe('timeout');
    expect(inTime.controller.signal.aborted).toBe(false);
    inTime.done();
  });

  it('never expires a call that ended, and its one watchdog stops at its next look once none runs', async () => {
    const deadlines = new CallDeadlines();
    for (let call = 0; call < 100; call++) deadlines.start(500).done();
    // One interval for all of them, not one started and cleared per call.
    expect(vi.getTimerCount()).toBe(1);
    const ended = deadlines.start(500);
    ended.done();
    await vi.advanceTimersByTimeAsync(250);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ended.controller.signal.aborted).toBe(false);
    // A new call starts it again.
    const next = deadlines.start(500);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(750);
    expect(next.controller.signal.aborted).toBe(true);
  });
});
