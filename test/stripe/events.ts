import { createHmac } from 'node:crypto';
import { event, type StripeObject } from './objects';

// Webhooks as Stripe sends them: the event's JSON as the body, and
// `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "${t}.${body}" under the
// endpoint's whsec_… secret>`. The SDK's `webhooks.constructEvent` verifies exactly this.

export interface SignedEvent {
  event: StripeObject;
  /** The raw body: what the signature covers, byte for byte. */
  payload: string;
  headers: { 'content-type': string; 'stripe-signature': string };
}

export const stripeSignature = (payload: string, secret: string, timestamp: number) =>
  `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex')}`;

export function signedEvent(input: { type: string; object: StripeObject; secret: string; apiVersion: string; timestamp?: number; previous?: StripeObject }): SignedEvent {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const evt = event({ type: input.type, object: structuredClone(input.object), created: timestamp, apiVersion: input.apiVersion, previous: input.previous });
  const payload = JSON.stringify(evt, null, 2);
  return { event: evt, payload, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': stripeSignature(payload, input.secret, timestamp) } };
}

/** Posts a signed event to a webhook endpoint, as Stripe delivers it; resolves with the answer's status. */
export async function sendEvent(url: string, signed: SignedEvent): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { ...signed.headers, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' }, body: signed.payload });
  await res.arrayBuffer();
  return res.status;
}
