import type { Db } from './db';
import type { MailRow } from './schema';

// What the top of a payment's page says besides the transaction and its sale: what our
// balance took and kept of the sale (its balance transactions' fees and net, as the API's
// `sale.fee` and the sales export sum them) and the customer's receipt (queued, sent or failed).

export interface PaymentSummaryFacts {
  /** Sums over the sale's balance transactions, minor units; null when it has none (not captured yet, or a processor settles it). */
  balance: { fee: number; net: number } | null;
  /** The payment's receipt email, or null when none was queued (no customer email). */
  receipt: Pick<MailRow, 'status' | 'sent_at' | 'created_at'> | null;
}

export async function paymentSummaryFacts(db: Db, environmentId: string, transactionId: string, saleId: string | null): Promise<PaymentSummaryFacts> {
  const [sums, receipt] = await Promise.all([
    saleId
      ? db
          .selectFrom('balance_transactions')
          .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.sum<number | string>('fee').as('fee'), eb.fn.sum<number | string>('net').as('net')])
          .where('environment_id', '=', environmentId)
          .where('sale_id', '=', saleId)
          .executeTakeFirst()
      : undefined,
    db
      .selectFrom('mails')
      .select(['status', 'sent_at', 'created_at'])
      .where('environment_id', '=', environmentId)
      .where('kind', '=', 'payment_receipt')
      .where('subject_id', '=', transactionId)
      .orderBy('id', 'desc')
      .executeTakeFirst(),
  ]);
  return { balance: sums && Number(sums.count) > 0 ? { fee: Number(sums.fee), net: Number(sums.net) } : null, receipt: receipt ?? null };
}
