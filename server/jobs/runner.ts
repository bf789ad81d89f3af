import type { Logger } from 'pino';

// Background work as jobs: a name, a period and a function. Each round of a job claims its
// own rows in the database (SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL, a conditional
// UPDATE on SQLite's single writer), so any number of processes can run the same jobs
// side by side and each due item is handled once. The clock is injected; `runOnce` does
// one round by hand, so tests drive schedules without waiting.

export interface JobContext {
  now(): Date;
  log: Logger;
  /** Aborted when the round outlives its job's timeout; long rounds should stop taking items. */
  signal: AbortSignal;
}

export interface Job {
  name: string;
  /** Pause between rounds. */
  periodMs: number;
  /** A round that handled at least this many items goes again at once (more is probably due). */
  batch?: number;
  /** A round running longer is logged and its signal aborted; default 5 minutes. */
  timeoutMs?: number;
  /** One round; resolves with the number of items handled. */
  run(ctx: JobContext): Promise<number>;
}

export interface Runner {
  readonly jobs: readonly Job[];
  /** One round of the named job. */
  runOnce(name: string): Promise<number>;
  /** One round of every job, in registration order; items handled by name. */
  runAll(): Promise<Record<string, number>>;
  start(): void;
  /** Takes nothing new and resolves once every round under way has finished (SIGTERM). */
  stop(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export function createRunner(jobs: readonly Job[], o: { now: () => Date; log: Logger }): Runner {
  const names = new Set(jobs.map((j) => j.name));
  if (names.size !== jobs.length) throw new Error('two jobs share a name');

  async function round(job: Job): Promise<number> {
    const controller = new AbortController();
    const limit = job.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = setTimeout(() => {
      o.log.warn({ job: job.name, ms: limit }, 'job round timed out');
      controller.abort();
    }, limit);
    try {
      return await job.run({ now: o.now, log: o.log.child({ job: job.name }), signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  }

  let stopped = true;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();

  function schedule(job: Job, ms: number) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (stopped) return;
      const r = round(job)
        .catch((err: unknown) => {
          o.log.error({ err, job: job.name }, 'job round failed');
          return 0;
        })
        .then((done) => {
          running.delete(r);
          if (!stopped) schedule(job, job.batch !== undefined && done >= job.batch ? 0 : job.periodMs);
        });
      running.add(r);
    }, ms);
    timers.add(timer);
  }

  return {
    jobs,
    runOnce(name) {
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      return round(job);
    },
    async runAll() {
      const done: Record<string, number> = {};
      for (const job of jobs) done[job.name] = await round(job);
      return done;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      for (const job of jobs) schedule(job, 0);
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(running);
    },
  };
}
