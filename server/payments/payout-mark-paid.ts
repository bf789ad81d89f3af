import type { Deps } from '../deps';
import { transition } from '../domain/sepa/states';
import { recordAudit } from '../store/audit';
import { type Db, inTransaction } from '../store/db';
import { fileItems, lockFile, setFileState } from '../store/payout-files';
import { applyPayoutChange } from './payout-changes';

// An owner marking a payout of a file paid by hand (docs/balance.md#states: `mark_paid`),
// when the bank paid it but no statement that shows it will be imported, from the
// dashboard's file page or `POST /v1/payout_file/{id}/mark_paid/`. The rule is the one
// every change goes through (domain/sepa/states.ts: only a payout in transit, one status
// change and one event); its file is then booked, as a statement showing it would book
// it, so it can no longer be cancelled. The owner's reason goes to the audit log in the
// same transaction (`failure` keeps reasons of failures and returns only): a payout is
// never paid by hand without its reason kept, nor a reason kept for a change undone.

export type MarkPaid = { ok: true; changed: boolean } | { ok: false; reason: string; missing?: true };

/** Who marks it paid: a dashboard member, or an API key (no user, no email). */
export interface MarkedBy {
  reason: string;
  userId: string | null;
  email: string | null;
  ip: string | null;
}

export function markPayoutPaid(deps: Pick<Deps, 'outbox' | 'now'>, db: Db, environmentId: string, fileId: string, payoutId: string, by: MarkedBy): Promise<MarkPaid> {
  const now = deps.now();
  return inTransaction(db, async (trx): Promise<MarkPaid> => {
    const file = await lockFile(trx, environmentId, fileId);
    if (!file) return { ok: false, reason: 'No such payout file', missing: true };
    const item = (await fileItems(trx, file.id)).find((i) => i.payout_id === payoutId && i.active === 1);
    if (!item) return { ok: false, reason: 'No such payout in this file', missing: true };
    const t = transition(item.kind, item.status, 'mark_paid');
    if (t.kind === 'refused') return { ok: false, reason: t.reason };
    if (t.kind === 'unchanged') return { ok: true, changed: false };
    const change = { kind: item.kind, id: item.payout_id, from: t.from, to: t.to, moneyBack: false, reason: null };
    // A statement imported at this moment moved it first: nothing done here.
    if (!(await applyPayoutChange(trx, deps.outbox, change, now))) return { ok: false, reason: 'The payout changed meanwhile: look at it again' };
    if (file.state === 'downloaded') await setFileState(trx, file.id, 'booked', now);
    const detail = { file: file.id, payout: item.payout_id, reason: by.reason };
    await recordAudit(trx, { environmentId, userId: by.userId, email: by.email, action: 'payout_marked_paid', detail, ip: by.ip }, now);
    return { ok: true, changed: true };
  });
}
