import type { Deps } from '../deps';
import { cancelFile, transition } from '../domain/sepa/states';
import { type Actor, recordAudit } from '../store/audit';
import { type Db, type Tx, inTransaction } from '../store/db';
import { countDownload, fileItems, lockFile, setFileState } from '../store/payout-files';
import type { PayoutFileRow } from '../store/schema';
import { applyPayoutChange } from './payout-changes';

// What a person does with a payout file (docs/balance.md#payout-files), each in one
// database transaction with the file's row locked, so a download and a cancel of the same
// file never interleave:
// - download: the first moves the file to `downloaded` and each of its pending payouts to
//   `in_transit` (one event each): from then on the bank may pay them. A later download
//   is the same bytes, and says how many times it was taken before: uploading a file
//   twice pays every payout in it twice.
// - cancel: a file not booked yet (no statement showed any of it) is cancelled; its payouts
//   in transit go back to `pending` (one event each) for the next file. Who cancelled it is
//   audited (`payout_file_cancelled`) in the same transaction, from the dashboard and the
//   API alike: a file is never cancelled without it, nor audited for a cancel undone.

type FileDeps = Pick<Deps, 'database' | 'outbox' | 'now'>;

export type Download = { ok: true; file: PayoutFileRow; first: boolean } | { ok: false; reason: string; missing?: true };

export function downloadFile(deps: FileDeps, environmentId: string, fileId: string): Promise<Download> {
  const now = deps.now();
  return inTransaction(deps.database.db, async (trx): Promise<Download> => {
    const file = await lockFile(trx, environmentId, fileId);
    if (!file) return { ok: false, reason: 'No such payout file', missing: true };
    if (file.state === 'cancelled') return { ok: false, reason: 'The payout file was cancelled: its payouts go into another file, never send this one to the bank' };
    const first = await countDownload(trx, file.id, now);
    if (first) await sendItems(trx, deps, file.id, now);
    return { ok: true, file: (await lockFile(trx, environmentId, fileId))!, first };
  });
}

async function sendItems(trx: Tx, deps: Pick<Deps, 'outbox'>, fileId: string, now: Date) {
  for (const item of await fileItems(trx, fileId)) {
    const t = transition(item.kind, item.status, 'send');
    if (t.kind === 'changed') await applyPayoutChange(trx, deps.outbox, { kind: item.kind, id: item.payout_id, from: t.from, to: t.to, moneyBack: false, reason: null }, now);
  }
}

export type Cancel = { ok: true; file: PayoutFileRow } | { ok: false; reason: string; missing?: true };

/** On `db`: a keyed request's transaction (the cancel joins it), or the database. `by`: a dashboard member, or an API key (no user). */
export function cancelPayoutFile(deps: Pick<Deps, 'outbox' | 'now'>, db: Db, environmentId: string, fileId: string, by: Actor): Promise<Cancel> {
  const now = deps.now();
  return inTransaction(db, async (trx): Promise<Cancel> => {
    const file = await lockFile(trx, environmentId, fileId);
    if (!file) return { ok: false, reason: 'No such payout file', missing: true };
    const items = await fileItems(trx, file.id);
    // The kind only names the events; whether the file can go is one rule over all its payouts.
    const decided = cancelFile(file.state, 'transfer', items.map((i) => ({ id: i.payout_id, state: i.status })));
    if (!decided.ok) return { ok: false, reason: decided.reason };
    if (file.state === 'cancelled') return { ok: true, file };
    let pending = 0;
    for (const item of items) {
      const t = transition(item.kind, item.status, 'cancel_file');
      if (t.kind !== 'changed') continue;
      await applyPayoutChange(trx, deps.outbox, { kind: item.kind, id: item.payout_id, from: t.from, to: t.to, moneyBack: false, reason: null }, now);
      pending++;
    }
    await setFileState(trx, file.id, 'cancelled', now);
    const detail = { ...by.detail, file: file.id, pending: String(pending) };
    await recordAudit(trx, { environmentId, userId: by.userId, email: by.email, action: 'payout_file_cancelled', detail, ip: by.ip }, now);
    return { ok: true, file: (await lockFile(trx, environmentId, fileId))! };
  });
}
