import { type Share, sourcedPostings } from '../domain/ledger';
import { inTransaction } from '../store/db';
import { markSourceCharges } from '../store/destinations';
import { PostingRefused, getWallet, postMovement } from '../store/ledger';
import type { SaleRow } from '../store/schema';
import { insertTransaction, type StoredTransaction } from '../store/transactions';
import type { ResolvedSource } from '../transactions/create';
import type { PaymentDeps } from './ask';
import { chargeAuthorization } from './charge';
import { moveSaleMoney } from './sale-actions';

// A transaction paid at creation from its `source`: wallets and stored cards, all or
// nothing. Wallets are checked first (nothing is charged if one cannot pay), then each
// card is charged through the gateway outside any database transaction, then one database
// transaction stores the paid transaction and its ledger movement (the wallets' debits,
// the cards' money, the destinations' credits). If a card declines, or a wallet no longer
// holds its amount at that last step, the cards already charged are refunded in full and
// nothing is stored.


export type SourcesOutcome = { kind: 'paid' } | { kind: 'failed'; index: number; reason: string };

export async function payFromSources(
  deps: PaymentDeps,
  p: { tx: StoredTransaction; sources: ResolvedSource[]; destinations: Share[] },
): Promise<SourcesOutcome> {
  const { row } = p.tx;
  const db = deps.database.db;
  const wallets = p.sources.flatMap((s) => ('wallet' in s ? [s] : []));
  for (const s of wallets) {
    const w = (await getWallet(db, row.environment_id, s.wallet))!;
    const owed = wallets.filter((o) => o.wallet === s.wallet).reduce((a, o) => a + o.amount, 0);
    if (!w.enabled) return { kind: 'failed', index: s.index, reason: 'the wallet is disabled' };
    if (w.balance < owed) return { kind: 'failed', index: s.index, reason: 'the wallet does not hold enough money' };
  }

  const charged: SaleRow[] = [];
  const fail = async (index: number, reason: string): Promise<SourcesOutcome> => {
    for (const sale of charged) {
      const undone = await moveSaleMoney(deps, { sale, action: 'refund', amount: sale.amount });
      if (undone.kind !== 'done') deps.log.error({ sale: sale.id, outcome: undone.kind }, 'a charge of a failed source payment could not be refunded');
    }
    return { kind: 'failed', index, reason };
  };
  for (const s of p.sources) {
    if (!('authorization' in s)) continue;
    const r = await chargeAuthorization(deps, {
      authorization: s.authorization,
      amount: s.amount,
      currency: row.currency,
      description: `source ${s.index} of transaction ${row.id}`,
    });
    if (r.kind === 'approved') charged.push(r.sale.row);
    else return fail(s.index, r.kind === 'declined' ? `the card was declined (${r.outcome})` : r.kind === 'not_active' ? 'the authorization was removed' : 'the gateway failed');
  }

  const now = deps.now();
  try {
    await inTransaction(db, async (trx) => {
      await insertTransaction(trx, p.tx);
      await markSourceCharges(trx, row.id, charged.map((sale) => sale.id));
      await postMovement(trx, deps.outbox, {
        environmentId: row.environment_id,
        currency: row.currency,
        movementId: row.id,
        concept: `transaction ${row.id}`,
        postings: sourcedPostings(
          `transaction:${row.id}`,
          wallets.map((s) => ({ wallet: s.wallet, amount: BigInt(s.amount) })),
          BigInt(charged.reduce((a, s) => a + s.amount, 0)),
          p.destinations,
        ),
        now,
      });
      await deps.outbox.emit(trx, 'transaction.paid', row.id, now);
    });
  } catch (err) {
    if (err instanceof PostingRefused) return fail(wallets.find((s) => s.wallet === err.wallet)!.index, `the wallet ${err.reason === 'disabled' ? 'is disabled' : 'does not hold enough money'}`);
    throw err;
  }
  return { kind: 'paid' };
}
