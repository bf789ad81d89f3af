import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffMs, createRunner } from '../../server/jobs/runner';

describe('a job whose rounds fail', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('waits its period doubled per failure in a row, capped at a minute, and its period again after a success', async () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(2_000, n))).toEqual([2_000, 2_000, 4_000, 8_000, 16_000, 60_000]);
    // Sub-second jobs back off from a second, not from their period.
    expect(backoffMs(100, 2)).toBe(2_000);

    let calls = 0;
    const outcomes = [false, false, false, true, true];
    const runner = createRunner(
      [{ name: 'flaky', periodMs: 1_000, run: async () => {
        if (!outcomes[calls++]) throw new Error('database away');
        return 0;
      } }],
      { now: () => new Date(), log: pino({ level: 'silent' }) },
    );
    runner.start();
    const callsAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return calls;
    };
    expect(await callsAt(0)).toBe(1); // fails: next in 1 s
    expect(await callsAt(1_000)).toBe(2); // fails again: next in 2 s
    expect(await callsAt(1_999)).toBe(2);
    expect(await callsAt(1)).toBe(3); // a third time: next in 4 s
    expect(await callsAt(3_999)).toBe(3);
    expect(await callsAt(1)).toBe(4); // succeeds: back to its period
    expect(await callsAt(1_000)).toBe(5);
    await runner.stop();
  });
});
