import { expect } from 'vitest';
import type { Gateway } from '../../server/payments/gateway';
import { createSandboxCard } from '../../server/payments/sandbox';
import type { BankLine } from '../unit/sepa-bank';
import { IBANS } from './documents';
import type { Client, TestService } from './harness';
import { compliantClient, createWallet } from './ledger';
import { payWithCard, priced } from './pay';

// What tests of payouts by SEPA file share (payout-files.test.ts through the API,
// dashboard-payout-files.test.ts through the dashboard): the service's settings, a
// processor for real money funding live wallets, wallet payouts to client IBANs, their
// files as the API shows them, and the bank's lines made from a file.

export const DEBTOR = IBANS.DE;
export const SEPA = { PAYOUT_PROVIDER: 'sepa-file', SEPA_DEBTOR_NAME: 'Plataforma de Pagos SL', SEPA_DEBTOR_IBAN: DEBTOR };
export const REAL_ID = '0190f5a0-0000-7000-8000-0000000000ab';
export const REAL_CARD = '5555 5555 5555 4444';

/** A processor for real money (the sandbox card's behaviour, not a sandbox): it funds live wallets. */
export function acquirer(): Gateway {
  return { ...createSandboxCard(), id: REAL_ID, code: 'acquirer', name: 'Acquirer', sandbox: false };
}

export interface FileJson {
  id: string;
  state: string;
  message_id: string;
  download_count: number;
  warning: string | null;
  payouts: { id: string; end_to_end_id: string; payment_info_id: string; amount: number; status: string }[];
}

export const cents = (major: number) => BigInt(Math.round(major * 100));
export const upload = (xml: string, name = 'statement.xml') => ({ file: { name, content_type: 'application/xml', data: Buffer.from(xml).toString('base64') } });

/** One booked debit per payout of the file, named by EndToEndId, as BtchBookg=false asks. */
export const debits = (f: FileJson): BankLine[] =>
  f.payouts.map((p) => ({ direction: 'DBIT', amount: cents(p.amount), transactions: [{ endToEndId: p.end_to_end_id, paymentInfoId: p.payment_info_id, messageId: f.message_id, amount: cents(p.amount) }] }));

/** Wallet payouts of the live environment `live` on `t`, and the files that hold them. */
export function livePayouts(t: () => TestService, live: () => Client) {
  /** A live wallet funded with `funded` through the acquirer, and its client's IBAN with a holder name. */
  async function fundedWallet(currency = 'EUR', funded = 10) {
    const client = await compliantClient(t(), live(), IBANS.ES);
    const named = await live().patch(`/client/${client.id}/iban/${client.iban}/`, { account_holder_name: 'José Müller & Søn' });
    expect(named.status, named.text).toBe(200);
    const wallet = await createWallet(live(), { client_id: client.id, currency });
    const tx = await live().post('/transaction/', priced(currency, funded, { destination: [{ wallet_id: wallet.id, amount: funded }] }));
    expect(tx.status, tx.text).toBe(201);
    expect((await payWithCard(t().url, tx.body.token, REAL_CARD, REAL_ID)).status).toBe(200);
    return { wallet, iban: client.iban, clientId: client.id };
  }

  async function payout(amount = 4, currency = 'EUR') {
    const { wallet, iban } = await fundedWallet(currency);
    const made = await live().post('/transfer/', { source_wallet: wallet.id, destination_iban: iban, amount });
    expect(made.status, made.text).toBe(201);
    expect(made.body.status).toBe('pending');
    return { id: made.body.id as string, wallet: wallet.id as string };
  }

  /** The newest file holding `payoutId`, read as JSON. */
  async function fileOf(payoutId: string): Promise<FileJson> {
    for (const f of (await live().get('/payout_file/?page_size=100')).body.results as { id: string }[]) {
      const full = await live().get(`/payout_file/${f.id}/`);
      if (full.body.payouts.some((p: { id: string }) => p.id === payoutId)) return full.body;
    }
    throw new Error(`no file holds ${payoutId}`);
  }

  return { fundedWallet, payout, fileOf };
}
