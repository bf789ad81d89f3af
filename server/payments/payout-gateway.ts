import type { SepaDebtorConfig } from '../config';

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
  /**
   * Moves no real money (the sandbox, a provider's own test mode): it serves sandbox
   * environments only; a provider without it serves live ones only.
   */
  sandbox?: boolean;
  /**
   * Pays by SEPA files from this account (PAYOUT_PROVIDER=sepa-file): never asked payout by
   * payout; the payout-files job writes its environments' payouts into files
   * (payments/payout-files.ts) and statements say when the bank paid them.
   */
  files?: SepaDebtorConfig;
  payout(request: PayoutRequest): Promise<PayoutResult>;
}

/** The payout providers of this service, one per mode (deps.payouts). */
export interface PayoutProviders {
  /**
   * The provider of an environment of this mode: a sandbox's moves no money; a live one's
   * is the real one, null when none is configured (PAYOUT_MODULE), so a live payout is
   * refused rather than recorded as paid while no money leaves.
   */
  forMode(live: boolean): PayoutGateway | null;
}

/** What a live environment's payout is refused with when no real payout provider is configured. */
export const NO_LIVE_PAYOUTS = 'No payout provider for real money is configured (PAYOUT_MODULE or PAYOUT_PROVIDER=sepa-file): a live environment cannot pay out';

/**
 * The providers by mode: `configured` (PAYOUT_MODULE's) serves the mode its `sandbox` flag
 * says; a sandbox is served by the sandbox provider unless `configured` is a test mode.
 */
export function payoutProviders(configured: PayoutGateway | null, sandbox: PayoutGateway): PayoutProviders {
  const test = configured?.sandbox ? configured : sandbox;
  const live = configured && !configured.sandbox ? configured : null;
  return { forMode: (isLive) => (isLive ? live : test) };
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
    sandbox: true,
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

/**
 * PAYOUT_PROVIDER=sepa-file's provider of live environments. Its payouts go into files, so
 * its `payout` is never to be called; if it were, it throws, which leaves the payout
 * pending (an unknown outcome) rather than recording anything.
 */
export function sepaFilePayouts(debtor: SepaDebtorConfig): PayoutGateway {
  return {
    code: 'sepa-file',
    files: debtor,
    payout: () => Promise.reject(new Error('sepa-file pays by payout files, not payout by payout')),
  };
}
