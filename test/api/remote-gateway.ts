import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Gateway, GatewayNotification, LookupResult, SettledResult } from '../../server/payments/gateway';
import { createSandboxCard } from '../../server/payments/sandbox';

// A networked gateway adapter for the stand-in processor (processor.ts), loaded by a
// service process through GATEWAY_MODULES with GATEWAY_SETTINGS = {"url": …, "notifySecret"?: …}:
// the way an operator adds a real processor. Card fields as the sandbox card's. Its calls
// are version 1's (whatever fails throws: an unknown outcome); with `notifySecret` it also
// reads the processor's notifications (HMAC-SHA256 of the raw body in `Processor-Signature`).
// The stand-in processor moves no money, so the gateway says `sandbox`: the sandboxes the
// process tests create take it.

export const REMOTE_ID = '0190f5a0-0000-7000-8000-0000000000e1';

function verified(secret: string, headers: Record<string, string | string[] | undefined>, body: Buffer): boolean {
  const given = Buffer.from(String(headers['processor-signature'] ?? ''), 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export default function remoteGateways(settings: unknown): Gateway[] {
  const { url, notifySecret } = settings as { url: string; notifySecret?: string };
  const post = async <T>(path: string, body: unknown, signal: AbortSignal): Promise<T> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body), signal });
    if (!res.ok) throw new Error(`processor answered ${res.status}`);
    return (await res.json()) as T;
  };
  const action = (path: string) => (i: { reference: string; signal: AbortSignal; payment: string; amount: number }) =>
    post<{ ok: true; reference: string }>(path, { reference: i.reference, payment: i.payment, amount: i.amount }, i.signal);
  const { fields } = createSandboxCard();
  const notification = async ({ headers, body }: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<GatewayNotification | null> => {
    if (!notifySecret || !verified(notifySecret, headers, body)) return null;
    const note = JSON.parse(body.toString('utf8')) as { reference: string; status: 'succeeded'; payment: string };
    return { reference: note.reference, result: { status: 'succeeded', reference: note.payment, card: null } };
  };
  return [
    {
      id: REMOTE_ID,
      code: 'remote-card',
      name: 'Remote card',
      flow: 'form',
      fields,
      currencies: null,
      enabled: true,
      sandbox: true,
      pay: (i) => post<SettledResult>('/pay', { reference: i.reference, amount: i.amount, capture: i.capture }, i.signal),
      charge: (i) => post<SettledResult>('/pay', { reference: i.reference, amount: i.amount, capture: true }, i.signal),
      store: (i) => post<SettledResult>('/store', { reference: i.reference }, i.signal),
      capture: action('/capture'),
      refund: action('/refund'),
      void: action('/void'),
      lookup: (i) => post<LookupResult>('/lookup', { reference: i.reference }, i.signal),
      ...(notifySecret ? { notification } : {}),
    },
  ];
}
