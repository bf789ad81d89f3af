import type { PayoutGateway, PayoutResult } from '../../server/payments/payout-gateway';

// A networked payout provider adapter for the stand-in bank (payout-bank.ts), loaded by a
// service process through PAYOUT_MODULE with GATEWAY_SETTINGS = {"payoutUrl": …}: the way an
// operator adds a real payout provider. Whatever fails throws: an unknown outcome. The
// stand-in bank moves no money, so it says `sandbox`: it pays the sandboxes' payouts.

export default function remotePayouts(settings: unknown): PayoutGateway {
  const { payoutUrl } = settings as { payoutUrl: string };
  return {
    code: 'remote-payout',
    sandbox: true,
    async payout({ reference, iban, amount, currency, signal }) {
      const res = await fetch(`${payoutUrl}/payout`, { method: 'POST', body: JSON.stringify({ reference, iban, amount, currency }), signal });
      if (!res.ok) throw new Error(`bank answered ${res.status}`);
      return (await res.json()) as PayoutResult;
    },
  };
}
