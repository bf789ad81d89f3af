import { uuidv7 } from '../domain/ids';
import type { Db } from './db';
import type { PaymentNoteRow } from './schema';

// A payment's notes: what members write on it for the team. Every query names the
// environment, so another environment's payment takes no note and shows none.

/** The longest note, in characters (UTF-16 code units, as a textarea's maxlength counts). */
export const NOTE_MAX = 1000;
/** Enough for any payment's notes; a page with more shows the first ones. */
const MAX_ROWS = 500;

export type PaymentNote = Pick<PaymentNoteRow, 'id' | 'body' | 'created_at'> & { author_email: string };

/** Adds a note to the environment's payment; undefined (nothing written) when it has no such payment. */
export async function addPaymentNote(db: Db, n: { environmentId: string; transactionId: string; authorUserId: string; body: string }, now: Date): Promise<string | undefined> {
  const payment = await db.selectFrom('transactions').select('id').where('environment_id', '=', n.environmentId).where('id', '=', n.transactionId).executeTakeFirst();
  if (!payment) return undefined;
  const id = uuidv7(now.getTime());
  await db
    .insertInto('payment_notes')
    .values({ id, environment_id: n.environmentId, transaction_id: payment.id, author_user_id: n.authorUserId, body: n.body, created_at: now.toISOString() })
    .execute();
  return id;
}

/** The payment's notes with their author's email, oldest first. */
export function paymentNotes(db: Db, environmentId: string, transactionId: string): Promise<PaymentNote[]> {
  return db
    .selectFrom('payment_notes as n')
    .innerJoin('users as u', 'u.id', 'n.author_user_id')
    .select(['n.id', 'n.body', 'n.created_at', 'u.email as author_email'])
    .where('n.environment_id', '=', environmentId)
    .where('n.transaction_id', '=', transactionId)
    .orderBy('n.id')
    .limit(MAX_ROWS)
    .execute();
}
