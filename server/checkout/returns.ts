import { type ReturnSubject, signReturnUrl } from '../notify/return-signature';
import type { Db } from '../store/db';
import { findReturnSecrets } from '../store/environments';
import type { SubscriptionRow, TransactionRow } from '../store/schema';

// The shop's return_url and cancel_url as the customer is sent to them: once the payment
// is paid (D) or cancelled (C), or the sign-up is done or left, the URL for that outcome is
// signed (notify/return-signature.ts) with the environment's return-signing secret, and
// during a roll's overlap its previous one.

type Urls = Pick<TransactionRow, 'id' | 'environment_id' | 'status' | 'return_url' | 'cancel_url'>;

async function signed(db: Db, environmentId: string, url: string, r: { subject: ReturnSubject; status: string; now: Date }): Promise<string> {
  const { secret, previous } = await findReturnSecrets(db, environmentId, r.now);
  return signReturnUrl(url, { ...r, secrets: previous ? [secret, previous.secret] : [secret] });
}

/** return_url and cancel_url, the one of the transaction's final state signed now; the other as given. */
export async function returnUrls(db: Db, row: Urls, now: Date): Promise<{ return_url: string | null; cancel_url: string | null }> {
  const key = row.status === 'D' ? 'return_url' : row.status === 'C' ? 'cancel_url' : null;
  const url = key && row[key];
  if (!key || !url) return { return_url: row.return_url, cancel_url: row.cancel_url };
  const signedUrl = await signed(db, row.environment_id, url, { subject: { transaction_id: row.id }, status: row.status, now });
  return { return_url: row.return_url, cancel_url: row.cancel_url, [key]: signedUrl };
}

/**
 * Where a sign-up sends the customer, signed: return_url once signed up, cancel_url when
 * they left. The status is the subscription's own (`trialing`, `active`; `waiting` when left).
 */
export async function signupReturnUrl(
  db: Db,
  row: Pick<SubscriptionRow, 'id' | 'environment_id' | 'status' | 'return_url' | 'cancel_url'>,
  kind: 'completed' | 'cancelled',
  now: Date,
): Promise<string | null> {
  const url = kind === 'completed' ? row.return_url : row.cancel_url;
  return url && signed(db, row.environment_id, url, { subject: { subscription_id: row.id }, status: row.status, now });
}
