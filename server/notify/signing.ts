import { createHmac } from 'node:crypto';

// Standard Webhooks: the key is the base64 part of `whsec_…`; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; the header lists `v1,<base64 HMAC-SHA256>`,
// one per secret, separated by spaces (a receiver accepts the message if any one matches),
// so a rolled secret and the one it replaces can both sign during the overlap.

export function signatureHeaders(secrets: string | string[], id: string, now: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signatures = [secrets].flat().map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
