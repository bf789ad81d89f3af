import { uuidv7 } from '../domain/ids';
import { type ReceiptRefusal, receiptResendRefusal } from '../domain/receipt-resend';
import { type Db, inTransaction } from '../store/db';
import { forUpdate } from '../store/locking';
import { queuePaymentReceipt } from './mail-content';

// A payment's receipt sent again at the merchant's request: through the mail outbox like
// the first one (the mail job sends it; nothing is sent here), with the payment's current
// customer email and the time it was paid. The transaction's row is locked while the
// last receipt's time is read, so two requests at once queue one email, not two.

export type ReceiptResend = { queued: true } | { queued: false; refusal: ReceiptRefusal };

export async function resendPaymentReceipt(db: Db, environmentId: string, transactionId: string, now: Date): Promise<ReceiptResend | undefined> {
  return inTransaction(db, async (trx) => {
    const tx = await forUpdate(
      db,
      trx.selectFrom('transactions').select(['id', 'status', 'customer_email']).where('environment_id', '=', environmentId).where('id', '=', transactionId),
    ).executeTakeFirst();
    if (!tx) return undefined;
    const last = await trx
      .selectFrom('mails')
      .select('created_at')
      .where('subject_id', '=', transactionId)
      .where('kind', '=', 'payment_receipt')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    const refusal = receiptResendRefusal({ status: tx.status, customerEmail: tx.customer_email ?? null, lastQueuedAt: last?.created_at ?? null, now });
    if (refusal) return { queued: false, refusal };
    const paid = await trx
      .selectFrom('events')
      .select('created_at')
      .where('environment_id', '=', environmentId)
      .where('object_id', '=', transactionId)
      .where('type', '=', 'transaction.paid')
      .executeTakeFirst();
    await queuePaymentReceipt(trx, transactionId, uuidv7(now.getTime()), paid?.created_at ?? now.toISOString(), now);
    return { queued: true };
  });
}
