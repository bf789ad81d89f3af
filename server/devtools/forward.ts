import { createHmac } from 'node:crypto';
import { signatureHeaders } from '../notify/signing';

// What `npm run listen` does with each event: POSTs it to the developer's local URL as the
// service would POST it to a webhook endpoint (same body, Standard Webhooks headers),
// signed with a local secret, and says what came back.

/**
 * The local signing secret: derived from the secret key, so it stays the same from one
 * run to the next (put it in the local app's settings once) and differs per key pair.
 */
export function localSecret(secretKey: string): string {
  return `whsec_${createHmac('sha256', secretKey).update('payment-service listen').digest('base64')}`;
}

export interface ForwardableEvent {
  id: string;
  type: string;
  created: string;
  data: unknown;
}

export interface Forwarded {
  status: number | null;
  error: string | null;
  ms: number;
}

export async function forward(url: string, secret: string, event: ForwardableEvent, timeoutMs = 10_000): Promise<Forwarded> {
  // The body the service sends: these four fields, in this order.
  const body = JSON.stringify({ id: event.id, type: event.type, created: event.created, data: event.data });
  const t0 = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...signatureHeaders(secret, event.id, new Date(), body), 'content-type': 'application/json', 'user-agent': 'payment-service-listen/1' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return { status: res.status, error: null, ms: Math.round(performance.now() - t0) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { status: null, error: cause ?? (err as Error).message, ms: Math.round(performance.now() - t0) };
  }
}

/** One line per delivery: when, what, and the local answer. */
export function deliveryLine(event: ForwardableEvent, url: string, r: Forwarded, at = new Date()): string {
  const answer = r.status === null ? `error ${r.error}` : `[${r.status}]`;
  return `${at.toISOString().slice(0, 19).replace('T', ' ')}  --> ${event.type} [${event.id}]  <-- ${answer} POST ${url} (${r.ms} ms)`;
}
