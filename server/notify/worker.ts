import type { Logger } from 'pino';
import type { Db } from '../store/db';
import { inTransaction } from '../store/db';
import { type ClaimedDelivery, claimDueDeliveries, type Outbox, recordAttempt, stopDelivery } from '../store/events';
import { disableFailingEndpoint, signingSecrets } from '../store/webhook-endpoints';
import { postNotification } from './deliver';
import { signatureHeaders } from './signing';

// Webhook delivery, one of the service's jobs (server/jobs/): claims due deliveries in the
// database, so any number of processes can deliver side by side, and schedules retries
// on the injected clock. A notify_url is signed with the environment's secret, a webhook
// endpoint with its own (and its previous one during a roll's overlap).

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
/** Waits after each failed attempt to a notify_url, as in the Standard Webhooks example: 8 attempts over ~27 h. */
export const RETRY_DELAYS_MS = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H];
/** To a webhook endpoint: the same, then 24 h and 30 h more: 10 attempts over at least 3 days even with the jitter below (~3.4 days), after which it is disabled. */
const ENDPOINT_RETRY_DELAYS_MS = [...RETRY_DELAYS_MS, 24 * H, 30 * H];
/** ±10 %, so receivers that failed together are not all retried at the same instant. */
const JITTER = 0.1;

/** When to try again after `attempts` failed attempts, or null to give up. */
export function retryAt(attempts: number, now: Date, random: () => number, delays = RETRY_DELAYS_MS): Date | null {
  const delay = delays[attempts - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + Math.round(delay * (1 + JITTER * (2 * random() - 1))));
}

export interface DeliveryOptions {
  db: Db;
  now: () => Date;
  outbox: Outbox;
  allowPrivateNotifyUrls: boolean;
  /** How long a receiver may take to answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  random?: () => number;
}

/**
 * One round of webhook delivery: claims up to `batch` due deliveries and posts each, logging
 * through the round's logger; resolves with how many it claimed.
 */
export function createDelivery(o: DeliveryOptions): (batch: number, round: { readonly log: Logger }) => Promise<number> {
  const random = o.random ?? Math.random;
  // Longer than any one delivery can take, so a live worker never loses its claim.
  const leaseMs = o.timeoutMs * 6;

  /** An endpoint whose delivery failed for good and that received nothing meanwhile is disabled, with an event. */
  async function disableIfFailing(d: ClaimedDelivery, now: Date, log: Logger) {
    const disabled = await inTransaction(o.db, async (trx) => {
      if (!(await disableFailingEndpoint(trx, d.endpoint_id!, d.created_at, now))) return false;
      await o.outbox.emit(trx, 'webhook_endpoint.disabled', d.endpoint_id!, now);
      return true;
    });
    if (disabled) log.warn({ endpoint: d.endpoint_id, event: d.event_id }, 'webhook endpoint disabled: every delivery failed for 3 days');
  }

  async function attempt(d: ClaimedDelivery, log: Logger): Promise<void> {
    const started = o.now();
    // Its endpoint disabled or deleted since the event: nothing more goes there.
    if (!d.signer) return stopDelivery(o.db, d);
    const secrets = signingSecrets(d.signer, started);
    const headers = signatureHeaders(secrets, d.event_id, started, d.payload);
    const t0 = performance.now();
    const response = await postNotification(d.url, d.payload, headers, { allowPrivate: o.allowPrivateNotifyUrls, timeoutMs: o.timeoutMs });
    const durationMs = Math.round(performance.now() - t0);
    const code = response.statusCode;
    const result = code !== null && code >= 200 && code < 300 ? 'delivered' : code === 410 ? 'gone' : 'failed';
    const finished = o.now();
    const delays = d.endpoint_id === null ? RETRY_DELAYS_MS : ENDPOINT_RETRY_DELAYS_MS;
    const status = await recordAttempt(
      o.db,
      d,
      {
        result,
        statusCode: code,
        error: response.error,
        responseBody: response.body,
        durationMs,
        retryAt: result === 'failed' ? retryAt(d.attempt_count + 1, finished, random, delays) : null,
      },
      finished,
      result === 'delivered' ? (d.endpoint_id ?? undefined) : undefined,
    );
    log.info(
      { event: d.event_id, delivery: d.id, endpoint: d.endpoint_id, type: d.type, attempt: d.attempt_count + 1, status: code, result },
      'notification attempt',
    );
    if (d.endpoint_id !== null && status === 'failed') await disableIfFailing(d, finished, log);
  }

  return async (batch, round) => {
    const deliveries = await claimDueDeliveries(o.db, o.now(), leaseMs, batch);
    await Promise.all(deliveries.map((d) => attempt(d, round.log)));
    return deliveries.length;
  };
}
