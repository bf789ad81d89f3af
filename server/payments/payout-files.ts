import type { SepaDebtorConfig } from '../config';
import type { Deps } from '../deps';
import { uuidv7 } from '../domain/ids';
import { buildPayoutFile, payoutRefusal, type SepaRefusal } from '../domain/sepa/pain001';
import { sepaIdOf } from '../domain/sepa/text';
import { DuplicateKeyError, uniquely } from '../store/clients';
import { inTransaction } from '../store/db';
import { environmentsWaiting, insertFile, setWaitingReason, type WaitingPayout, waitingPayouts } from '../store/payout-files';
import type { PayoutFileItemRow, PayoutFileRow } from '../store/schema';
import { applyPayoutChange } from './payout-changes';

// The payout-files job (PAYOUT_PROVIDER=sepa-file; docs/balance.md#payout-files): per live
// environment, its pending payouts in no file go into one new pain.001 file. A file never
// mixes environments. Each payout is checked first (domain/sepa payoutRefusal): one that can
// never be paid by SEPA transfer (another currency than EUR, an amount out of range, an
// IBAN or BIC a bank refuses) fails with the reason and its money goes back; one without the
// creditor's name waits, the reason shown on it, until its owner gives the account holder
// name. The file row and its items are written in one transaction before any payout is
// marked as sent: payouts stay `pending` until the file is downloaded for the bank
// (payout-file-actions.ts), so a file nobody took pays nothing. Two processes writing at
// once: the partial unique index on the items lets one file hold a payout, the other's
// whole transaction is refused and its round writes nothing.

type FileDeps = Pick<Deps, 'database' | 'outbox' | 'payouts' | 'log' | 'now'>;

/** At most this many payouts in one file; the rest go into the next round's. */
const FILE_MAX = 500;

/** Refusals a payout may get over (its owner gives the name): it waits instead of failing. */
const WAITS: ReadonlySet<SepaRefusal['code']> = new Set(['creditor_name']);

/** One round: a file for each live environment with payouts waiting; resolves with how many files were written. */
export async function writePayoutFiles(deps: FileDeps, limit: number): Promise<number> {
  const debtor = deps.payouts.forMode(true)?.files;
  if (!debtor) return 0;
  let written = 0;
  for (const environmentId of await environmentsWaiting(deps.database.db)) {
    if (written >= limit) break;
    if (await writeEnvironmentFile(deps, debtor, environmentId)) written++;
  }
  return written;
}

const filePayout = (p: WaitingPayout, debtor: SepaDebtorConfig) => ({
  id: p.id,
  amount: p.amount,
  currency: p.currency,
  debtor: { name: debtor.name, iban: debtor.iban, ...(debtor.bic ? { bic: debtor.bic } : {}) },
  creditor: { name: p.holder ?? '', iban: p.iban },
});

/** The payouts a file can take; the others failed (money back) or left waiting, each with its reason. */
async function screen(deps: FileDeps, debtor: SepaDebtorConfig, waiting: WaitingPayout[]): Promise<WaitingPayout[]> {
  const now = deps.now();
  const accepted: WaitingPayout[] = [];
  for (const p of waiting) {
    const refusal = payoutRefusal(filePayout(p, debtor));
    if (!refusal) accepted.push(p);
    else if (WAITS.has(refusal.code)) await setWaitingReason(deps.database.db, p.kind, p.id, `waits for a payout file: ${refusal.message}`, now);
    else {
      const change = { kind: p.kind, id: p.id, from: 'pending' as const, to: 'failed' as const, moneyBack: true, reason: `refused for a SEPA payout file: ${refusal.message}` };
      await inTransaction(deps.database.db, (trx) => applyPayoutChange(trx, deps.outbox, change, now));
      deps.log.info({ payout: p.id, refusal: refusal.code }, 'payout refused for a payout file');
    }
  }
  return accepted;
}

async function writeEnvironmentFile(deps: FileDeps, debtor: SepaDebtorConfig, environmentId: string): Promise<boolean> {
  const accepted = await screen(deps, debtor, await waitingPayouts(deps.database.db, environmentId, FILE_MAX));
  if (!accepted.length) return false;
  const now = deps.now();
  const id = uuidv7(now.getTime());
  const built = buildPayoutFile({
    version: debtor.version,
    fileId: id,
    createdAt: now,
    initiatingParty: debtor.name,
    executionDate: now.toISOString().slice(0, 10),
    payouts: accepted.map((p) => filePayout(p, debtor)),
  });
  const at = now.toISOString();
  const file: PayoutFileRow = {
    ...{ id, environment_id: environmentId, created_at: at, updated_at: at, message_id: built.messageId, version: built.version, state: 'written', currency: 'EUR' },
    ...{ debtor_iban: debtor.iban, payout_count: built.count, control_sum: Number(built.controlSum), execution_date: at.slice(0, 10), xml: built.xml },
    ...{ download_count: 0, downloaded_at: null, cancelled_at: null },
  };
  const kinds = new Map(accepted.map((p) => [p.id, p.kind]));
  const items: PayoutFileItemRow[] = built.batches.flatMap((b) =>
    b.payouts.map((p) => ({
      ...{ id: uuidv7(now.getTime()), file_id: id, environment_id: environmentId, kind: kinds.get(p.id)!, payout_id: p.id },
      ...{ end_to_end_id: p.endToEndId, payment_info_id: b.paymentInfoId, amount: Number(p.amount), active: 1 },
    })),
  );
  try {
    await uniquely(() =>
      inTransaction(deps.database.db, async (trx) => {
        await insertFile(trx, file, items);
        for (const p of accepted) await setWaitingReason(trx, p.kind, p.id, null, now);
      }),
    );
  } catch (err) {
    // Another process put one of these payouts in its file first: that file pays it.
    if (err instanceof DuplicateKeyError) return false;
    throw err;
  }
  deps.log.info({ file: id, message_id: sepaIdOf(id), payouts: items.length }, 'payout file written');
  return true;
}
