import type { ExpressionBuilder } from 'kysely';
import { randomUUID } from 'node:crypto';
import { type Db, inTransaction, type Tx } from './db';
import { insertWaitingNow } from './compiled';
import { claimBatch, claimEach } from './locking';
import type { MailKind, MailRow, Tables } from './schema';
import { markReminded } from './subscriptions';

// Emails to customers (receipts, sign-up confirmations, trial reminders): a second outbox
// beside the webhooks' events. A row is written in the same database transaction as the
// change it reports and claimed by the mail job; its id is the change's event id, which
// the email carries as its Message-ID, so a resend after a crash is recognisably the same
// email. The address and the content are personal data: erased once the email is sent
// or given up, so the row then only records that it was.

export interface NewMail {
  id: string;
  environmentId: string;
  kind: MailKind;
  subjectId: string;
  operationId?: string | null;
  recipient: string;
  content: unknown;
  now: Date;
}

export async function insertMail(trx: Tx, m: NewMail): Promise<void> {
  const at = m.now.toISOString();
  await trx
    .insertInto('mails')
    .values({
      id: m.id,
      environment_id: m.environmentId,
      kind: m.kind,
      subject_id: m.subjectId,
      operation_id: m.operationId ?? null,
      recipient: m.recipient,
      content: JSON.stringify(m.content),
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: at,
      locked_until: null,
      claimed_by: null,
      last_error: null,
      sent_at: null,
      created_at: at,
    })
    .execute();
}

/** A sale's refund operations that have no receipt yet, oldest first. */
export async function unreceiptedRefunds(trx: Tx, saleId: string) {
  // The refund this transaction recorded may wait for its commit (insertAtCommit).
  await insertWaitingNow(trx);
  return trx
    .selectFrom('sale_operations')
    .leftJoin('mails', 'mails.operation_id', 'sale_operations.id')
    .select(['sale_operations.id', 'sale_operations.amount', 'sale_operations.created_at'])
    .where('sale_operations.sale_id', '=', saleId)
    .where('sale_operations.kind', '=', 'refund')
    .where('mails.id', 'is', null)
    .orderBy('sale_operations.id')
    .execute();
}

/** Claims up to `limit` due emails until `now + leaseMs`, as claimDueDeliveries does for webhooks. */
export function claimDueMails(db: Db, now: Date, leaseMs: number, limit: number): Promise<MailRow[]> {
  const due = (eb: ExpressionBuilder<Tables, 'mails'>) => eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now.toISOString())]);
  return claimBatch(db, { table: 'mails', due, order: 'next_attempt_at', now, until: new Date(now.getTime() + leaseMs), claimant: randomUUID(), limit });
}

/**
 * Records one attempt of a claimed email: sent, or failed with a retry time (null gives
 * up). Sent or given up, its address and content are erased.
 */
export async function recordMailAttempt(
  db: Db,
  mail: MailRow,
  outcome: { sent: true } | { sent: false; error: string; retryAt: Date | null },
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const final = outcome.sent || outcome.retryAt === null;
  await db
    .updateTable('mails')
    .set((eb) => ({
      attempt_count: eb('attempt_count', '+', 1),
      status: outcome.sent ? 'sent' : outcome.retryAt ? 'pending' : 'failed',
      next_attempt_at: !outcome.sent && outcome.retryAt ? outcome.retryAt.toISOString() : null,
      sent_at: outcome.sent ? at : null,
      last_error: outcome.sent ? null : outcome.error,
      ...(final ? { recipient: null, content: null } : {}),
      locked_until: null,
      claimed_by: null,
    }))
    .where('id', '=', mail.id)
    .where('claimed_by', '=', mail.claimed_by)
    .execute();
}

/**
 * Trialing subscriptions whose first charge is due before `until`, with an address and no
 * reminder yet: each is marked reminded with a conditional UPDATE and handed to `queue`
 * in the same transaction, so two processes never remind one subscription twice.
 */
export async function claimTrialReminders(
  db: Db,
  r: { now: Date; until: Date; limit: number; queue: (trx: Tx, subscriptionId: string) => Promise<void> },
): Promise<number> {
  const at = r.now.toISOString();
  return inTransaction(db, async (trx) => {
    const due = trx
      .selectFrom('subscriptions')
      .select('id')
      .where('status', '=', 'trialing')
      .where('trial_end', '>', at)
      .where('trial_end', '<=', r.until.toISOString())
      .where('reminded_at', 'is', null)
      .where('customer_email', 'is not', null)
      .orderBy('trial_end')
      .limit(r.limit);
    const queued = await claimEach(trx, due, async ({ id }) => {
      if (!(await markReminded(trx, id, at))) return undefined;
      await r.queue(trx, id);
      return id;
    });
    return queued.length;
  });
}

/** Tests and the dashboard: the emails of one object, oldest first. */
export function mailsOf(db: Db, subjectId: string) {
  return db.selectFrom('mails').selectAll().where('subject_id', '=', subjectId).orderBy('id').execute();
}

/** Emails sent or given up before `before`: their address and words are already erased, the row only said it was sent. */
export async function purgeFinishedMails(db: Db, before: Date, batch: number): Promise<number> {
  const ids = (
    await db
      .selectFrom('mails')
      .select('id')
      .where('status', 'in', ['sent', 'failed'])
      .where('created_at', '<', before.toISOString())
      .limit(batch)
      .execute()
  ).map((r) => r.id);
  if (!ids.length) return 0;
  const result = await db.deleteFrom('mails').where('id', 'in', ids).where('status', 'in', ['sent', 'failed']).executeTakeFirst();
  return Number(result.numDeletedRows);
}
