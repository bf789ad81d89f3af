import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signReturnUrl } from '../../server/notify/return-signature';
import { signatureHeaders } from '../../server/notify/signing';
import { verifyReturnUrl, verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../../packages/sdk/src/index';

// The SDK's two verifiers against signers it does not share code with: webhooks signed by
// the `standardwebhooks` package (and by the service's own signer), returns signed by the
// service's signReturnUrl. Genuine ones verify; an altered body or URL, another secret, a
// stale or future timestamp fail.

const secret = `whsec_${Buffer.from('sdk-test-secret-0123456789abcdef').toString('base64')}`;
const other = `whsec_${Buffer.from('another-secret-0123456789abcdef!').toString('base64')}`;
const event = {
  id: '019a5b2e-6c1f-7d4e-9b3a-2f1e0d9c8b7a',
  type: 'sale.refunded',
  created: '2026-03-01T10:15:30.123Z',
  data: { id: '019a5b2d-1a2b-7c3d-8e4f-5a6b7c8d9e0f', refunded: 30, refundable: 70 },
};
const payload = JSON.stringify(event);
const at = new Date(Math.floor(Date.now() / 1000) * 1000);
const MINUTE = 60_000;

/** A delivery as standardwebhooks signs it, with the headers a receiver gets. */
function signed(body = payload, when = at, key = secret) {
  const id = 'msg_2mKx';
  return { id, headers: { 'webhook-id': id, 'webhook-timestamp': String(when.getTime() / 1000), 'webhook-signature': new Webhook(key).sign(id, when, body) } };
}

const reason = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
  return 'verified';
};

describe('verifyWebhook (Standard Webhooks)', () => {
  it('verifies what standardwebhooks signed and returns the typed event, from a string, a Buffer or a Headers', () => {
    const { headers } = signed();
    const verified: WebhookEvent = verifyWebhook(payload, headers, secret);
    expect(verified).toEqual(event);
    if (verified.type === 'sale.refunded') expect(verified.data.refundable).toBe(70);
    expect(verifyWebhook(Buffer.from(payload), new Headers(headers), secret)).toEqual(event);
    // Header names in any case, as some frameworks keep them.
    expect(verifyWebhook(payload, { 'Webhook-Id': headers['webhook-id'], 'Webhook-Timestamp': headers['webhook-timestamp'], 'Webhook-Signature': headers['webhook-signature'] }, secret)).toEqual(event);
  });

  it('verifies the service\'s own signature, and accepts any one of several signatures or secrets (a roll\'s overlap)', () => {
    const both = signatureHeaders([other, secret], 'evt-1', at, payload);
    expect(both['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyWebhook(payload, both, secret)).toEqual(event);
    expect(verifyWebhook(payload, both, other)).toEqual(event);
    const one = signatureHeaders(secret, 'evt-1', at, payload);
    expect(verifyWebhook(payload, one, [other, secret])).toEqual(event);
    // And standardwebhooks accepts what the SDK accepts: the same reading of the standard.
    expect(new Webhook(secret).verify(payload, both)).toEqual(event);
  });

  it('an altered body, id or signature, another secret fail as invalid_signature', () => {
    const { headers } = signed();
    expect(reason(() => verifyWebhook(payload.replace('"refunded":30', '"refunded":3000'), headers, secret))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(payload, { ...headers, 'webhook-id': 'msg_other' }, secret))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(payload, { ...headers, 'webhook-signature': `v1,${Buffer.from('forged').toString('base64')}` }, secret))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(payload, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, secret))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(payload, headers, other))).toBe('invalid_signature');
    // A re-signed timestamp without the key: the signature no longer matches.
    expect(reason(() => verifyWebhook(payload, { ...headers, 'webhook-timestamp': String(at.getTime() / 1000 + 1) }, secret))).toBe('invalid_signature');
  });

  it('a timestamp more than 5 minutes old or ahead fails as stale, even well signed; the tolerance is an option', () => {
    const old = signed(payload, new Date(at.getTime() - 6 * MINUTE));
    expect(reason(() => verifyWebhook(payload, old.headers, secret))).toBe('stale');
    const ahead = signed(payload, new Date(at.getTime() + 6 * MINUTE));
    expect(reason(() => verifyWebhook(payload, ahead.headers, secret))).toBe('stale');
    expect(verifyWebhook(payload, old.headers, secret, { toleranceSeconds: 10 * 60 })).toEqual(event);
    // The receiver's clock: 4 minutes after signing is fine, 6 is not.
    const fresh = signed();
    expect(verifyWebhook(payload, fresh.headers, secret, { now: at.getTime() + 4 * MINUTE })).toEqual(event);
    expect(reason(() => verifyWebhook(payload, fresh.headers, secret, { now: new Date(at.getTime() + 6 * MINUTE) }))).toBe('stale');
  });

  it('missing headers, a timestamp that is not seconds, a body that is not JSON', () => {
    const { headers } = signed();
    expect(reason(() => verifyWebhook(payload, { 'webhook-id': headers['webhook-id'] }, secret))).toBe('missing_headers');
    expect(reason(() => verifyWebhook(payload, { ...headers, 'webhook-timestamp': '2026-03-01' }, secret))).toBe('invalid_timestamp');
    const text = 'not json';
    expect(reason(() => verifyWebhook(text, signed(text).headers, secret))).toBe('invalid_payload');
    // Parsed JSON is refused at once: its bytes are not what was signed.
    expect(() => verifyWebhook(event as never, headers, secret)).toThrow(TypeError);
  });
});

describe('verifyReturnUrl (signed returns)', () => {
  const returnUrl = 'https://shop.example/thanks?order=A-1';
  const now = new Date();
  const url = signReturnUrl(returnUrl, { subject: { transaction_id: 'tx-1' }, status: 'D', now, secrets: [secret] });

  it('verifies a return signed by the service, with or without a fragment, and says what it carries', () => {
    expect(verifyReturnUrl(url, secret)).toEqual({ valid: true, transaction_id: 'tx-1', status: 'D', timestamp: Math.floor(now.getTime() / 1000) });
    expect(verifyReturnUrl(new URL(url), secret).valid).toBe(true);
    const withFragment = signReturnUrl(`${returnUrl}#done`, { subject: { transaction_id: 'tx-1' }, status: 'C', now, secrets: [secret] });
    expect(withFragment.endsWith('#done')).toBe(true);
    expect(verifyReturnUrl(withFragment, secret)).toMatchObject({ valid: true, status: 'C' });
    // A roll's overlap: two signatures, either secret verifies.
    const rolled = signReturnUrl(returnUrl, { subject: { transaction_id: 'tx-1' }, status: 'D', now, secrets: [other, secret] });
    expect(verifyReturnUrl(rolled, secret).valid).toBe(true);
    expect(verifyReturnUrl(rolled, [other]).valid).toBe(true);
  });

  it("a sign-up's return: the subscription's id and status", () => {
    const signup = signReturnUrl(returnUrl, { subject: { subscription_id: 'sub-1' }, status: 'active', now, secrets: [secret] });
    expect(verifyReturnUrl(signup, secret)).toEqual({ valid: true, subscription_id: 'sub-1', status: 'active', timestamp: Math.floor(now.getTime() / 1000) });
    expect(verifyReturnUrl(signup.replace('sub-1', 'sub-2'), secret)).toEqual({ valid: false, reason: 'forged' });
    const both = signReturnUrl(`${returnUrl}&transaction_id=tx-1`, { subject: { subscription_id: 'sub-1' }, status: 'active', now, secrets: [secret] });
    expect(verifyReturnUrl(both, secret)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('altered in any part, or signed with another secret: forged', () => {
    for (const altered of [
      url.replace('status=D', 'status=C'),
      url.replace('order=A-1', 'order=A-2'),
      url.replace('tx-1', 'tx-2'),
      url.replace('https://shop.example', 'https://evil.example'),
      url.replace('/thanks', '/thanks/'),
    ]) {
      expect(verifyReturnUrl(altered, secret), altered).toEqual({ valid: false, reason: 'forged' });
    }
    expect(verifyReturnUrl(url, other)).toEqual({ valid: false, reason: 'forged' });
  });

  it('older or further ahead than 10 minutes: stale; the tolerance is an option', () => {
    expect(verifyReturnUrl(url, secret, { now: new Date(now.getTime() + 11 * MINUTE) })).toEqual({ valid: false, reason: 'stale' });
    expect(verifyReturnUrl(url, secret, { now: now.getTime() - 11 * MINUTE })).toEqual({ valid: false, reason: 'stale' });
    expect(verifyReturnUrl(url, secret, { now: new Date(now.getTime() + 9 * MINUTE) }).valid).toBe(true);
    expect(verifyReturnUrl(url, secret, { now: new Date(now.getTime() + 11 * MINUTE), toleranceSeconds: 15 * 60 }).valid).toBe(true);
  });

  it('unsigned or malformed', () => {
    expect(verifyReturnUrl(returnUrl, secret)).toEqual({ valid: false, reason: 'unsigned' });
    expect(verifyReturnUrl(`${returnUrl}&signature=v1%2Cabc`, secret)).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyReturnUrl(url.replace(/timestamp=\d+/, 'timestamp=soon'), secret)).toEqual({ valid: false, reason: 'malformed' });
    // The shop's own return_url with a return parameter: two of it, never the first believed.
    const own = signReturnUrl(`${returnUrl}&status=D`, { subject: { transaction_id: 'tx-1' }, status: 'C', now, secrets: [secret] });
    expect(verifyReturnUrl(own, secret)).toEqual({ valid: false, reason: 'malformed' });
  });
});
