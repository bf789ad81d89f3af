import { signReturnUrl } from '../notify/return-signature';
import type { Db } from '../store/db';
import { findReturnSecrets } from '../store/environments';
import type { TransactionRow } from '../store/schema';

// The shop's return_url and cancel_url as the customer is sent to them: once the payment
// is paid (D) or cancelled (C), the URL for that outcome is signed (notify/return-signature.ts)
// with the environment's return-signing secret, and during a roll's overlap its previous one.

type Urls = Pick<TransactionRow, 'id' | 'environment_id' | 'status' | 'return_url' | 'cancel_url'>;

/** return_url and cancel_url, the one of the transaction's final state signed now; the other as given. */
export async function returnUrls(db: Db, row: Urls, now: Date): Promise<{ return_url: string | null; cancel_url: string | null }> {
  const key = row.status === 'D' ? 'return_url' : row.status === 'C' ? 'cancel_url' : null;
  const url = key && row[key];
  if (!key || !url) return { return_url: row.return_url, cancel_url: row.cancel_url };
  const { secret, previous } = await findReturnSecrets(db, row.environment_id, now);
  const signed = signReturnUrl(url, { transactionId: row.id, status: row.status, now, secrets: previous ? [secret, previous.secret] : [secret] });
  return { return_url: row.return_url, cancel_url: row.cancel_url, [key]: signed };
}
