import { uuidv7 } from '../domain/ids';
import { manualPeriod, merchantPayoutPostings, payoutAmount, periodKey, type PayoutSchedule } from '../domain/merchant-payouts';
import type { Deps } from '../deps';
import { releasePayoutLines } from '../store/balance';
import { type Db, inTransaction } from '../store/db';
import type { Outbox } from '../store/events';
import {
  claimPendingPayouts,
  deletePayout,
  fillPayout,
  insertPayout,
  markPayoutSettled,
  payableByCurrency,
  payableLines,
  recordPayoutBalance,
  scheduledEnvironments,
} from '../store/merchant-payouts';
import type { MerchantPayoutRow } from '../store/schema';
import { askGateway } from './ask';
import { postMovement, reverseMovement } from './ledger-posting';
import { paysByFile, providerOf } from './payout-providers';

// Payouts of the merchant's balance to its bank account (docs/balance.md#payouts), through
// the payout gateway the wallets' payouts use (payout-gateway.ts) and under the same rules
// (payouts.ts): the money leaves the balance when the payout is made, in one database
// transaction; the gateway is asked outside any transaction, with the payout's id as the
// reference, by whichever process claimed the payout; an answer is recorded once (a
// conditional update of the status); a call with no answer leaves the payout pending until
// the claim runs out and a later round asks again with the same reference, which the
// provider answers as it did the first time. So a payout is paid, or failed and returned,
// exactly once, across processes and crashes.
//
// The provider is the one of the environment's mode (payout-providers.ts): a live
// environment with no real provider makes no scheduled payout and sends none.
//
// A payout is made in one database transaction: its row, its lines, its own `payout`
// balance transaction (net −amount) and that one's ledger movement (merchant → payouts).
// Failed, it gets a `payout_failure` balance transaction (+amount), the movement reversed
// and the lines released for the next payout.

type PayoutDeps = Pick<Deps, 'config' | 'database' | 'outbox' | 'payouts' | 'log' | 'now'>;

interface NewPayout {
  environmentId: string;
  currency: string;
  /** A period key (domain/merchant-payouts.ts), or a function of the payout's id (manual). */
  period: string | ((id: string) => string);
  schedule: PayoutSchedule;
  iban: string;
  /** The settings' account holder name: the creditor's name if the payout goes by SEPA file. */
  holder: string | null;
  now: Date;
}

/**
 * Makes a payout of what is payable in its currency; null, leaving nothing behind, when the
 * period already has its payout or the lines would pay nothing.
 */
async function makePayout(db: Db, outbox: Outbox, p: NewPayout): Promise<MerchantPayoutRow | null> {
  const at = p.now.toISOString();
  const id = uuidv7(p.now.getTime());
  const period = typeof p.period === 'string' ? p.period : p.period(id);
  return inTransaction(db, async (trx) => {
    const row: MerchantPayoutRow = {
      ...{ id, environment_id: p.environmentId, currency: p.currency, period, schedule: p.schedule, iban: p.iban, account_holder_name: p.holder, amount: 0, line_count: 0 },
      ...{ status: 'pending', failure: null, locked_until: null, claimed_by: null, created_at: at, updated_at: at },
    };
    if (!(await insertPayout(trx, row))) return null;
    const lines = await payableLines(trx, p.environmentId, p.currency, p.now);
    const amount = payoutAmount(lines.map((l) => l.net));
    if (amount === null) {
      await deletePayout(trx, id);
      return null;
    }
    const made = { ...row, amount: Number(amount), line_count: lines.length };
    await fillPayout(trx, made, lines.map((l) => l.id));
    await recordPayoutBalance(trx, made, 'payout', -amount, p.now);
    await postMovement(trx, outbox, {
      environmentId: p.environmentId,
      currency: p.currency,
      movementId: id,
      concept: 'payout to the merchant',
      postings: merchantPayoutPostings(id, amount),
      now: p.now,
    });
    await outbox.emit(trx, 'merchant_payout.created', id, p.now);
    return made;
  });
}

/** pending → paid, or → failed with the money returned and the lines released; once (false when already settled). */
async function settlePayout(db: Db, outbox: Outbox, payout: MerchantPayoutRow, failure: string | null, now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await markPayoutSettled(trx, payout.id, failure, now))) return false;
    if (failure) {
      await releasePayoutLines(trx, payout.id);
      await recordPayoutBalance(trx, payout, 'payout_failure', BigInt(payout.amount), now);
      await reverseMovement(trx, outbox, { movementId: payout.id, reversalId: uuidv7(now.getTime()), concept: 'payout to the merchant failed: returned', now });
    }
    await outbox.emit(trx, failure ? 'merchant_payout.failed' : 'merchant_payout.paid', payout.id, now);
    return true;
  });
}

/** One round of scheduled payouts: each environment's currencies with money available and no payout this period. */
export async function makeScheduledPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  const db = deps.database.db;
  let made = 0;
  for (const s of await scheduledEnvironments(db, deps.now())) {
    // A live environment with no real payout provider keeps its balance: the Overview says
    // so under "Needs attention" (dashboard/home-attention.ts).
    if (!(await providerOf(deps, db, s.environment_id))) continue;
    const now = deps.now();
    const period = periodKey(s.schedule, now);
    for (const { currency } of await payableByCurrency(db, s.environment_id, now, period)) {
      const payout = await makePayout(db, deps.outbox, { environmentId: s.environment_id, currency, period, schedule: s.schedule, iban: s.iban, holder: s.account_holder_name, now });
      if (payout) {
        made++;
        deps.log.info({ payout: payout.id, period }, 'merchant payout made');
      }
      if (made >= limit) return made;
    }
  }
  return made;
}

/**
 * A manual payout of what is available in `currency`, on `db` (a keyed request's
 * transaction): null when nothing is available to pay out.
 */
export async function makeManualPayout(db: Db, deps: PayoutDeps, p: { environmentId: string; currency: string; iban: string; holder: string | null }): Promise<MerchantPayoutRow | null> {
  return makePayout(db, deps.outbox, { ...p, period: manualPeriod, schedule: 'manual', now: deps.now() });
}

/** One round of sending: up to `limit` pending payouts to the payout gateway; resolves with how many were settled. */
async function sendMerchantPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  const db = deps.database.db;
  let settled = 0;
  for (const payout of await claimPendingPayouts(db, deps.now(), deps.config.paymentClaimMs, limit, paysByFile(deps))) {
    const provider = await providerOf(deps, db, payout.environment_id);
    // A payout file pays it (payout-files.ts): nobody is asked payout by payout.
    if (provider?.files) continue;
    if (!provider) {
      deps.log.warn({ payout: payout.id }, 'merchant payout waits: no payout provider for real money is configured');
      continue;
    }
    const answer = await askGateway(deps, provider, (signal) =>
      provider.payout({ reference: payout.id, iban: payout.iban, amount: payout.amount, currency: payout.currency, signal }),
    );
    // No answer: the bank may have paid. The payout stays pending and claimed; once the
    // claim runs out a later round asks again with the same reference.
    if (answer.kind !== 'answered') continue;
    const result = answer.value;
    if (await settlePayout(db, deps.outbox, payout, result.ok ? null : result.reason, deps.now())) settled++;
    deps.log.info({ payout: payout.id, paid: result.ok }, 'merchant payout settled');
  }
  return settled;
}

/** The payout job's round: make what the schedules call for, then send what is pending. */
export async function runMerchantPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  return (await makeScheduledPayouts(deps, limit)) + (await sendMerchantPayouts(deps, limit));
}
