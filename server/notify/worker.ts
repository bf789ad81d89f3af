import type { Logger } from 'pino';
import { chargeDueSubscriptions } from '../jobs/subscription-charges';
import { findGateway } from '../payments/registry';
import type { Db } from '../store/db';
import { findEnvironment } from '../store/environments';
import { claimDueEvents, type Outbox, recordAttempt } from '../store/events';
import { expireDue } from '../store/payments';
import type { EventRow } from '../store/schema';
import { DELIVERY_TIMEOUT_MS, postNotification } from './deliver';
import { signatureHeaders } from './signing';

// The service's background work: delivering due events and expiring overdue
// transactions. Both claim their rows in the database, so any number of processes can
// run it side by side. The clock is injected, and runOnce() does one round, so tests
// drive the retry schedule without waiting.

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
/** Waits after each failed attempt, as in the Standard Webhooks example: 8 attempts over ~27 h. */
export const RETRY_DELAYS_MS = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H];
/** ±10 %, so receivers that failed together are not all retried at the same instant. */
const JITTER = 0.1;

/** When to try again after `attempts` failed attempts, or null to give up. */
export function retryAt(attempts: number, now: Date, random: () => number): Date | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + Math.round(delay * (1 + JITTER * (2 * random() - 1))));
}

export interface BackgroundOptions {
  db: Db;
  outbox: Outbox;
  now: () => Date;
  log: Logger;
  allowPrivateNotifyUrls: boolean;
  random?: () => number;
  deliverEveryMs?: number;
  sweepEveryMs?: number;
  chargeEveryMs?: number;
  batch?: number;
}

export interface Background {
  /** Claims and delivers what is due now; resolves with the number of attempts made. */
  deliver(): Promise<number>;
  /** Expires overdue pending transactions; resolves with how many. */
  sweep(): Promise<number>;
  runOnce(): Promise<{ expired: number; attempts: number }>;
  /** One pass of the subscription scheduler; resolves with how many subscriptions it took. */
  charge(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

// Longer than any one delivery can take, so a live worker never loses its claim.
const LEASE_MS = DELIVERY_TIMEOUT_MS * 6;

export function createBackground(o: BackgroundOptions): Background {
  const random = o.random ?? Math.random;
  const batch = o.batch ?? 20;

  async function attempt(event: EventRow): Promise<void> {
    const env = await findEnvironment(o.db, event.environment_id);
    const started = o.now();
    const headers = signatureHeaders(env!.webhook_secret, event.id, started, event.payload);
    const t0 = performance.now();
    const response = await postNotification(event.notify_url, event.payload, headers, { allowPrivate: o.allowPrivateNotifyUrls });
    const durationMs = Math.round(performance.now() - t0);
    const code = response.statusCode;
    const result = code !== null && code >= 200 && code < 300 ? 'delivered' : code === 410 ? 'gone' : 'failed';
    const finished = o.now();
    await recordAttempt(
      o.db,
      event,
      {
        result,
        statusCode: code,
        error: response.error,
        responseBody: response.body,
        durationMs,
        retryAt: result === 'failed' ? retryAt(event.attempt_count + 1, finished, random) : null,
      },
      finished,
    );
    o.log.info({ event: event.id, type: event.type, attempt: event.attempt_count + 1, status: code, result }, 'notification attempt');
  }

  async function deliver(): Promise<number> {
    const events = await claimDueEvents(o.db, o.now(), LEASE_MS, batch);
    await Promise.all(events.map(attempt));
    return events.length;
  }

  const sweep = () => expireDue(o.db, o.now(), o.outbox);
  const charge = () => chargeDueSubscriptions({ db: o.db, outbox: o.outbox, now: o.now, log: o.log, findGateway });

  let stopped = true;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();
  function every(ms: number, work: () => Promise<number>, full: number) {
    const tick = () => {
      timers.delete(timer);
      if (stopped) return;
      const round = work()
        .catch((err: unknown) => {
          o.log.error({ err }, 'background work failed');
          return 0;
        })
        .then((done) => {
          running.delete(round);
          // A full batch means more is probably waiting: go on at once.
          if (!stopped) timers.add((timer = setTimeout(tick, done >= full ? 0 : ms)));
        });
      running.add(round);
    };
    let timer = setTimeout(tick, 0);
    timers.add(timer);
  }

  return {
    deliver,
    sweep,
    charge,
    async runOnce() {
      const expired = await sweep();
      return { expired, attempts: await deliver() };
    },
    start() {
      stopped = false;
      every(o.deliverEveryMs ?? 500, deliver, batch);
      every(o.sweepEveryMs ?? 30 * S, sweep, 100);
      every(o.chargeEveryMs ?? S, charge, 20);
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all(running);
    },
  };
}
