import { createHmac } from 'node:crypto';

// Standard Webhooks: the key is the base64 part of `whsec_…`; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; the header lists `v1,<base64 HMAC-SHA256>`.

export function signatureHeaders(secret: string, id: string, now: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
