import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_OPTIONS } from '../../server/http/logging';
import { type Deps, scopedDeps } from '../../server/deps';
import { createRunner } from '../../server/jobs/runner';

// The readiness check asks the runner which jobs are stalled: a round under way past its timeout.

describe('jobs runner: stalled rounds', () => {
  it('names a job whose round outlives its timeout, and forgets it once the round ends', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const runner = createRunner(
      [
        { name: 'stuck', periodMs: 1000, timeoutMs: 20, run: () => held.then(() => 0) },
        { name: 'quick', periodMs: 1000, timeoutMs: 20, run: async () => 0 },
      ],
      { now: () => new Date(), log: pino({ level: 'silent' }) },
    );
    expect(runner.stalled()).toEqual([]);
    const round = runner.runOnce('stuck');
    await runner.runOnce('quick');
    await expect.poll(() => runner.stalled(), { timeout: 5000 }).toEqual(['stuck']);
    release();
    await round;
    expect(runner.stalled()).toEqual([]);
  });
});

describe('jobs runner: log context', () => {
  it("marks every line of a round, the use cases' included, with its job and a round id of its own", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const log = pino(LOG_OPTIONS, sink);
    // A use case logs through its deps; the job hands it the round's (as jobs/index.ts does).
    const deps = { log } as Deps;
    const useCase = async (d: Deps) => {
      await new Promise((resolve) => setImmediate(resolve));
      d.log.info('done by the use case');
    };
    const runner = createRunner([{ name: 'tidy', periodMs: 1000, run: async (round) => (await useCase(scopedDeps(deps, round)), 1) }], {
      now: () => new Date(),
      log,
    });
    await runner.runOnce('tidy');
    await runner.runOnce('tidy');
    log.info('outside any round');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ job: 'tidy', round: expect.any(String), msg: 'done by the use case' });
    expect(lines[1]!.round).not.toBe(lines[0]!.round);
    expect(lines[2]).not.toHaveProperty('job');
    expect(lines[2]).not.toHaveProperty('round');
  });
});
