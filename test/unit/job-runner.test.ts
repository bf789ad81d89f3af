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

describe('a woken job', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());
  const silent = { now: () => new Date(), log: pino({ level: 'silent' }) };

  it('runs its next round at once instead of at the end of its period, no sooner than 100 ms after its last began, once for many wakes', async () => {
    let calls = 0;
    const runner = createRunner([{ name: 'deliver', periodMs: 60_000, run: async () => (calls++, 0) }], silent);
    const callsAt = async (ms: number) => (await vi.advanceTimersByTimeAsync(ms), calls);
    runner.start();
    expect(await callsAt(0)).toBe(1);
    runner.wake('deliver');
    expect(await callsAt(99)).toBe(1); // within the gap after the round's start
    expect(await callsAt(1)).toBe(2);
    expect(await callsAt(10_000)).toBe(2); // then its period again
    for (let i = 0; i < 5; i++) runner.wake('deliver');
    expect(await callsAt(0)).toBe(3);
    expect(await callsAt(10_000)).toBe(3);
    runner.wake('no such job');
    await runner.stop();
    runner.wake('deliver');
    expect(await callsAt(120_000)).toBe(3);
  });

  it('woken during its round goes once more after it, however many the wakes', async () => {
    let calls = 0;
    let finish = () => {};
    const runner = createRunner([{ name: 'deliver', periodMs: 60_000, run: () => (calls++, new Promise<number>((resolve) => (finish = () => resolve(0)))) }], silent);
    const callsAt = async (ms: number) => (await vi.advanceTimersByTimeAsync(ms), calls);
    runner.start();
    expect(await callsAt(0)).toBe(1);
    runner.wake('deliver');
    runner.wake('deliver');
    expect(await callsAt(500)).toBe(1); // the round under way is not cut short
    finish();
    expect(await callsAt(0)).toBe(2); // its gap was over: at once
    finish();
    expect(await callsAt(30_000)).toBe(2);
    await runner.stop();
  });

  it('keeps the pause of a job backing off after a failed round', async () => {
    let calls = 0;
    const runner = createRunner([{ name: 'deliver', periodMs: 1_000, run: async () => { calls++; throw new Error('database away'); } }], silent);
    const callsAt = async (ms: number) => (await vi.advanceTimersByTimeAsync(ms), calls);
    runner.start();
    expect(await callsAt(0)).toBe(1);
    runner.wake('deliver');
    expect(await callsAt(999)).toBe(1);
    expect(await callsAt(1)).toBe(2);
    await runner.stop();
  });
});

describe('a job whose rounds may overlap', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());
  const silent = { now: () => new Date(), log: pino({ level: 'silent' }) };

  /** A job whose rounds each wait until released: a webhook receiver taking its time. */
  function slowJob(overlap: number | undefined) {
    const releases: (() => void)[] = [];
    let started = 0;
    const runner = createRunner(
      [{ name: 'deliver', periodMs: 1_000, overlap, run: () => (started++, new Promise<number>((done) => releases.push(() => done(1)))) }],
      silent,
    );
    return { runner, releases, started: () => started };
  }

  it('starts its next round on the period while one waits, up to its limit; a round ending makes room', async () => {
    const { runner, releases, started } = slowJob(2);
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(started()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started()).toBe(2); // the first still waits
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started()).toBe(2); // at its limit
    releases[0]!();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started()).toBe(3);
    for (const release of releases) release();
    await runner.stop();
  });

  it('a wake while a round waits starts another at once (after the gap), not after it', async () => {
    const { runner, releases, started } = slowJob(2);
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    runner.wake('deliver');
    await vi.advanceTimersByTimeAsync(100);
    expect(started()).toBe(2);
    for (const release of releases) release();
    await runner.stop();
  });

  it('without overlap, the next round waits for the one under way, woken or not', async () => {
    const { runner, releases, started } = slowJob(undefined);
    runner.start();
    await vi.advanceTimersByTimeAsync(0);
    runner.wake('deliver');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started()).toBe(1);
    releases[0]!();
    await vi.advanceTimersByTimeAsync(100);
    expect(started()).toBe(2);
    for (const release of releases) release();
    await runner.stop();
  });
});
