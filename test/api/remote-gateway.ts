import type { Gateway, LookupResult, SettledResult } from '../../server/payments/gateway';
import { createSandboxCard } from '../../server/payments/sandbox';

// A networked gateway adapter for the stand-in processor (processor.ts), loaded by a
// service process through GATEWAY_MODULES with GATEWAY_SETTINGS = {"url": …}: the way an
// operator adds a real processor. Card fields as the sandbox card's.

export const REMOTE_ID = '0190f5a0-0000-7000-8000-0000000000e1';

export default function remoteGateways(settings: unknown): Gateway[] {
  const { url } = settings as { url: string };
  const post = async <T>(path: string, body: unknown, signal: AbortSignal): Promise<T> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body), signal });
    if (!res.ok) throw new Error(`processor answered ${res.status}`);
    return (await res.json()) as T;
  };
  const action = (path: string) => (i: { reference: string; signal: AbortSignal; payment: string; amount: number }) =>
    post<{ ok: true; reference: string }>(path, { reference: i.reference, payment: i.payment, amount: i.amount }, i.signal);
  const { fields } = createSandboxCard();
  return [
    {
      id: REMOTE_ID,
      code: 'remote-card',
      name: 'Remote card',
      flow: 'form',
      fields,
      currencies: null,
      enabled: true,
      pay: (i) => post<SettledResult>('/pay', { reference: i.reference, amount: i.amount, capture: i.capture }, i.signal),
      charge: (i) => post<SettledResult>('/pay', { reference: i.reference, amount: i.amount, capture: true }, i.signal),
      capture: action('/capture'),
      refund: action('/refund'),
      void: action('/void'),
      lookup: (i) => post<LookupResult>('/lookup', { reference: i.reference }, i.signal),
    },
  ];
}
