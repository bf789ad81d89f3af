import type { Logger } from 'pino';
import type { Db } from '../store/db';
import { findEnvironment } from '../store/environments';
import { claimDueEvents, recordAttempt } from '../store/events';
import type { EventRow } from '../store/schema';
import { DELIVERY_TIMEOUT_MS, postNotification } from './deliver';
import { signatureHeaders } from './signing';

// Webhook delivery, one of the service's jobs (server/jobs/): claims due events in the
// database, so any number of processes can deliver side by side, and schedules retries
// on the injected clock.

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

export interface DeliveryOptions {
  db: Db;
  now: () => Date;
  log: Logger;
  allowPrivateNotifyUrls: boolean;
  random?: () => number;
}

// Longer than any one delivery can take, so a live worker never loses its claim.
const LEASE_MS = DELIVERY_TIMEOUT_MS * 6;

/** One round of webhook delivery: claims up to `batch` due events and posts each; resolves with the attempts made. */
export function createDelivery(o: DeliveryOptions): (batch: number) => Promise<number> {
  const random = o.random ?? Math.random;

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

  return async (batch) => {
    const events = await claimDueEvents(o.db, o.now(), LEASE_MS, batch);
    await Promise.all(events.map(attempt));
    return events.length;
  };
}
