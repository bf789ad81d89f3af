import { describe, expect, it } from 'vitest';
import { signReturnUrl, verifyReturn } from '../../server/notify/return-signature';

// The signed return: what a merchant's server checks when a customer comes back.

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
const NOW = new Date('2026-11-25T12:00:00Z');
const TX = '0190f5a0-0000-7000-8000-0000000000aa';
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

const signed = (url = 'https://shop.example/thanks?order=A%201&x=1#top', secrets = [SECRET]) =>
  signReturnUrl(url, { subject: { transaction_id: TX }, status: 'D', now: NOW, secrets });

describe('signed returns', () => {
  it('adds transaction_id, status, timestamp and, last, the signature; keeps the shop\'s own query and fragment', () => {
    const url = signed();
    expect(url).toMatch(/^https:\/\/shop\.example\/thanks\?order=A%201&x=1&transaction_id=0190f5a0-0000-7000-8000-0000000000aa&status=D&timestamp=1795608000&signature=v1%2C[^&#]+#top$/);
  });

  it('verifies as received, within ten minutes either way', () => {
    expect(verifyReturn(signed(), SECRET, NOW)).toEqual({ valid: true, transaction_id: TX, status: 'D', timestamp: 1795608000 });
    expect(verifyReturn(signed(), SECRET, at(600)).valid).toBe(true);
    expect(verifyReturn(signed(), SECRET, at(-600)).valid).toBe(true);
    expect(verifyReturn(signReturnUrl('https://shop.example/done', { subject: { transaction_id: TX }, status: 'C', now: NOW, secrets: [SECRET] }), SECRET, NOW)).toMatchObject({ valid: true, status: 'C' });
  });

  it('a return_url ending in a bare "?" verifies too (it was "thanks??transaction_id=…", malformed)', () => {
    const url = signReturnUrl('https://shop.example/thanks?', { subject: { transaction_id: TX }, status: 'D', now: NOW, secrets: [SECRET] });
    expect(url).toMatch(/^https:\/\/shop\.example\/thanks\?transaction_id=/);
    expect(verifyReturn(url, SECRET, NOW)).toMatchObject({ valid: true, transaction_id: TX });
  });

  it("a sign-up's return names the subscription instead, and verifies the same way", () => {
    const SUB = '0190f5a0-0000-7000-8000-0000000000bb';
    const url = signReturnUrl('https://shop.example/welcome', { subject: { subscription_id: SUB }, status: 'trialing', now: NOW, secrets: [SECRET] });
    expect(url).toMatch(/^https:\/\/shop\.example\/welcome\?subscription_id=0190f5a0-0000-7000-8000-0000000000bb&status=trialing&timestamp=1795608000&signature=v1%2C[^&]+$/);
    expect(verifyReturn(url, SECRET, NOW)).toEqual({ valid: true, subscription_id: SUB, status: 'trialing', timestamp: 1795608000 });
    expect(verifyReturn(url.replace('status=trialing', 'status=active'), SECRET, NOW)).toEqual({ valid: false, reason: 'forged' });
  });

  it('a return naming both a transaction and a subscription, or neither, is malformed', () => {
    const both = signReturnUrl(`https://shop.example/x?transaction_id=${TX}`, { subject: { subscription_id: 'sub' }, status: 'active', now: NOW, secrets: [SECRET] });
    expect(verifyReturn(both, SECRET, NOW)).toEqual({ valid: false, reason: 'malformed' });
    const neither = signed().replace(`transaction_id=${TX}`, 'order_ref=1');
    expect(verifyReturn(neither, SECRET, NOW)).toEqual({ valid: false, reason: 'malformed' });
  });

  it("a return_url carrying a return parameter of its own is malformed, not read in place of the signed one", () => {
    const own = signReturnUrl('https://shop.example/cart?status=active', { subject: { subscription_id: 'sub' }, status: 'waiting', now: NOW, secrets: [SECRET] });
    expect(verifyReturn(own, SECRET, NOW)).toEqual({ valid: false, reason: 'malformed' });
    const id = signReturnUrl('https://shop.example/cart?transaction_id=evil', { subject: { transaction_id: TX }, status: 'D', now: NOW, secrets: [SECRET] });
    expect(verifyReturn(id, SECRET, NOW)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('a stale return fails', () => {
    expect(verifyReturn(signed(), SECRET, at(601))).toEqual({ valid: false, reason: 'stale' });
  });

  it('an altered return fails: status, id, timestamp, the shop\'s own parameters, the path, the host', () => {
    const url = signed();
    for (const altered of [
      url.replace('status=D', 'status=C'),
      url.replace('0000000000aa', '0000000000ab'),
      url.replace('timestamp=1795608000', 'timestamp=1795608001'),
      url.replace('order=A%201', 'order=A%202'),
      url.replace('/thanks', '/thank'),
      url.replace('shop.example', 'evil.example'),
    ]) {
      expect(verifyReturn(altered, SECRET, NOW), altered).toEqual({ valid: false, reason: 'forged' });
    }
  });

  it('another secret\'s signature fails; during a roll either secret verifies', () => {
    expect(verifyReturn(signed(), OTHER, NOW)).toEqual({ valid: false, reason: 'forged' });
    const both = signed(undefined, [OTHER, SECRET]);
    expect(verifyReturn(both, SECRET, NOW).valid).toBe(true);
    expect(verifyReturn(both, OTHER, NOW).valid).toBe(true);
  });

  it('an unsigned or mangled return fails', () => {
    expect(verifyReturn('https://shop.example/thanks?transaction_id=x&status=D', SECRET, NOW)).toEqual({ valid: false, reason: 'unsigned' });
    expect(verifyReturn(signed().replace(/timestamp=\d+/, 'timestamp=soon'), SECRET, NOW)).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyReturn(`${signed().split('#')[0]}%E0%A4%A`, SECRET, NOW)).toEqual({ valid: false, reason: 'malformed' });
  });
});
