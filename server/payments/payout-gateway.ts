// The payout gateway: sends money from the service to a bank account (a client IBAN). An
// adapter behind one interface, injected through deps like the payment gateways, so a
// real payout provider replaces the sandbox without touching the ledger or the routes.

export interface PayoutRequest {
  /** Ours, unique per payout: a repeat with the same reference does not pay twice. */
  reference: string;
  /** Electronic format. */
  iban: string;
  /** Minor units. */
  amount: number;
  currency: string;
  /** Aborted when the service stops waiting (GATEWAY_TIMEOUT_MS): pass it to fetch. */
  signal: AbortSignal;
}

export type PayoutResult = { ok: true; reference: string } | { ok: false; reason: string };

export interface PayoutGateway {
  code: string;
  payout(request: PayoutRequest): Promise<PayoutResult>;
}

/**
 * The sandbox payout provider. Rule (documented in docs/wallets.md): an IBAN whose last
 * four digits are 0000 is refused; any other is paid. It answers a repeated reference as
 * it answered the first time.
 */
export function sandboxPayouts(): PayoutGateway {
  const answered = new Map<string, PayoutResult>();
  return {
    code: 'sandbox-payout',
    async payout(r) {
      const known = answered.get(r.reference);
      if (known) return known;
      const result: PayoutResult = r.iban.endsWith('0000')
        ? { ok: false, reason: 'sandbox: the bank refused the account (IBAN ending in 0000)' }
        : { ok: true, reference: `po_${r.reference}` };
      answered.set(r.reference, result);
      return result;
    },
  };
}
