import { describe, expect, it, vi } from 'vitest';
import { isSafeRedirect, parseOutcome, postCheckout, TransportError } from '../../../widget/screen/transport';
import { makeView } from './fixtures';

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('postCheckout', () => {
  it('POSTs the action as JSON with the CSRF header to the given URL', async () => {
    const fetchImpl = vi.fn(async () => jsonResponse({ outcome: 'redirect', location: 'https://shop.example/ok' }));
    const request = { action: 'pay' as const, gateway: 'gw', fields: { card_number: '4242' } };
    const outcome = await postCheckout(fetchImpl, '/pay/tok/?x=1', 'csrf-1', request);
    expect(outcome).toEqual({ outcome: 'redirect', location: 'https://shop.example/ok', kind: undefined });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/pay/tok/?x=1');
    expect(init.method).toBe('POST');
    expect(init.headers).toMatchObject({ 'content-type': 'application/json', 'x-csrf-token': 'csrf-1' });
    expect(JSON.parse(init.body as string)).toEqual(request);
  });

  it('accepts a view outcome even with an error status', async () => {
    const view = makeView({ status: 'declined' });
    const outcome = await postCheckout(async () => jsonResponse({ outcome: 'view', view }, 403), '/', 'c', { action: 'pay', gateway: null, fields: {} });
    expect(outcome).toEqual({ outcome: 'view', view });
  });

  it.each([
    ['a network failure', async () => Promise.reject(new TypeError('Failed to fetch'))],
    ['an HTML error page', async () => new Response('<h1>502</h1>', { status: 502 })],
    ['JSON that is no outcome', async () => jsonResponse({ type: 'about:blank', status: 500 }, 500)],
  ])('turns %s into a TransportError', async (_, fetchImpl) => {
    await expect(postCheckout(fetchImpl as typeof fetch, '/', 'c', { action: 'cancel', gateway: null, fields: {} })).rejects.toBeInstanceOf(
      TransportError,
    );
  });
});

describe('redirect targets', () => {
  it.each(['https://shop.example/x', 'http://localhost:3000/', '/pay/tok/provider'])('allows %s', (location) => {
    expect(isSafeRedirect(location)).toBe(true);
  });
  it.each(['javascript:alert(1)', 'data:text/html,hi', ' JAVASCRIPT:alert(1)'])('refuses %s', (location) => {
    expect(isSafeRedirect(location)).toBe(false);
    expect(parseOutcome({ outcome: 'redirect', location })).toBeNull();
  });
});

describe('the processor’s confirmation (hosted-fields)', () => {
  it('takes a secret and a return route that may be navigated to, and nothing else', () => {
    const location = 'http://localhost:3000/pay/tok/return/gc_1/';
    expect(parseOutcome({ outcome: 'confirm', secret: 'pi_1_secret_2', location })).toEqual({ outcome: 'confirm', secret: 'pi_1_secret_2', location });
    expect(parseOutcome({ outcome: 'confirm', secret: 'pi_1_secret_2', location: 'javascript:alert(1)' })).toBeNull();
    expect(parseOutcome({ outcome: 'confirm', secret: 7, location })).toBeNull();
    expect(parseOutcome({ outcome: 'confirm', location })).toBeNull();
  });
});
