import { uuidv7 } from '../domain/ids';
import { payoutPostings } from '../domain/ledger';
import type { Deps } from '../deps';
import { type Db, inTransaction } from '../store/db';
import { type ClientIban, ibanNumber } from '../store/clients';
import type { TransferRow } from '../store/schema';
import { claimDuePayouts, markTransferSettled } from '../store/transfers';
import { askGateway } from './ask';
import { reverseMovement } from './ledger-posting';
import { paysByFile, providerOf } from './payout-providers';
import { type NewTransfer, recordTransfer, type TransferOutcome, transferRow } from './transfers';

// Payouts: a wallet's money to a client IBAN. Reserve: the transfer (pending) and the
// debit of the wallet into the outside-world `payouts` account, in one database
// transaction. Then a job asks the payout gateway, outside any transaction, and records
// the answer: paid, or failed with a reversing movement that returns the money.
//
// A call with no answer (it threw, or outlived GATEWAY_TIMEOUT_MS) leaves the payout
// pending: the bank may or may not have paid, and only the provider knows. The worker's
// claim (PAYMENT_CLAIM_MS, at least twice the timeout) then runs out and a later round
// asks again with the same reference, which the provider answers as it did the first time
// (the PayoutGateway contract): a payout is paid or returned exactly once, never both.
//
// The provider is the one of the wallet's environment's mode (payout-providers.ts): a
// sandbox's moves no money; a live environment with no real provider takes no payout (the
// API refuses it), and one already pending waits for a provider rather than being failed,
// since an earlier call may have reached the bank.

type PayoutDeps = Pick<Deps, 'config' | 'database' | 'outbox' | 'payouts' | 'log' | 'now'>;

/** What the ledger names as the other side of a payout. */
const externalOf = (ibanId: string) => `iban:${ibanId}`;

export function createPayout(deps: PayoutDeps, db: Db, p: NewTransfer & { iban: ClientIban }): Promise<TransferOutcome> {
  return recordTransfer(db, deps.outbox, {
    wallets: [p.source.id],
    clock: p.clock,
    make: (now) => {
      const row = transferRow(p, now, { destination_wallet: null, destination_iban: p.iban.id, status: 'pending' });
      return { row, postings: payoutPostings(row.source_wallet, BigInt(row.amount), externalOf(p.iban.id)) };
    },
  });
}

/** One round of the payouts job: sends up to `limit` pending payouts; resolves with how many were settled. */
export async function sendPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  const db = deps.database.db;
  let settled = 0;
  for (const t of await claimDuePayouts(db, deps.now(), deps.config.paymentClaimMs, limit, paysByFile(deps))) {
    const provider = await providerOf(deps, db, t.environment_id);
    // A payout file pays it (payout-files.ts): nobody is asked payout by payout.
    if (provider?.files) continue;
    if (!provider) {
      deps.log.warn({ transfer: t.id }, 'payout waits: no payout provider for real money is configured');
      continue;
    }
    const iban = await ibanNumber(db, t.destination_iban!);
    const answer = await askGateway(deps, provider, (signal) =>
      provider.payout({ reference: t.id, iban: iban.iban, amount: t.amount, currency: t.currency, signal }),
    );
    if (answer.kind !== 'answered') continue;
    const result = answer.value;
    if (await settlePayout(deps, t, result.ok ? null : result.reason)) settled++;
    deps.log.info({ transfer: t.id, paid: result.ok }, 'payout settled');
  }
  return settled;
}

/** pending → paid, or → failed with the money returned to the wallet; once. */
async function settlePayout(deps: PayoutDeps, t: TransferRow, failure: string | null): Promise<boolean> {
  const now = deps.now();
  return inTransaction(deps.database.db, async (trx) => {
    if (!(await markTransferSettled(trx, t.id, failure, now))) return false;
    if (failure) {
      await reverseMovement(trx, deps.outbox, { movementId: t.id, reversalId: uuidv7(now.getTime()), concept: 'payout failed: returned', now });
    }
    await deps.outbox.emit(trx, failure ? 'transfer.failed' : 'transfer.paid', t.id, now);
    return true;
  });
}
