import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

// Background work as jobs: a name, a period and a function. Each round of a job claims its
// own rows in the database (SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL, a conditional
// UPDATE on SQLite's single writer), so any number of processes can run the same jobs
// side by side and each due item is handled once. The clock is injected; `runOnce` does
// one round by hand, so tests drive schedules without waiting.

export interface JobContext {
  now(): Date;
  /** The round's logger: every line names the job and the round. Made when first used. */
  readonly log: Logger;
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
  /**
   * How many of its rounds may run at once (default 1). Above 1, a round waiting on a slow
   * peer (a webhook receiver that takes its whole timeout) does not hold up the next: that
   * one starts on the period, or at a wake, and claims what is due meanwhile.
   */
  overlap?: number;
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
  /**
   * The named job's next round now rather than at the end of its pause (its rows are due
   * now: a webhook's event committed), though no sooner than WAKE_GAP_MS after its last
   * round started; after the round under way, if one is. Wakes while a round runs make one
   * more round, not one each. Nothing when stopped, or while the job backs off after failures.
   */
  wake(name: string): void;
  /** Takes nothing new and resolves once every round under way has finished (SIGTERM). */
  stop(): Promise<void>;
  /** The jobs whose round under way has outlived its timeout (a readiness check). */
  stalled(): string[];
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/**
 * A woken round starts no sooner than this after the job's last round started: under load,
 * the changes of that time are claimed in one round rather than one round each (a claim is
 * a statement; issue 49's budget), and what a wake saves is the rest of the period.
 */
const WAKE_GAP_MS = 100;
/** A job whose rounds keep failing (the database is away) waits longer each time, up to this. */
const MAX_BACKOFF_MS = 60_000;

/** The pause after `failures` failed rounds in a row: the period, doubled per failure, capped. */
export function backoffMs(periodMs: number, failures: number): number {
  if (failures === 0) return periodMs;
  return Math.min(MAX_BACKOFF_MS, Math.max(periodMs, 1_000) * 2 ** Math.min(failures - 1, 16));
}

/** One round of a job, bounded by its timeout, its log lines naming the job and the round. */
async function runRound(job: Job, o: { now: () => Date; log: Logger }, startedAt: Map<string, number>): Promise<number> {
  const controller = new AbortController();
  const limit = job.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  startedAt.set(job.name, performance.now());
  const timer = setTimeout(() => {
    o.log.warn({ job: job.name, ms: limit }, 'job round timed out');
    controller.abort();
  }, limit);
  try {
    // Every line of the round, the use cases' included (jobs/index.ts hands them this
    // logger through scopedDeps), names the job and the round.
    let log: Logger | undefined;
    const ctx: JobContext = {
      now: o.now,
      get log() {
        return (log ??= o.log.child({ job: job.name, round: randomUUID() }));
      },
      signal: controller.signal,
    };
    return await job.run(ctx);
  } finally {
    clearTimeout(timer);
    startedAt.delete(job.name);
  }
}

/**
 * One scheduled round of `job` and the pause before its next: its period, none after a full
 * batch (more is probably due), or after a failure its backoff, logged.
 */
async function roundThenPause(job: Job, round: () => Promise<number>, failures: Map<string, number>, log: Logger): Promise<number> {
  try {
    const done = await round();
    failures.delete(job.name);
    return job.batch !== undefined && done >= job.batch ? 0 : job.periodMs;
  } catch (err) {
    const failed = (failures.get(job.name) ?? 0) + 1;
    failures.set(job.name, failed);
    const wait = backoffMs(job.periodMs, failed);
    log.error({ err, job: job.name, failures: failed, next_in_ms: wait }, 'job round failed');
    return wait;
  }
}

/** Each job's one waiting round: its timer, and when it fires (performance.now()). */
function jobTimers() {
  const timers = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  return {
    has: (name: string) => timers.has(name),
    /** `fire` in `ms` for `name`, replacing the round waiting; with `sooner`, only if it comes first. */
    set(name: string, ms: number, fire: () => void, sooner = false) {
      const waiting = timers.get(name);
      if (waiting && sooner && performance.now() + ms >= waiting.at) return;
      if (waiting) clearTimeout(waiting.timer);
      const timer = setTimeout(() => (timers.delete(name), fire()), ms);
      timers.set(name, { timer, at: performance.now() + ms });
    },
    clear() {
      for (const { timer } of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}

export function createRunner(jobs: readonly Job[], o: { now: () => Date; log: Logger }): Runner {
  if (new Set(jobs.map((j) => j.name)).size !== jobs.length) throw new Error('two jobs share a name');

  /** performance.now() when each job's round under way started. */
  const startedAt = new Map<string, number>();
  const round = (job: Job) => runRound(job, o, startedAt);

  let stopped = true;
  const timers = jobTimers();
  const running = new Set<Promise<unknown>>();
  /** The jobs woken during their round: they go again as soon as the gap allows. */
  const wokenRunning = new Set<string>();
  /** When each job's last round started (performance.now()): woken rounds keep WAKE_GAP_MS from it. */
  const lastStarted = new Map<string, number>();

  const failures = new Map<string, number>();
  /** How many rounds of each job run now (scheduled ones; runOnce's are the caller's). */
  const active = new Map<string, number>();
  const roomFor = (job: Job) => (active.get(job.name) ?? 0) < (job.overlap ?? 1);
  /** How long until a woken round of `name` may start. */
  const wakeDelay = (name: string) => Math.max(0, (lastStarted.get(name) ?? -Infinity) + WAKE_GAP_MS - performance.now());

  // At its limit of rounds under way, a job's round is not started: the one that ends next schedules it.
  const schedule = (job: Job, ms: number, sooner = false) => timers.set(job.name, ms, () => !stopped && roomFor(job) && startRound(job), sooner);

  function startRound(job: Job) {
    lastStarted.set(job.name, performance.now());
    active.set(job.name, (active.get(job.name) ?? 0) + 1);
    const r = roundThenPause(job, () => round(job), failures, o.log).then((wait) => {
      running.delete(r);
      active.set(job.name, active.get(job.name)! - 1);
      // A wake during a failing round does not cut its backoff short.
      const woken = wokenRunning.delete(job.name) && !failures.has(job.name);
      // An overlapping job may have its next round waiting already (scheduled as this one
      // began): the sooner of the two stays, but a failure's backoff replaces it.
      if (!stopped) schedule(job, woken ? Math.min(wait, wakeDelay(job.name)) : wait, !failures.has(job.name));
    });
    running.add(r);
    // Rounds that may overlap: the next one on the period, whatever this one waits on.
    if (roomFor(job) && !failures.has(job.name)) schedule(job, job.periodMs);
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
    wake(name) {
      const job = jobs.find((j) => j.name === name);
      // A job backing off after failures keeps its pause: the database is probably away.
      if (stopped || !job || failures.has(name)) return;
      // Its round under way: another now if the job may overlap, else once more after it.
      if (!timers.has(name) && !roomFor(job)) return void wokenRunning.add(name);
      schedule(job, wakeDelay(name), true);
    },
    stalled() {
      const at = performance.now();
      return jobs.filter((j) => at - (startedAt.get(j.name) ?? at) > (j.timeoutMs ?? DEFAULT_TIMEOUT_MS)).map((j) => j.name);
    },
    async stop() {
      stopped = true;
      timers.clear();
      await Promise.all(running);
    },
  };
}
