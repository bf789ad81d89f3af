import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { JOB_NAMES } from '../../server/jobs';
import { startTestService, type TestService } from './harness';

// JOB_PERIODS: an operator (or a test of service processes) sets how often a job runs;
// a name that is no job, or a period outside 100 ms to an hour, stops the start.

describe('JOB_PERIODS', () => {
  let t: TestService | undefined;
  afterAll(() => t?.close());

  it('refuses what is not job=milliseconds, an unknown job, or a period outside 100 ms to 1 hour, and says why', () => {
    expect(() => loadConfig({ JOB_PERIODS: 'reconciliation' })).toThrow(/JOB_PERIODS: "reconciliation" is not job=milliseconds/);
    expect(() => loadConfig({ JOB_PERIODS: 'reconcile=500' })).toThrow(/JOB_PERIODS: "reconcile" is not a job \(expiry, reconciliation, /);
    expect(() => loadConfig({ JOB_PERIODS: 'reconciliation=99' })).toThrow(/JOB_PERIODS: reconciliation: 99 ms is outside 100 to 3600000/);
    expect(() => loadConfig({ JOB_PERIODS: 'reconciliation=3600001' })).toThrow(/outside 100 to 3600000/);
    expect(() => loadConfig({ JOB_PERIODS: 'reconciliation=-5' })).toThrow(/is not job=milliseconds/);
    expect(loadConfig({ JOB_PERIODS: ' reconciliation=100, retention=3600000 ,' }).jobPeriods).toEqual({ reconciliation: 100, retention: 3_600_000 });
    expect(loadConfig({}).jobPeriods).toEqual({});
  });

  it('the runner takes the periods given and keeps its own for the other jobs', async () => {
    const defaults = await startTestService('sqlite');
    const own = new Map(defaults.service.jobs.jobs.map((j) => [j.name, j.periodMs]));
    await defaults.close();
    t = await startTestService('sqlite', { env: { JOB_PERIODS: `${JOB_NAMES.subscriptions}=150,${JOB_NAMES.reconciliation}=400` } });
    const periods = new Map(t.service.jobs.jobs.map((j) => [j.name, j.periodMs]));
    expect(periods.get(JOB_NAMES.subscriptions)).toBe(150);
    expect(periods.get(JOB_NAMES.reconciliation)).toBe(400);
    expect(own.get(JOB_NAMES.subscriptions)).toBe(1_000);
    for (const [name, ms] of own) if (name !== JOB_NAMES.subscriptions && name !== JOB_NAMES.reconciliation) expect(periods.get(name), name).toBe(ms);
  });
});
